#!/usr/bin/env python3
"""Trains a net from Python, as Caffe's python/train.py does.

    python3 python/train.py --solver=examples/mnist/lenet_solver.prototxt
    python3 python/train.py --solver=... --snapshot=lenet_iter_500.solverstate
    python3 python/train.py --solver=... --timing     # per-layer times
    mpirun -np 4 python3 python/train.py --solver=... # data-parallel, CPU

--gpus 0 trains on that GPU; --gpus 0 1 ... starts one process per GPU,
as Caffe's script does, and they train one model, their gradients summed
by NCCL (caffe.NCCL); where there is no GPU --gpus is refused with a clear
error.  The script trains on the CPU when it is left out.  Several CPU
processes train data-parallel when mpirun starts them (each rank runs
this script; caffe.init_distributed joins them).

--timing logs, every `display` iterations, the milliseconds each layer's
forward and backward took in the last iteration and the whole iteration,
measured with the net's before/after forward/backward callbacks and the
solver's callbacks.
"""
import argparse
import multiprocessing
import sys

import caffe


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--solver', required=True,
                        help='Solver proto definition.')
    parser.add_argument('--snapshot',
                        help='Solver snapshot to restore before training.')
    parser.add_argument('--gpus', type=int, nargs='+', default=None,
                        help='GPU ids: one process per GPU, gradients '
                             'summed with NCCL (leave it out for the CPU).')
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


def solve_on_gpu(proto, snapshot, gpus, timing, uid, rank):
    """One process of a multi-GPU job (Caffe's train.py): rank `rank` on
    GPU gpus[rank], gradients summed with NCCL."""
    caffe.init_log(0, True)
    caffe.set_device(gpus[rank])
    caffe.set_mode_gpu()
    caffe.set_solver_count(len(gpus))
    caffe.set_solver_rank(rank)
    caffe.set_multiprocess(True)
    solver = caffe.get_solver(proto)
    if snapshot:
        solver.restore(snapshot)
    nccl = caffe.NCCL(solver, uid)
    nccl.bcast()
    if timing and rank == 0:
        time(solver)
    solver.add_callback(nccl)
    if solver.param.layer_wise_reduce:
        solver.net.after_backward(nccl)
    solver.step(solver.param.max_iter - solver.iter)


def train(solver, snapshot=None, gpus=None, timing=False):
    """What the command line does: solver is the solver file."""
    caffe.init_log(0, True)
    if gpus and len(gpus) > 1:
        return train_on_gpus(solver, snapshot, gpus, timing)
    if gpus:
        caffe.set_device(gpus[0])     # refused, with the reason, without a GPU
        caffe.set_mode_gpu()
    else:
        caffe.set_mode_cpu()
    caffe.init_distributed()
    return solve(solver, snapshot, timing)


def train_on_gpus(solver, snapshot, gpus, timing):
    """Caffe's multi-GPU training: a process per GPU, one NCCL job."""
    if len(set(gpus)) != len(gpus):
        raise SystemExit('--gpus: each GPU once (NCCL runs one rank per GPU)')
    if not caffe.has_nccl():
        raise SystemExit('--gpus: several GPUs need NCCL, which this '
                         'LeanCaffe build lacks')
    for gpu in gpus:
        caffe.set_device(gpu)         # refused, with the reason, without it
    uid = caffe.NCCL.new_uid()
    caffe.log('Using devices %s' % str(gpus))
    # Fresh interpreters: CUDA does not survive a fork.
    context = multiprocessing.get_context('spawn')
    procs = [context.Process(target=solve_on_gpu,
                             args=(solver, snapshot, gpus, timing, uid, rank))
             for rank in range(len(gpus))]
    for p in procs:
        p.start()
    for p in procs:
        p.join()
    failed = [rank for rank, p in enumerate(procs) if p.exitcode != 0]
    if failed:
        raise SystemExit('--gpus: rank(s) %s failed' % failed)


def main(argv=None):
    args = parse_args(argv)
    try:
        train(args.solver, args.snapshot, args.gpus, args.timing)
    except caffe.CaffeError as e:
        raise SystemExit('Error: %s' % e)


if __name__ == '__main__':
    sys.exit(main())
