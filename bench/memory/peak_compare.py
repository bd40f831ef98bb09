#!/usr/bin/python3
"""Bytes per image live at a training step's peak: LeanCaffe's plan (the
"At the peak" breakdown of `caffe mem`) next to what PyTorch keeps for
backward (torch_saved.py), for the same architecture and batch.

  PYTHONPATH=python /usr/bin/python3 bench/memory/peak_compare.py \\
      [--nets resnet50 googlenet vgg16] [--batch 4]

The LeanCaffe net is models/<net>/deploy.prototxt turned into a training
net (DummyData images and labels, SoftmaxWithLoss instead of Softmax),
planned at level 2 without recomputation.  Prints one block per net, in
MiB per image.  Memory accounting only: no timing, so it may run beside
other work.
"""
import argparse
import os
import sys

from google.protobuf import text_format

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, 'python'))
sys.path.insert(0, HERE)

import caffe  # noqa: E402
from caffe.proto import caffe_pb2  # noqa: E402

MIB = 1048576.0


def training_net(net, batch):
    """models/<net>/deploy.prototxt as a training net of `batch` images."""
    param = caffe_pb2.NetParameter()
    with open(os.path.join(REPO, 'models', net, 'deploy.prototxt')) as f:
        text_format.Merge(f.read(), param)
    param.ClearField('mem_param')
    data = param.layer[0]
    shape = list(data.input_param.shape[0].dim)
    data.type = 'DummyData'
    data.ClearField('input_param')
    data.top.append('label')
    dp = data.dummy_data_param
    dp.shape.add().dim.extend([batch] + shape[1:])
    dp.shape.add().dim.extend([batch])
    dp.data_filler.add().type = 'gaussian'
    dp.data_filler.add().type = 'constant'
    last = param.layer[-1]
    if last.type != 'Softmax':
        raise SystemExit('%s: the deploy net does not end in Softmax' % net)
    last.type = 'SoftmaxWithLoss'
    last.bottom.append('label')
    last.top[0] = 'loss'
    return param


def torch_bytes(net, batch):
    """What PyTorch saves for backward in one training step of `net`."""
    import torch
    import torch_saved
    torch.manual_seed(0)
    build, size = torch_saved.torch_step.NETS[net]
    model = build()
    model.train()
    x = torch.randn(batch, 3, size, size)
    y = torch.zeros(batch, dtype=torch.long)
    saved, _ = torch_saved.saved_bytes(model, x, y)
    return saved


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    p.add_argument('--nets', nargs='+',
                   default=['resnet50', 'googlenet', 'vgg16'])
    p.add_argument('--batch', type=int, default=4)
    p.add_argument('--no-torch', action='store_true',
                   help="LeanCaffe's side only (where PyTorch is not "
                   'installed)')
    args = p.parse_args(argv)
    caffe.init_log(2)
    for net in args.nets:
        report = caffe.mem_report(training_net(net, args.batch), caffe.TRAIN,
                                  2)
        shares = report['peak_breakdown']
        peak = sum(s['bytes'] for s in shares)
        saved = None
        if not args.no_torch:
            saved = torch_bytes(net, args.batch)
        print('%s, batch %d, MiB per image' % (net, args.batch))
        print('  LeanCaffe at its peak (%s): %.2f' % (
            report['text'].split('At the peak (')[1].split(')')[0],
            peak / MIB / args.batch))
        for s in shares:
            if s['buffers']:
                print('    %-38s %8.2f' % (s['kind'],
                                           s['bytes'] / MIB / args.batch))
            if s['kind'].startswith("layers' kept"):
                for t in report['peak_kept_by_type']:
                    print('      %-36s %8.2f' % (
                        t['type'], t['bytes'] / MIB / args.batch))
        if saved is not None:
            print('  PyTorch, saved for backward: %.2f' % (
                saved / MIB / args.batch))


if __name__ == '__main__':
    main()
