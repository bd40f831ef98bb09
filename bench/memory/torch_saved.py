#!/usr/bin/python3
"""PyTorch's side of the peak breakdown (`caffe mem`, "At the peak"): the
bytes one training step of bench/torch_step.py's nets keeps for backward,
per image.

  torch_saved.py --net resnet50 --batch 4

Runs one forward pass with torch.autograd.graph.saved_tensors_hooks
counting every tensor autograd saves for backward, each storage once
(views of one storage share it), then backward, and prints
  SAVED net=N batch=B saved_bytes=S saved_per_image=S/B tensors=K
        param_grad_bytes=G
saved_bytes is what PyTorch holds between forward and backward (its
"forward values kept for backward" and layers' kept memory together),
without the input image and the weights autograd also saves (parameters:
LeanCaffe counts them outside the activation plan, as it does the
parameters' gradients, param_grad_bytes).  Memory accounting only: no timing.
"""
import argparse
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(
    __file__))))
import torch_step  # noqa: E402  (bench/torch_step.py)


def _storage_ptr(t):
    s = t.untyped_storage() if hasattr(t, 'untyped_storage') else t.storage()
    return s.data_ptr()


def saved_bytes(model, x, y):
    """Bytes (unique storages) and count of the tensors autograd saves in
    one forward pass of model on x, y."""
    storages = {}
    # Autograd saves weights too (for the input gradient): parameters, not
    # activations, which LeanCaffe keeps outside the plan as well.
    params = set(_storage_ptr(p) for p in model.parameters())

    def pack(t):
        s = t.untyped_storage() if hasattr(t, 'untyped_storage') \
            else t.storage()
        if s.data_ptr() not in params:
            storages[s.data_ptr()] = s.nbytes()
        return t

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        loss = torch.nn.functional.cross_entropy(model(x), y)
    # The input itself is not LeanCaffe's to keep (its data layer owns it).
    storages.pop(_storage_ptr(x), None)
    loss.backward()
    return sum(storages.values()), len(storages)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    p.add_argument('--net', default='resnet50',
                   choices=sorted(torch_step.NETS))
    p.add_argument('--batch', type=int, default=4)
    args = p.parse_args(argv)
    torch.manual_seed(0)
    build, size = torch_step.NETS[args.net]
    model = build()
    model.train()
    x = torch.randn(args.batch, 3, size, size)
    y = torch.zeros(args.batch, dtype=torch.long)
    saved, count = saved_bytes(model, x, y)
    grads = sum(p.numel() * p.element_size() for p in model.parameters())
    print('SAVED net=%s batch=%d saved_bytes=%d saved_per_image=%d '
          'tensors=%d param_grad_bytes=%d' % (
              args.net, args.batch, saved, saved // args.batch, count, grads))


if __name__ == '__main__':
    main()
