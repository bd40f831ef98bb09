#!/usr/bin/env python3
"""Scores image windows with a Caffe model, R-CNN style (Caffe's
python/detect.py).

  detect.py INPUT OUTPUT [--model_def ...] [--pretrained_model ...]
      [--crop_mode list|selective_search] [--mean_file M.npy]
      [--input_scale S] [--raw_scale 255] [--channel_swap 2,1,0]
      [--context_pad 16] [--gpu]

INPUT is either a .txt list of image files (windows proposed by selective
search) or, with --crop_mode list, a .csv whose header names the columns
filename, ymin, xmin, ymax, xmax (any order; one row per window).

OUTPUT.csv gets one row per window: filename, ymin, xmin, ymax, xmax and
class0 ... classN-1, the net's first output.  OUTPUT.h5 gets the same as
HDF5 datasets: filename (strings), window (W x 4: ymin, xmin, ymax, xmax)
and prediction (W x N).  Caffe wrote a pandas DataFrame there; this build
has no pandas, so the layout is plain datasets that h5py, MATLAB and
pandas (read each dataset) all read.

Selective search needs the selective_search_ijcv_with_python package
(MATLAB based, not in Debian): without it the mode stops with a clear
error.  The defaults name Caffe's R-CNN reference model, whose weights
are not shipped: pass --model_def and --pretrained_model.
"""
import argparse
import csv
import os
import sys
import time

import numpy as np

import caffe

CROP_MODES = ['list', 'selective_search']
COORD_COLS = ['ymin', 'xmin', 'ymax', 'xmax']


def build_parser(pycaffe_dir):
    models = os.path.join(pycaffe_dir, '..', 'models')
    p = argparse.ArgumentParser(description='Score image windows with a '
                                            'Caffe model (R-CNN style).')
    p.add_argument('input_file',
                   help='Input .txt (image files) or .csv (filename, ymin, '
                        'xmin, ymax, xmax per window).')
    p.add_argument('output_file',
                   help='Output .csv or .h5; the extension picks the '
                        'format.')
    p.add_argument('--model_def', default=os.path.join(
        models, 'bvlc_reference_rcnn_ilsvrc13', 'deploy.prototxt'),
        help='Model definition (deploy prototxt).')
    p.add_argument('--pretrained_model', default=os.path.join(
        models, 'bvlc_reference_rcnn_ilsvrc13',
        'bvlc_reference_rcnn_ilsvrc13.caffemodel'),
        help='Trained weights (.caffemodel).')
    p.add_argument('--crop_mode', default='selective_search',
                   choices=CROP_MODES,
                   help='How windows are found: listed in the .csv input, '
                        'or proposed by selective search.')
    p.add_argument('--gpu', action='store_true',
                   help='Run on the GPU (refused: this build is CPU only).')
    p.add_argument('--mean_file', default=os.path.join(
        pycaffe_dir, 'caffe', 'imagenet', 'ilsvrc_2012_mean.npy'),
        help='Mean .npy (C x H x W, reduced to channel means) or empty '
             'for none.')
    p.add_argument('--input_scale', type=float,
                   help='Multiply the input by this after mean '
                        'subtraction.')
    p.add_argument('--raw_scale', type=float, default=255.0,
                   help='Multiply the [0, 1] image by this before mean '
                        'subtraction.')
    p.add_argument('--channel_swap', default='2,1,0',
                   help='Channel order the net expects (RGB -> BGR by '
                        'default); empty for none.')
    p.add_argument('--context_pad', type=int, default=16,
                   help='Pixels of context around each window.')
    return p


def read_windows(path):
    """[(filename, [(ymin, xmin, ymax, xmax), ...]), ...] from a .csv, in
    the order images first appear."""
    order, windows = [], {}
    with open(path, newline='') as f:
        reader = csv.DictReader(f, skipinitialspace=True)
        missing = set(['filename'] + COORD_COLS) - set(reader.fieldnames or [])
        if missing:
            raise ValueError('%s: missing column(s) %s (need filename, %s)'
                             % (path, ', '.join(sorted(missing)),
                                ', '.join(COORD_COLS)))
        for row in reader:
            name = row['filename']
            if name not in windows:
                order.append(name)
                windows[name] = []
            windows[name].append([int(float(row[c])) for c in COORD_COLS])
    return [(name, windows[name]) for name in order]


def write_output(path, detections):
    names = [d['filename'] for d in detections]
    windows = np.array([d['window'] for d in detections]).reshape(-1, 4)
    preds = np.array([np.ravel(d['prediction']) for d in detections])
    if path.lower().endswith('.csv'):
        with open(path, 'w', newline='') as f:
            w = csv.writer(f)
            w.writerow(['filename'] + COORD_COLS +
                       ['class%d' % i for i in range(preds.shape[1])])
            for name, win, pred in zip(names, windows, preds):
                w.writerow([name] + [int(v) for v in win] +
                           ['%.9g' % v for v in pred])
    elif path.lower().endswith(('.h5', '.hdf5')):
        import h5py
        with h5py.File(path, 'w') as f:
            f['filename'] = np.array(names, dtype=h5py.string_dtype())
            f['window'] = windows
            f['prediction'] = preds
    else:
        raise ValueError('Unknown output file type: not .csv or .h5: '
                         + path)


def main(argv=None):
    pycaffe_dir = os.path.dirname(os.path.abspath(__file__))
    args = build_parser(pycaffe_dir).parse_args(argv)
    for flag in ('model_def', 'pretrained_model', 'mean_file'):
        path = getattr(args, flag)
        if path and not os.path.isfile(path):
            raise SystemExit('detect.py: --%s %s: no such file' % (flag, path))

    mean = None
    if args.mean_file:
        mean = np.load(args.mean_file)
        if mean.ndim == 3 and mean.shape[1:] != (1, 1):
            mean = mean.mean(1).mean(1)
    channel_swap = None
    if args.channel_swap:
        channel_swap = [int(s) for s in args.channel_swap.split(',')]
    if args.gpu:
        caffe.set_mode_gpu()
        print('GPU mode')
    else:
        caffe.set_mode_cpu()
        print('CPU mode')

    detector = caffe.Detector(args.model_def, args.pretrained_model,
                              mean=mean, input_scale=args.input_scale,
                              raw_scale=args.raw_scale,
                              channel_swap=channel_swap,
                              context_pad=args.context_pad)

    start = time.time()
    print('Loading input...')
    if args.input_file.lower().endswith('txt'):
        if args.crop_mode == 'list':
            raise ValueError('--crop_mode list needs a .csv of windows')
        with open(args.input_file) as f:
            inputs = [line.strip() for line in f if line.strip()]
        detections = detector.detect_selective_search(inputs)
    elif args.input_file.lower().endswith('csv'):
        if args.crop_mode != 'list':
            raise ValueError('a .csv of windows goes with --crop_mode list')
        detections = detector.detect_windows(read_windows(args.input_file))
    else:
        raise ValueError('Unknown input file type: not in txt or csv.')
    print('Processed %d windows in %.3f s.' % (len(detections),
                                               time.time() - start))
    start = time.time()
    write_output(args.output_file, detections)
    print('Saved to %s in %.3f s.' % (args.output_file, time.time() - start))


if __name__ == '__main__':
    sys.exit(main())
