#!/usr/bin/python3
"""Share of a `caffe time` step spent in given layer types.

    bench/layer_shares.py NET.prototxt CAFFE_TIME.log [--share T1,T2,...]

Reads the per-layer "forward: X ms." / "backward: X ms." lines of the log
and the layer types from the prototxt (layers the net inserts itself, such
as splits, count as "Split").  Without --share it prints the time per type;
with it, the percent of the summed per-layer time those types take.  A
fused chain's time is reported on one of its members (net.hpp), all of
which are element-wise types, so the share of those types is unaffected.
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
    args = ap.parse_args(argv)
    types = layer_types(args.prototxt)
    per_type = collections.Counter()
    for m in re.finditer(r'\]\s+(\S+)\s+(forward|backward): ([0-9.eE+-]+) ms',
                         open(args.log).read()):
        per_type[types.get(m.group(1), "Split")] += float(m.group(3))
    total = sum(per_type.values())
    if total <= 0:
        print("n/a")
        return 1
    if args.share:
        wanted = args.share.split(",")
        print("%.0f%%" % (100.0 * sum(per_type[t] for t in wanted) / total))
        return 0
    for kind, ms in per_type.most_common():
        print("%-16s %9.1f ms %5.1f%%" % (kind, ms, 100.0 * ms / total))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
