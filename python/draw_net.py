#!/usr/bin/env python3
"""Draw a net's graph (Caffe 1.0's python/draw_net.py):

  draw_net.py NET.prototxt OUT.png [--rankdir LR] [--phase TRAIN|TEST|ALL]

The image format follows OUT's extension (.png, .svg, .pdf, ...; .raw
writes the Graphviz dot source). --phase keeps only the layers of that
phase's net; ALL (the default) draws every layer.
"""
from argparse import ArgumentDefaultsHelpFormatter, ArgumentParser

from google.protobuf import text_format

import caffe
import caffe.draw
from caffe.proto import caffe_pb2


def parse_args(argv=None):
    parser = ArgumentParser(description=__doc__,
                            formatter_class=ArgumentDefaultsHelpFormatter)
    parser.add_argument('input_net_proto_file',
                        help='Input network prototxt file')
    parser.add_argument('output_image_file', help='Output image file')
    parser.add_argument('--rankdir', default='LR',
                        help='Graph direction: LR (left-right, horizontal), '
                             'TB (top-bottom, vertical), RL, BT; see '
                             'http://www.graphviz.org/doc/info/'
                             'attrs.html#k:rankdir')
    parser.add_argument('--phase', default='ALL',
                        help='Phase whose layers to draw: TRAIN, TEST, or '
                             'ALL for every layer whatever its phase.')
    parser.add_argument('--display_lrm', action='store_true',
                        help='Show the learning rate multipliers of '
                             'Convolution, Deconvolution and InnerProduct '
                             'layers.')
    return parser.parse_args(argv)


def main(argv=None):
    args = parse_args(argv)
    phases = {'TRAIN': caffe.TRAIN, 'TEST': caffe.TEST, 'ALL': None}
    if args.phase not in phases:
        raise ValueError('Unknown phase: ' + args.phase)
    net = caffe_pb2.NetParameter()
    with open(args.input_net_proto_file) as f:
        text_format.Merge(f.read(), net)
    print('Drawing net to %s' % args.output_image_file)
    caffe.draw.draw_net_to_file(net, args.output_image_file, args.rankdir,
                                phases[args.phase], args.display_lrm)


if __name__ == '__main__':
    main()
