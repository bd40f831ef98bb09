#!/usr/bin/env python3
"""PyTorch eager on the same GPU, for bench/gpu: training forward+backward
time and peak memory of torchvision's versions of the benchmark nets, and
the largest ResNet-50 batch that trains, with and without
checkpoint_sequential.

  python3 bench/gpu/torch_train.py time NET BATCH ITERS TF32(0|1)
  python3 bench/gpu/torch_train.py fits NET BATCH CHECKPOINT(0|1)
  python3 bench/gpu/torch_train.py largest NET STEP CHECKPOINT(0|1)

`time` prints "ms_per_iter=<median> min=<min> peak_bytes=<n>": ITERS timed
forward+backward passes (no optimizer step, as `caffe time`), after two
warm-up passes, cudnn.benchmark on.  `fits` exits 0 when one
forward+backward pass of that batch runs, 3 when it runs out of memory.
torchvision's nets stand in for models/: alexnet for CaffeNet (no LRN,
no groups), googlenet (with batch norm, unlike BVLC's), vgg16, resnet50.
"""
import gc
import statistics
import sys
import time

import torch
import torch.nn as nn
import torchvision
from torch.utils.checkpoint import checkpoint_sequential

NETS = {
    'caffenet': lambda: torchvision.models.alexnet(),
    'googlenet': lambda: torchvision.models.googlenet(aux_logits=False,
                                                      init_weights=True),
    'vgg16': lambda: torchvision.models.vgg16(),
    'resnet50': lambda: torchvision.models.resnet50(),
}
SIZE = {'caffenet': 227, 'googlenet': 224, 'vgg16': 224, 'resnet50': 224}


def step(model, x, y, loss_fn, checkpoint):
    if checkpoint:
        # ResNet-50 as a sequence: stem, four stages, pool, fc.
        seq = nn.Sequential(model.conv1, model.bn1, model.relu, model.maxpool,
                            model.layer1, model.layer2, model.layer3,
                            model.layer4, model.avgpool, nn.Flatten(),
                            model.fc)
        out = checkpoint_sequential(seq, 4, x, use_reentrant=False)
    else:
        out = model(x)
    loss = loss_fn(out, y)
    loss.backward()


def fits_in_process(model, net, batch, checkpoint, dev):
    loss_fn = nn.CrossEntropyLoss()
    ok = True
    try:
        x = torch.randn(batch, 3, SIZE[net], SIZE[net], device=dev,
                        requires_grad=checkpoint)
        y = torch.ones(batch, dtype=torch.long, device=dev)
        step(model, x, y, loss_fn, checkpoint)
        torch.cuda.synchronize()
    except torch.OutOfMemoryError:
        ok = False
    x = y = None
    model.zero_grad(set_to_none=True)
    gc.collect()
    torch.cuda.empty_cache()
    return ok


def without_inplace(model):
    # torchvision's ReLUs work in place; checkpoint_sequential then finds a
    # saved tensor changed when it replays a segment (seen on the H100).
    for module in model.modules():
        if isinstance(module, nn.ReLU):
            module.inplace = False
    return model


def largest(net, batch_step, checkpoint):
    dev = torch.device('cuda')
    model = NETS[net]().to(dev).train()
    if checkpoint:
        without_inplace(model)
    lo, hi = 0, 64
    while fits_in_process(model, net, hi, checkpoint, dev):
        lo, hi = hi, hi * 2
    while hi - lo > batch_step:
        mid = (lo + hi) // 2
        if fits_in_process(model, net, mid, checkpoint, dev):
            lo = mid
        else:
            hi = mid
    print('largest=%d' % lo)


def main():
    mode, net, batch = sys.argv[1], sys.argv[2], int(sys.argv[3])
    torch.backends.cudnn.benchmark = True
    if mode == 'largest':
        largest(net, batch, sys.argv[4] == '1')
        return
    dev = torch.device('cuda')
    model = NETS[net]().to(dev).train()
    x = torch.randn(batch, 3, SIZE[net], SIZE[net], device=dev,
                    requires_grad=False)
    y = torch.ones(batch, dtype=torch.long, device=dev)
    loss_fn = nn.CrossEntropyLoss()
    if mode == 'fits':
        checkpoint = sys.argv[4] == '1'
        if checkpoint:
            without_inplace(model)
        x.requires_grad_(checkpoint)  # checkpointing needs a graph input
        try:
            step(model, x, y, loss_fn, checkpoint)
            torch.cuda.synchronize()
        except torch.OutOfMemoryError:
            sys.exit(3)
        return
    iters, tf32 = int(sys.argv[4]), sys.argv[5] == '1'
    torch.backends.cuda.matmul.allow_tf32 = tf32
    torch.backends.cudnn.allow_tf32 = tf32
    for _ in range(2):
        step(model, x, y, loss_fn, False)
    torch.cuda.synchronize()
    torch.cuda.reset_peak_memory_stats()
    times = []
    for _ in range(iters):
        start = time.perf_counter()
        step(model, x, y, loss_fn, False)
        torch.cuda.synchronize()
        times.append((time.perf_counter() - start) * 1000)
    print('ms_per_iter=%.2f min=%.2f peak_bytes=%d' %
          (statistics.median(times), min(times),
           torch.cuda.max_memory_allocated()))


if __name__ == '__main__':
    main()
