#!/usr/bin/env python3
"""Trains a net from Python, as Caffe's python/train.py does.

    python3 python/train.py --solver=examples/mnist/lenet_solver.prototxt
    python3 python/train.py --solver=... --snapshot=lenet_iter_500.solverstate
    python3 python/train.py --solver=... --timing     # per-layer times
    mpirun -np 4 python3 python/train.py --solver=... # data-parallel, CPU

Caffe's script starts one process per GPU and sums gradients with NCCL.
Here --gpus 0 trains on that GPU; several GPUs in one process (NCCL) are
not in this build yet, and where there is no GPU --gpus is refused with
a clear error.  The script trains on the CPU when it is left out.
Several processes train data-parallel when mpirun starts them (each rank
runs this script; caffe.init_distributed joins them), which is what
--gpus 0,1,... does in Caffe.

--timing logs, every `display` iterations, the milliseconds each layer's
forward and backward took in the last iteration and the whole iteration,
measured with the net's before/after forward/backward callbacks and the
solver's callbacks.
"""
import argparse
import sys

import caffe


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--solver', required=True,
                        help='Solver proto definition.')
    parser.add_argument('--snapshot',
                        help='Solver snapshot to restore before training.')
    parser.add_argument('--gpus', type=int, nargs='+', default=None,
                        help='GPU ids (refused: this build is CPU only; '
                             'leave it out, or use mpirun for several '
                             'processes).')
    parser.add_argument('--timing', action='store_true',
                        help='Log per-layer forward and backward times.')
    return parser.parse_args(argv)


def time(solver):
    """Times every layer's forward and backward and each iteration with
    the net's and the solver's callbacks; logs them every `display`
    iterations."""
    net = solver.net
    names = list(net._layer_names)
    fprop = [caffe.Timer() for _ in names]
    bprop = [caffe.Timer() for _ in names]
    total = caffe.Timer()
    display = solver.param.display or 1

    def show_time():
        if solver.iter % display:
            return
        lines = ['']
        for i, name in enumerate(names):
            lines.append('forw %3d %8s : %.2f' % (i, name, fprop[i].ms))
        for i in reversed(range(len(names))):
            lines.append('back %3d %8s : %.2f' % (i, names[i], bprop[i].ms))
        lines.append('solver total: %.2f' % total.ms)
        caffe.log('\n'.join(lines))

    net.before_forward(lambda layer: fprop[layer].start())
    net.after_forward(lambda layer: fprop[layer].stop())
    net.before_backward(lambda layer: bprop[layer].start())
    net.after_backward(lambda layer: bprop[layer].stop())
    solver.add_callback(total.start, lambda: (total.stop(), show_time()))


def solve(proto, snapshot, timing):
    """Builds the solver, restores the snapshot if any, trains to
    max_iter; returns the solver."""
    solver = caffe.get_solver(proto)
    if snapshot:
        solver.restore(snapshot)
    if timing and caffe.solver_rank() == 0:
        time(solver)
    solver.step(solver.param.max_iter - solver.iter)
    return solver


def train(solver, snapshot=None, gpus=None, timing=False):
    """What the command line does: solver is the solver file."""
    if gpus:
        if len(gpus) > 1:
            raise SystemExit('--gpus: one GPU per process in this build '
                             '(several need NCCL, not built yet)')
        caffe.set_device(gpus[0])     # refused, with the reason, without a GPU
        caffe.set_mode_gpu()
    caffe.set_mode_cpu()
    caffe.init_log(0, True)
    caffe.init_distributed()
    return solve(solver, snapshot, timing)


def main(argv=None):
    args = parse_args(argv)
    train(args.solver, args.snapshot, args.gpus, args.timing)


if __name__ == '__main__':
    sys.exit(main())
