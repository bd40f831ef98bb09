#!/usr/bin/python3
"""PyTorch DistributedDataParallel reference for bench/distributed.

Trains the same architecture as LeanCaffe's models/<net> on random batches:
`--ranks` processes on this machine, each with `--threads` threads, DDP over
gloo with 25 MiB buckets (DDP's default and LeanCaffe's), one SGD step per
iteration.  After `--warmup` iterations it times `--iters` iterations and
prints, from rank 0, one machine-readable line:

    RESULT net=lenet batch=64 ranks=2 threads=1 images_per_s=1234.5

`--ranks 1` runs the model without DDP (plain single-process training).
Uses Debian's python3-torch; gloo is built into it.
"""
import argparse
import os
import sys
import time


def build(name):
    import torch.nn as nn
    if name == 'lenet':
        return nn.Sequential(
            nn.Conv2d(1, 20, 5), nn.MaxPool2d(2, 2, ceil_mode=True),
            nn.Conv2d(20, 50, 5), nn.MaxPool2d(2, 2, ceil_mode=True),
            nn.Flatten(), nn.Linear(800, 500), nn.ReLU(), nn.Linear(500, 10))
    if name == 'cifar10_quick':
        return nn.Sequential(
            nn.Conv2d(3, 32, 5, padding=2), nn.MaxPool2d(3, 2, ceil_mode=True),
            nn.ReLU(), nn.Conv2d(32, 32, 5, padding=2), nn.ReLU(),
            nn.AvgPool2d(3, 2, ceil_mode=True),
            nn.Conv2d(32, 64, 5, padding=2), nn.ReLU(),
            nn.AvgPool2d(3, 2, ceil_mode=True), nn.Flatten(),
            nn.Linear(1024, 64), nn.Linear(64, 10))
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..'))
    import torch_step
    return torch_step.NETS[name][0]()


INPUT = {'lenet': (1, 28, 28, 10), 'cifar10_quick': (3, 32, 32, 10),
         'resnet50': (3, 224, 224, 1000)}


def worker(rank, args):
    import torch
    import torch.distributed as dist
    torch.set_num_threads(args.threads)
    torch.manual_seed(rank)
    model = build(args.net)
    if args.ranks > 1:
        dist.init_process_group('gloo', init_method='tcp://127.0.0.1:%d' %
                                args.port, rank=rank, world_size=args.ranks)
        model = torch.nn.parallel.DistributedDataParallel(
            model, bucket_cap_mb=25)
    c, h, w, classes = INPUT[args.net]
    x = torch.randn(args.batch, c, h, w)
    y = torch.randint(0, classes, (args.batch,))
    opt = torch.optim.SGD(model.parameters(), lr=0.001, momentum=0.9)
    loss_fn = torch.nn.CrossEntropyLoss()

    def step():
        opt.zero_grad()
        loss_fn(model(x), y).backward()
        opt.step()

    for _ in range(args.warmup):
        step()
    if args.ranks > 1:
        dist.barrier()
    start = time.perf_counter()
    for _ in range(args.iters):
        step()
    if args.ranks > 1:
        dist.barrier()
    seconds = time.perf_counter() - start
    if rank == 0:
        print('RESULT net=%s batch=%d ranks=%d threads=%d images_per_s=%.3f'
              % (args.net, args.batch, args.ranks, args.threads,
                 args.iters * args.batch * args.ranks / seconds), flush=True)
    if args.ranks > 1:
        dist.destroy_process_group()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--net', required=True, choices=sorted(INPUT))
    ap.add_argument('--batch', type=int, required=True)
    ap.add_argument('--ranks', type=int, default=1)
    ap.add_argument('--threads', type=int, default=1)
    ap.add_argument('--iters', type=int, default=10)
    ap.add_argument('--warmup', type=int, default=2)
    ap.add_argument('--port', type=int, default=29511)
    args = ap.parse_args()
    os.environ['OMP_NUM_THREADS'] = str(args.threads)
    if args.ranks == 1:
        worker(0, args)
    else:
        import torch.multiprocessing as mp
        mp.spawn(worker, args=(args,), nprocs=args.ranks, join=True)


if __name__ == '__main__':
    main()
