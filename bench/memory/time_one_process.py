#!/usr/bin/python3
"""Time per iteration with mem_param against without, in one process.

  time_one_process.py [--nets lenet,cifar10_quick,...] [--batch 8]
                      [--iters 24] [--min-ms 3000] [--phases TRAIN,TEST]

time_with_without.py times each copy in a process of its own.  On a
shared virtual machine a process as a whole can run several percent
faster or slower than the next one (where its pages and threads land),
which is more than the 2% this comparison looks for.  This script
builds the copies of a net (mem_bench.py: without mem_param, and with
`mem_param { level: 2 release: STATIC }`) in one pycaffe process and
interleaves their iterations, so that they see the same process, the
same threads and the same drift of the machine.

One iteration is forward then backward in TRAIN and forward alone in
TEST, for every copy (in TEST a planned net runs forward only, and here
the copy without mem_param does too).

A third copy, the net without mem_param built once more, is the
control: how far two identical nets in one process differ is the noise
this machine puts on any such ratio (where each net's memory landed,
its neighbours on the host).  A planned/plain ratio inside the
control's spread is no measurable difference.  Each round runs one
iteration of every copy, in every order in turn (the six permutations
of three), so no copy keeps a position.  The table shows min and median
ms per copy, and the median and range over the rounds of each round's
ratios planned / plain and control / plain (target for planned / plain:
within 2%).

Two threads on a shared 2-core virtual machine put several percent of
noise on each iteration; `OMP_NUM_THREADS=1` runs every copy on one
thread, where the noise is smaller.  Run it on an otherwise idle
machine.
"""
import argparse
import itertools
import os
import statistics
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
# Appended: a PYTHONPATH given (a sanitizer build's package) wins.
sys.path.append(os.path.join(ROOT, "python"))
sys.path.insert(0, HERE)
os.environ.setdefault("GLOG_minloglevel", "2")

import caffe  # noqa: E402
import mem_bench  # noqa: E402


def step_ms(net, backward):
    start = time.perf_counter()
    net.forward()
    if backward:
        net.backward()
    return (time.perf_counter() - start) * 1e3


def compare(nets, backward, iters, min_ms):
    # One untimed iteration each: first-touch page faults and one-time
    # set-up (oneDNN primitives, weight layouts) are not what is compared.
    # A fast net runs more rounds, so that each copy is timed for about
    # min_ms in all: single iterations of a few ms are noisy.
    first = max(step_ms(net, backward) for net in nets.values())
    iters = max(iters, min(1000, int(min_ms / max(first, 1e-3))))
    orders = list(itertools.permutations(sorted(nets)))
    times = {k: [] for k in nets}
    for i in range(iters):
        for k in orders[i % len(orders)]:
            times[k].append(step_ms(nets[k], backward))
    return times


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--nets", default="lenet,cifar10_quick,caffenet,"
                    "googlenet,vgg16,resnet50")
    ap.add_argument("--batch", type=int, default=8)
    ap.add_argument("--iters", type=int, default=24)
    ap.add_argument("--min-ms", type=float, default=3000,
                    help="run more rounds until each copy is timed this long")
    ap.add_argument("--phases", default="TRAIN,TEST")
    a = ap.parse_args()
    caffe.set_mode_cpu()
    tmp = tempfile.mkdtemp(prefix="time_one_process_")
    print("batch %d, at least %d iterations per copy, %s threads, in one "
          "process" %
          (a.batch, a.iters, os.environ.get("OMP_NUM_THREADS", "all")))
    print("| net | phase | without: min / median ms | with: min / median ms"
          " | with / without: median (range) | control / without: median"
          " (range) |")
    print("|---|---|---:|---:|---:|---:|")
    for name in a.nets.split(","):
        mem_bench.make_nets(name, a.batch, tmp)
        for phase in a.phases.split(","):
            ph = caffe.TRAIN if phase == "TRAIN" else caffe.TEST
            plain = os.path.join(tmp, name + "_plain.prototxt")
            nets = {"plain": caffe.Net(plain, ph),
                    "mem": caffe.Net(os.path.join(tmp, name + "_mem.prototxt"),
                                     ph),
                    "control": caffe.Net(plain, ph)}
            t = compare(nets, phase == "TRAIN", a.iters, a.min_ms)
            mem = [x / y for x, y in zip(t["mem"], t["plain"])]
            ctl = [x / y for x, y in zip(t["control"], t["plain"])]
            print("| %s | %s | %.1f / %.1f | %.1f / %.1f | %.3f (%.3f-%.3f) "
                  "| %.3f (%.3f-%.3f) |" %
                  (name, phase, min(t["plain"]), statistics.median(t["plain"]),
                   min(t["mem"]), statistics.median(t["mem"]),
                   statistics.median(mem), min(mem), max(mem),
                   statistics.median(ctl), min(ctl), max(ctl)))
            sys.stdout.flush()
            del nets


if __name__ == "__main__":
    main()
