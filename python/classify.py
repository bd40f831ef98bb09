#!/usr/bin/env python3
"""Classify images from the command line (Caffe 1.0's python/classify.py).

  classify.py INPUT OUTPUT.npy [--model_def ...] [--pretrained_model ...]
      [--center_only] [--images_dim H,W] [--mean_file M.npy]
      [--input_scale S] [--raw_scale 255] [--channel_swap 2,1,0] [--ext jpg]
      [--gpu]

INPUT is an image file, a directory (every *.EXT in it, sorted) or an .npy
array of H x W x K images; the N x classes predictions of caffe.Classifier
are saved to OUTPUT.npy. The defaults describe Caffe's reference ImageNet
model (models/bvlc_reference_caffenet), whose weights LeanCaffe does not
ship: pass --model_def and --pretrained_model for any other net. The mean
file must match the net input (C x H x W) or be one value per channel.
"""
import argparse
import glob
import os
import sys
import time

import numpy as np

import caffe


def build_parser(pycaffe_dir):
    models = os.path.join(pycaffe_dir, '..', 'models',
                          'bvlc_reference_caffenet')
    p = argparse.ArgumentParser(
        description='Classify images with a Caffe model.')
    p.add_argument('input_file',
                   help='Input image, directory of images, or .npy array.')
    p.add_argument('output_file', help='Output .npy file name.')
    p.add_argument('--model_def',
                   default=os.path.join(models, 'deploy.prototxt'),
                   help='Model definition (deploy prototxt).')
    p.add_argument('--pretrained_model',
                   default=os.path.join(
                       models, 'bvlc_reference_caffenet.caffemodel'),
                   help='Trained weights (.caffemodel).')
    p.add_argument('--gpu', action='store_true',
                   help='Compute on the GPU.')
    p.add_argument('--center_only', action='store_true',
                   help='Predict from the centre crop alone instead of '
                        'averaging over corner, centre and mirrored crops '
                        '(the default).')
    p.add_argument('--images_dim', default='256,256',
                   help="'height,width' images are resized to before "
                        "cropping.")
    p.add_argument('--mean_file',
                   default=os.path.join(pycaffe_dir, 'caffe', 'imagenet',
                                        'ilsvrc_2012_mean.npy'),
                   help='Data set mean, a Channels x Height x Width .npy '
                        "array; '' for no mean subtraction.")
    p.add_argument('--input_scale', type=float,
                   help='Factor applied last, after mean subtraction.')
    p.add_argument('--raw_scale', type=float, default=255.0,
                   help='Factor applied to the [0, 1] images before mean '
                        'subtraction.')
    p.add_argument('--channel_swap', default='2,1,0',
                   help='Channel order to feed the net; the default turns '
                        "RGB into Caffe's (OpenCV's) BGR. '' keeps RGB.")
    p.add_argument('--ext', default='jpg',
                   help='Extension of the images to take when the input is '
                        'a directory.')
    return p


def load_inputs(path, ext):
    """The images to classify: an .npy array, a directory's *.ext files, or
    one image file."""
    path = os.path.expanduser(path)
    print('Loading %s: %s' % ('folder' if os.path.isdir(path) else 'file',
                              path))
    if path.endswith('npy'):
        return np.load(path)
    if os.path.isdir(path):
        files = sorted(glob.glob(os.path.join(path, '*.' + ext)))
        if not files:
            raise SystemExit('classify.py: no *.%s images in %s' % (ext, path))
        return [caffe.io.load_image(f) for f in files]
    return [caffe.io.load_image(path)]


def check_files(args):
    """Stops with a message naming the flag when a file it names is not
    there (the defaults name Caffe's reference model, not shipped)."""
    for flag in ('model_def', 'pretrained_model', 'mean_file'):
        path = getattr(args, flag)
        if path and not os.path.isfile(path):
            raise SystemExit('%s: --%s %s: no such file%s' % (
                os.path.basename(sys.argv[0]), flag, path,
                " (pass --mean_file '' for no mean)"
                if flag == 'mean_file' else ''))


def main(argv):
    args = build_parser(os.path.dirname(__file__)).parse_args(argv[1:])
    check_files(args)

    image_dims = [int(s) for s in args.images_dim.split(',')]
    mean = np.load(args.mean_file) if args.mean_file else None
    channel_swap = ([int(s) for s in args.channel_swap.split(',')]
                    if args.channel_swap else None)

    if args.gpu:
        caffe.set_mode_gpu()
        print('GPU mode')
    else:
        caffe.set_mode_cpu()
        print('CPU mode')

    classifier = caffe.Classifier(
        args.model_def, args.pretrained_model, image_dims=image_dims,
        mean=mean, input_scale=args.input_scale, raw_scale=args.raw_scale,
        channel_swap=channel_swap)

    inputs = load_inputs(args.input_file, args.ext)
    print('Classifying %d inputs.' % len(inputs))
    start = time.time()
    predictions = classifier.predict(inputs, not args.center_only)
    print('Done in %.2f s.' % (time.time() - start))

    print('Saving results into %s' % args.output_file)
    np.save(args.output_file, predictions)


if __name__ == '__main__':
    main(sys.argv)
