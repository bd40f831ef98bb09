#!/usr/bin/python3
"""Share of a `caffe time` step spent in given layer types.

    bench/layer_shares.py NET.prototxt CAFFE_TIME.log [--share T1,T2,...]
    bench/layer_shares.py NET.prototxt CAFFE_TIME.log --by-direction

Reads the per-layer "forward: X ms." / "backward: X ms." lines of the log
(and "recompute: X ms.", a layer's reruns under recomputation)
and the layer types from the prototxt (the Split layers the net inserts
where a blob feeds several layers, BLOB_LAYER_I_split, count as "Split";
any other name the prototxt lacks is an error, exit status 1).  Without
options it prints the time per type; with --share, the percent of the
summed per-layer time those types take; with --by-direction, the time per
type and direction, then their sum and the log's "Average
Forward-Backward" (scripts/gpu_check.sh prints this for each GPU
profile).  A fused chain's time is reported on one of its members
(net.hpp), all of which are element-wise types, so the share of those
types is unaffected; a chain's fused forward counts under its first
member's type (BatchNorm for BatchNorm -> Scale -> ReLU).  Plain text
parsing, no protobuf module: it runs with any python3, here or on the GPU
machine.
"""
import argparse
import collections
import re
import sys


def layer_types(prototxt):
    text = open(prototxt).read()
    types = {}
    for block in re.finditer(r'layers?\s*\{', text):
        chunk = text[block.end():block.end() + 400]
        name = re.search(r'name:\s*"([^"]+)"', chunk)
        kind = re.search(r'type:\s*"([^"]+)"', chunk)
        if name and kind:
            types.setdefault(name.group(1), kind.group(1))
    return types


def main(argv):
    ap = argparse.ArgumentParser()
    ap.add_argument("prototxt")
    ap.add_argument("log")
    ap.add_argument("--share", default="")
    ap.add_argument("--by-direction", action="store_true")
    args = ap.parse_args(argv)
    types = layer_types(args.prototxt)
    per_direction = collections.Counter()
    unknown = set()
    log = open(args.log).read()
    for m in re.finditer(
            r'\]\s+(\S+)\s+(forward|backward|recompute): ([0-9.eE+-]+) ms',
            log):
        name, direction, ms = m.group(1), m.group(2), float(m.group(3))
        kind = types.get(name)
        if kind is None and re.match(r'.+_\d+_split$', name):
            kind = "Split"
        if kind is None:
            unknown.add(name)
            continue
        per_direction[(kind, direction)] += ms
    if unknown:
        sys.stderr.write("%s: layers not in %s: %s\n" %
                         (args.log, args.prototxt, " ".join(sorted(unknown))))
        return 1
    per_type = collections.Counter()
    for (kind, _), ms in per_direction.items():
        per_type[kind] += ms
    total = sum(per_type.values())
    if not per_type:
        sys.stderr.write("%s: no per-layer times\n" % args.log)
        print("n/a")
        return 1
    if args.share:
        wanted = args.share.split(",")
        print("%.0f%%" % (100.0 * sum(per_type[t] for t in wanted) / total))
        return 0
    if args.by_direction:
        for (kind, direction), ms in per_direction.most_common():
            print("%-20s %-8s %9.2f ms" % (kind, direction, ms))
        print("%-29s %9.2f ms" % ("sum of the layers", total))
        step = re.search(r'Average Forward-Backward: ([0-9.]+) ms', log)
        if step:
            print("%-29s %9.2f ms" % ("Average Forward-Backward",
                                      float(step.group(1))))
        return 0
    for kind, ms in per_type.most_common():
        print("%-16s %9.1f ms %5.1f%%" % (kind, ms, 100.0 * ms / total))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
