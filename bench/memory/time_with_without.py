#!/usr/bin/python3
"""Time per iteration with mem_param against without, interleaved.

  time_with_without.py [--nets lenet,cifar10_quick,...] [--batch 8]
                       [--runs 5] [--iters 3] [--phases TRAIN,TEST]

Each net is models/<net>/train_val.prototxt with DummyData inputs at
--batch, in two copies built by mem_bench.py: without mem_param and with
`mem_param { level: 2 release: STATIC }`.  Every round runs
`caffe time -phase P -iterations N` on both copies back to back, for
every net and phase, so that a change in machine load hits both alike;
the copy that runs first alternates from round to round, so that
whatever favours one position in a pair (caches, clock) favours each
copy equally often.
TRAIN compares "Average Forward-Backward"; TEST compares "Average Forward
pass" (a TEST net planned by mem_param runs forward only, the copy
without it also runs backward, which is not counted).

Prints a markdown table: min and median ms over the rounds per copy, the
ratio of the medians (target: within 2%), the median with the lowest
and highest of the per-round ratios (each round's pair ran side by side,
so its ratio sees less of the drift between rounds), and the median of
every timed iteration of every round per copy (an iteration slowed by
something else on the machine moves a run's average, not this median).
Run it on an otherwise idle machine.
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "python"))
sys.path.insert(0, HERE)
# pycaffe's set-up logs (caffe_pb2 loads it) would run long.
os.environ.setdefault("GLOG_minloglevel", "2")

import mem_bench  # noqa: E402


def time_ms(caffe, model, phase, iters):
    p = subprocess.run([caffe, "time", "--model=" + model, "--phase=" + phase,
                        "--iterations=%d" % iters],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       universal_newlines=True, cwd=ROOT,
                       env=dict(os.environ, GLOG_minloglevel="0"))
    if p.returncode != 0:
        sys.exit("time_with_without.py: caffe time failed on %s:\n%s" %
                 (model, p.stdout[-3000:]))
    key = ("Average Forward-Backward" if phase == "TRAIN"
           else "Average Forward pass")
    average = float(re.search(key + r": ([0-9.]+) ms", p.stdout).group(1))
    # Each iteration's figure: forward-backward in TRAIN; in TEST the
    # forward alone, which a net that also runs backward logs on a line of
    # its own ("forward time"), and a forward-only net as its whole step.
    step = re.findall(r"Iteration: \d+ forward-backward time: ([0-9.]+) ms",
                      p.stdout)
    forward = re.findall(r"Iteration: \d+ forward time: ([0-9.]+) ms",
                         p.stdout)
    each = step if phase == "TRAIN" or not forward else forward
    if len(each) != iters:
        sys.exit("time_with_without.py: %d iteration lines from %s, "
                 "expected %d" % (len(each), model, iters))
    return average, [float(x) for x in each]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--nets", default="lenet,cifar10_quick,caffenet,"
                    "googlenet,vgg16,resnet50")
    ap.add_argument("--batch", type=int, default=8)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--iters", type=int, default=3)
    ap.add_argument("--phases", default="TRAIN,TEST")
    ap.add_argument("--caffe", default=os.path.join(ROOT, "build/tools/caffe"))
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="time_with_without_")
    cases = []
    for net in a.nets.split(","):
        mem_bench.make_nets(net, a.batch, tmp)
        for phase in a.phases.split(","):
            cases.append((net, phase))
    times = {(c, v): [] for c in cases for v in ("plain", "mem")}
    steps = {(c, v): [] for c in cases for v in ("plain", "mem")}
    for r in range(a.runs):
        order = ("plain", "mem") if r % 2 == 0 else ("mem", "plain")
        for net, phase in cases:
            for v in order:
                model = os.path.join(tmp, "%s_%s.prototxt" % (net, v))
                average, each = time_ms(a.caffe, model, phase, a.iters)
                times[((net, phase), v)].append(average)
                steps[((net, phase), v)].extend(each)
        print("round %d of %d done" % (r + 1, a.runs), file=sys.stderr)
    print("batch %d, %d rounds x %d iterations, interleaved" %
          (a.batch, a.runs, a.iters))
    print("| net | phase | without: min / median ms | with: min / median ms"
          " | median with / without | per round: median (lowest-highest)"
          " | each iteration: median ms without / with (ratio) |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for c in cases:
        w, m = times[(c, "plain")], times[(c, "mem")]
        paired = [x / y for x, y in zip(m, w)]
        sw = statistics.median(steps[(c, "plain")])
        sm = statistics.median(steps[(c, "mem")])
        print("| %s | %s | %.1f / %.1f | %.1f / %.1f | %.3f | %.3f "
              "(%.3f-%.3f) | %.1f / %.1f (%.3f) |" %
              (c[0], c[1], min(w), statistics.median(w), min(m),
               statistics.median(m), statistics.median(m) /
               statistics.median(w), statistics.median(paired),
               min(paired), max(paired), sw, sm, sm / sw))


if __name__ == "__main__":
    main()
