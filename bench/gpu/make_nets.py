#!/usr/bin/env python3
"""Writes the GPU benchmark's training nets: models/<net>/deploy.prototxt
with its Input layer replaced by DummyData images and labels of a given
batch, and its final Softmax by SoftmaxWithLoss.  Text only (no protobuf
module), so it runs with any python3, here or on the GPU machine.

  python3 bench/gpu/make_nets.py OUT_DIR NET:BATCH[:VARIANT] ...

VARIANT: plain (default), mem (mem_param level 2), sqrt (mem_param with
SQRT recomputation), sqrt2 (SQRT with `levels: 2`: recomputed segments
cut again, docs/memory.md), cheap (mem_param rerunning only the cheap
layers, recompute { auto: CHEAP }), cheap128 (CHEAP that also reruns
the 1x1 convolutions over at most 128 input channels,
cheap_multiply_adds: 128), or wide / memwide (plain / mem with
1 GiB of convolution workspace instead of 64 MiB).  Writes
OUT_DIR/<net>_b<batch>_<variant>.prototxt.
"""
import os
import re
import sys

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

MEM = {
    'plain': '',
    'mem': 'mem_param { optimize_train: true level: 2 }\n',
    'sqrt': 'mem_param { optimize_train: true level: 2 '
            'recompute { auto: SQRT } }\n',
    'sqrt2': 'mem_param { optimize_train: true level: 2 '
             'recompute { auto: SQRT levels: 2 } }\n',
    'cheap': 'mem_param { optimize_train: true level: 2 '
             'recompute { auto: CHEAP } }\n',
    'cheap128': 'mem_param { optimize_train: true level: 2 '
                'recompute { auto: CHEAP cheap_multiply_adds: 128 } }\n',
    'wide': 'mem_param { optimize_train: false workspace_limit_mb: 1024 }\n',
    'memwide': 'mem_param { optimize_train: true level: 2 '
               'workspace_limit_mb: 1024 }\n',
}


def training_net(net, batch, variant):
    with open(os.path.join(REPO, 'models', net, 'deploy.prototxt')) as f:
        text = f.read()
    match = re.search(r'layer \{\s*name: "(\w+)"\s*type: "Input".*?\n\}\n',
                      text, re.S)
    if not match:
        raise SystemExit('%s: no Input layer at the top' % net)
    dims = [int(d) for d in re.findall(r'dim: (\d+)', match.group(0))]
    data = ('layer {\n  name: "%s"\n  type: "DummyData"\n  top: "%s"\n'
            '  top: "label"\n  dummy_data_param {\n'
            '    shape { dim: %d dim: %d dim: %d dim: %d }\n'
            '    shape { dim: %d }\n'
            '    data_filler { type: "constant" value: 0.5 }\n'
            '    data_filler { type: "constant" value: 1 }\n  }\n}\n'
            % (match.group(1), match.group(1), batch, dims[1], dims[2],
               dims[3], batch))
    text = text[:match.start()] + data + text[match.end():]
    last = text.rstrip().rfind('layer {')
    tail = text[last:]
    if 'type: "Softmax"' not in tail:
        raise SystemExit('%s: the deploy net does not end in Softmax' % net)
    tail = tail.replace('type: "Softmax"', 'type: "SoftmaxWithLoss"')
    tail = re.sub(r'(  bottom: "[^"]+"\n)', r'\1  bottom: "label"\n', tail,
                  count=1)
    tail = tail.replace('top: "prob"', 'top: "loss"')
    return MEM[variant] + text[:last] + tail


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for spec in sys.argv[2:]:
        parts = spec.split(':')
        net, batch = parts[0], int(parts[1])
        variant = parts[2] if len(parts) > 2 else 'plain'
        if variant not in MEM:
            raise SystemExit("make_nets.py: unknown variant '%s' in %s "
                             "(one of: %s)" % (variant, spec,
                                               ', '.join(MEM)))
        path = os.path.join(out, '%s_b%d_%s.prototxt' % (net, batch, variant))
        with open(path, 'w') as f:
            f.write(training_net(net, batch, variant))
        print(path)


if __name__ == '__main__':
    main()
