#!/usr/bin/python3
"""Cost-aware recompute { auto: BUDGET } against sharing alone and SQRT:
planned activations and time per iteration, measured side by side.

  budget_time.py [--net resnet50] [--batch 8] [--runs 5] [--iters 3]
                 [--fractions 0.34,0.40,0.48] [--caffe build/tools/caffe]

Steps, all on the training net of rc_nets.py (DummyData inputs, level 2):
  1. `caffe time -layer_costs` on the sharing-alone net writes the layer
     costs (one run, 3 iterations).
  2. `caffe mem` gives each variant's planned activations: sharing alone,
     SQRT, and BUDGET at each fraction of the sharing plan, with the
     measured costs (layer_costs) and, for the first fraction, without.
  3. `caffe time -iterations ITERS` runs every variant RUNS times,
     interleaved (variant after variant, round after round), so a change
     in machine load hits all of them alike.
Prints one line per variant: planned MiB, its share of sharing alone,
min and median ms per iteration over the rounds, and the median against
sharing alone's.  Run it on an otherwise idle machine.
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


def run(cmd):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       universal_newlines=True, cwd=ROOT)
    if p.returncode != 0:
        sys.exit("budget_time.py: %s failed:\n%s" % (" ".join(cmd),
                                                     p.stdout[-3000:]))
    return p.stdout


def planned_mib(caffe, model):
    out = run([caffe, "mem", "--model=" + model])
    m = re.search(r"with recomputation:\s+\d+\s+\([0-9.]+ MiB, activations "
                  r"([0-9.]+) MiB", out)
    if not m:
        m = re.search(r"planned, level 2:\s+\d+\s+\([0-9.]+ MiB, activations "
                      r"([0-9.]+) MiB", out)
    return float(m.group(1))


def iteration_ms(caffe, model, iters):
    out = run([caffe, "time", "--model=" + model, "--iterations=%d" % iters])
    return float(re.search(r"Average Forward-Backward: ([0-9.]+) ms",
                           out).group(1))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--net", default="resnet50")
    ap.add_argument("--batch", type=int, default=8)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--iters", type=int, default=3)
    ap.add_argument("--fractions", default="0.34,0.40,0.48")
    ap.add_argument("--caffe", default=os.path.join(ROOT, "build/tools/caffe"))
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="budget_time_")
    run(["/usr/bin/python3", os.path.join(HERE, "rc_nets.py"), "resnet",
         a.net, str(a.batch), tmp])
    base = os.path.join(tmp, a.net)
    sqrt_text = open(base + "_sqrt.prototxt").read()
    costs = os.path.join(tmp, "costs.txt")
    run([a.caffe, "time", "--model=" + base + "_mem.prototxt",
         "--iterations=3", "--layer_costs=" + costs])
    variants = [("sharing alone", base + "_mem.prototxt"),
                ("SQRT", base + "_sqrt.prototxt")]
    shared = planned_mib(a.caffe, variants[0][1])
    for k, f in enumerate(float(x) for x in a.fractions.split(",")):
        budget = round(shared * f, 2)
        for with_costs in ([True, False] if k == 0 else [True]):
            extra = ' layer_costs: "%s"' % costs if with_costs else ""
            path = "%s_budget%d%s.prototxt" % (base, int(f * 100),
                                               "c" if with_costs else "")
            with open(path, "w") as out:
                out.write(sqrt_text.replace(
                    "auto: SQRT",
                    "auto: BUDGET memory_budget_mb: %s%s" % (budget, extra)))
            variants.append(("BUDGET %.0f%%%s" % (f * 100, ", measured costs"
                                                  if with_costs else ""),
                             path))
    planned = {name: planned_mib(a.caffe, path) for name, path in variants}
    times = {name: [] for name, _ in variants}
    for r in range(a.runs):
        for name, path in variants:
            times[name].append(iteration_ms(a.caffe, path, a.iters))
        print("round %d done" % (r + 1), file=sys.stderr)
    ref = statistics.median(times["sharing alone"])
    print("%s batch %d, %d rounds x %d iterations, interleaved" %
          (a.net, a.batch, a.runs, a.iters))
    print("| variant | planned MiB | of sharing | min ms | median ms | "
          "median vs sharing |")
    print("|---|---:|---:|---:|---:|---:|")
    for name, _ in variants:
        t = times[name]
        print("| %s | %.2f | %.1f%% | %.1f | %.1f | %+.1f%% |" %
              (name, planned[name], 100 * planned[name] / shared, min(t),
               statistics.median(t), 100 * (statistics.median(t) / ref - 1)))


if __name__ == "__main__":
    main()
