#!/usr/bin/env python3
"""Sums a `caffe time` log's per-layer times by layer type.

  python3 bench/gpu/profile_by_type.py LOG PROTOTXT

LOG is the output of `caffe time` (per-layer lines "NAME\tforward: X ms."
and "NAME\tbackward: X ms."), PROTOTXT the net it timed, from which each
layer's type is read (the Split layers the net inserts where a blob
feeds several layers, BLOB_LAYER_I_split, count as Split; text only: no protobuf module, so it runs with any
python3, here or on the GPU machine).  A fused step's time is on its
first member's line and the others read 0 ("fused: in ...'s time"), so
a fused chain's forward counts under the type of its first layer (the
BatchNorm of BatchNorm -> Scale -> ReLU).  Prints one line per type and
direction, largest first, then the sum of the lines and the log's
"Average Forward-Backward".  Exit status 1 when the log names a layer the
net lacks or has no per-layer lines.
"""
import re
import sys


def layer_types(prototxt):
    """Layer name -> type, in the net's text."""
    types = {}
    text = open(prototxt).read()
    for block in re.finditer(r'\blayer\s*\{', text):
        body = text[block.end():]
        name = re.search(r'\bname:\s*"([^"]+)"', body)
        kind = re.search(r'\btype:\s*"([^"]+)"', body)
        if name and kind:
            types.setdefault(name.group(1), kind.group(1))
    return types


def main(argv):
    if len(argv) != 3:
        sys.stderr.write(__doc__)
        return 2
    log, prototxt = argv[1], argv[2]
    types = layer_types(prototxt)
    sums = {}
    step = None
    unknown = []
    line_re = re.compile(r'\]\s+(\S+)\t(forward|backward): ([0-9.eE+-]+) ms')
    for line in open(log):
        match = line_re.search(line)
        if match:
            name, direction, ms = match.groups()
            kind = types.get(name)
            if kind is None and re.match(r'.+_\d+_split$', name):
                kind = 'Split'  # inserted by the net where a blob forks
            if kind is None:
                unknown.append(name)
                continue
            key = (kind, direction)
            sums[key] = sums.get(key, 0.0) + float(ms)
        elif 'Average Forward-Backward:' in line:
            step = float(re.search(r'Backward: ([0-9.]+)', line).group(1))
    if unknown:
        sys.stderr.write('%s: layers not in %s: %s\n' %
                         (log, prototxt, ' '.join(sorted(set(unknown)))))
        return 1
    if not sums:
        sys.stderr.write('%s: no per-layer times\n' % log)
        return 1
    for (kind, direction), ms in sorted(sums.items(), key=lambda kv: -kv[1]):
        print('%-20s %-8s %9.2f ms' % (kind, direction, ms))
    print('%-29s %9.2f ms' % ('sum of the layers', sum(sums.values())))
    if step is not None:
        print('%-29s %9.2f ms' % ('Average Forward-Backward', step))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
