#!/usr/bin/env python3
"""Summarizes a net's structure as one table row per layer (Caffe's
tools/extra/summarize.py serves the same purpose; this table is
LeanCaffe's own).

  summarize.py net.prototxt [--phase TRAIN|TEST]

Columns: ID, name, type, the layer's main settings (outputs, kernel /
stride / pad, dilation, group; pooling method; dropout ratio; ...), the
bottoms and the tops; an in-place layer's top reads "(in place)".  Layers
a phase leaves out are skipped when --phase is given (Caffe's rules:
include/exclude by phase; levels and stages are not applied).  Reads the
prototxt only: no data, no weights.
"""
import argparse
import os
import sys

from google.protobuf import text_format

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                '..', '..', 'python'))
from caffe.proto import caffe_pb2  # noqa: E402


def _first(values, default):
    return values[0] if len(values) else default


def _spatial(kernel, stride, pad):
    return '%sx%s s%s p%s' % (kernel, kernel, stride, pad)


def settings(layer):
    """The short description of a layer's parameters."""
    kind = layer.type
    if kind in ('Convolution', 'Deconvolution'):
        p = layer.convolution_param
        text = '%d %s' % (p.num_output, _spatial(
            _first(p.kernel_size, p.kernel_h or 1), _first(p.stride, 1),
            _first(p.pad, 0)))
        if len(p.dilation) and p.dilation[0] != 1:
            text += ' d%d' % p.dilation[0]
        if p.group != 1:
            text += ' g%d' % p.group
        return text
    if kind == 'InnerProduct':
        return str(layer.inner_product_param.num_output)
    if kind == 'Pooling':
        p = layer.pooling_param
        method = caffe_pb2.PoolingParameter.PoolMethod.Name(p.pool)
        if p.global_pooling:
            return method + ' global'
        return '%s %s' % (method, _spatial(p.kernel_size or p.kernel_h,
                                            p.stride, p.pad))
    if kind == 'Dropout':
        return 'ratio %g' % layer.dropout_param.dropout_ratio
    if kind == 'LRN':
        p = layer.lrn_param
        return 'size %d alpha %g beta %g' % (p.local_size, p.alpha, p.beta)
    if kind == 'Eltwise':
        return caffe_pb2.EltwiseParameter.EltwiseOp.Name(
            layer.eltwise_param.operation)
    if kind == 'Concat':
        return 'axis %d' % layer.concat_param.axis
    if kind in ('Data', 'ImageData', 'HDF5Data', 'MemoryData', 'WindowData'):
        for field in ('data_param', 'image_data_param', 'hdf5_data_param',
                      'memory_data_param', 'window_data_param'):
            if layer.HasField(field):
                return 'batch %d' % getattr(layer, field).batch_size
    if kind == 'Input':
        return ' '.join('x'.join(str(d) for d in s.dim)
                        for s in layer.input_param.shape)
    return ''


def in_phase(layer, phase):
    if phase is None:
        return True
    if len(layer.include):
        return any(not r.HasField('phase') or r.phase == phase
                   for r in layer.include)
    return not any(r.HasField('phase') and r.phase == phase
                   for r in layer.exclude)


def summarize(net, phase=None):
    """The table as a list of rows (lists of strings), header first."""
    rows = [['ID', 'name', 'type', 'settings', 'bottoms', 'tops']]
    layers = net.layer
    for i, layer in enumerate(l for l in layers if in_phase(l, phase)):
        in_place = (len(layer.top) == 1 and len(layer.bottom) == 1 and
                    layer.top[0] == layer.bottom[0])
        rows.append([str(i), layer.name, layer.type, settings(layer),
                     ','.join(layer.bottom),
                     '(in place)' if in_place else ','.join(layer.top)])
    return rows


def format_table(rows):
    widths = [max(len(r[c]) for r in rows) for c in range(len(rows[0]))]
    return '\n'.join('  '.join(cell.ljust(w) for cell, w in
                               zip(row, widths)).rstrip() for row in rows)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('filename', help='net prototxt')
    parser.add_argument('--phase', choices=['TRAIN', 'TEST'],
                        help='only the layers of this phase')
    args = parser.parse_args(argv)
    net = caffe_pb2.NetParameter()
    with open(args.filename) as f:
        try:
            text_format.Merge(f.read(), net)
        except text_format.ParseError as e:
            raise SystemExit('%s: %s' % (args.filename, e))
    phase = None if args.phase is None else caffe_pb2.Phase.Value(args.phase)
    print(format_table(summarize(net, phase)))


if __name__ == '__main__':
    main()
