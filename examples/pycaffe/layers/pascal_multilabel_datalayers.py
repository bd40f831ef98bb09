"""The Python data layer of Caffe's PASCAL multilabel example.

PascalMultilabelDataLayerSync reads a PASCAL VOC tree
(<pascal_root>/ImageSets/Main/<split>.txt lists image ids,
JPEGImages/<id>.jpg the images, Annotations/<id>.xml their objects) and
yields, per forward, `batch_size` images resized to `im_shape`, randomly
mirrored, as BGR mean-subtracted 3 x H x W arrays (top 0), with a 20-way
0/1 vector of the classes present in each (top 1).  Images are read in
order, wrapping around; the order is shuffled once per pass.

param_str is a Python dict literal:
    {'pascal_root': 'data/pascal/VOC2012', 'split': 'train',
     'im_shape': [227, 227], 'batch_size': 128}
"""
import ast
import os
import xml.etree.ElementTree as ET

import numpy as np
from PIL import Image

import caffe
from tools import SimpleTransformer

CLASSES = ('aeroplane', 'bicycle', 'bird', 'boat', 'bottle', 'bus', 'car',
           'cat', 'chair', 'cow', 'diningtable', 'dog', 'horse', 'motorbike',
           'person', 'pottedplant', 'sheep', 'sofa', 'train', 'tvmonitor')


def load_pascal_annotation(index, pascal_root):
    """The 20-way multi-hot label of image `index` (objects marked
    difficult count too, as in the example)."""
    path = os.path.join(pascal_root, 'Annotations', index + '.xml')
    label = np.zeros(len(CLASSES), dtype=np.float32)
    for obj in ET.parse(path).findall('object'):
        name = obj.find('name').text.strip().lower()
        if name not in CLASSES:
            raise ValueError('%s: unknown class %r' % (path, name))
        label[CLASSES.index(name)] = 1
    return label


class BatchLoader(object):
    """Loads images and labels one at a time, in a shuffled order."""

    def __init__(self, params, seed=None):
        self.pascal_root = params['pascal_root']
        self.im_shape = tuple(params['im_shape'])
        list_file = os.path.join(self.pascal_root, 'ImageSets', 'Main',
                                 params['split'] + '.txt')
        with open(list_file) as f:
            self.indexlist = [line.split()[0] for line in f if line.strip()]
        if not self.indexlist:
            raise ValueError('%s lists no images' % list_file)
        self.rng = np.random.RandomState(seed)
        self.order = self.rng.permutation(len(self.indexlist))
        self._cur = 0
        self.transformer = SimpleTransformer()
        self.transformer.set_mean((104, 117, 123))

    def load_next_image(self):
        if self._cur == len(self.indexlist):
            self._cur = 0
            self.order = self.rng.permutation(len(self.indexlist))
        index = self.indexlist[self.order[self._cur]]
        self._cur += 1
        path = os.path.join(self.pascal_root, 'JPEGImages', index + '.jpg')
        image = Image.open(path).convert('RGB').resize(
            (self.im_shape[1], self.im_shape[0]), Image.BILINEAR)
        im = np.asarray(image, dtype=np.float32)
        if self.rng.randint(2):
            im = im[:, ::-1, :]
        label = load_pascal_annotation(index, self.pascal_root)
        return self.transformer.preprocess(im), label


class PascalMultilabelDataLayerSync(caffe.Layer):
    """Images and multilabels of a PASCAL VOC split, loaded in the
    forward pass (synchronously)."""

    def setup(self, bottom, top):
        self.top_names = ['data', 'label']
        params = ast.literal_eval(self.param_str)
        for key in ('pascal_root', 'split', 'im_shape', 'batch_size'):
            if key not in params:
                raise ValueError('param_str needs %r' % key)
        if len(top) != 2:
            raise ValueError('needs two tops: data and label')
        if len(bottom) != 0:
            raise ValueError('takes no bottoms')
        self.batch_size = int(params['batch_size'])
        self.batch_loader = BatchLoader(params, params.get('seed'))
        h, w = params['im_shape']
        top[0].reshape(self.batch_size, 3, h, w)
        top[1].reshape(self.batch_size, len(CLASSES))

    def reshape(self, bottom, top):
        pass  # shapes are fixed in setup

    def forward(self, bottom, top):
        for i in range(self.batch_size):
            im, label = self.batch_loader.load_next_image()
            top[0].data[i, ...] = im
            top[1].data[i, ...] = label

    def backward(self, top, propagate_down, bottom):
        pass  # a data layer has nothing to propagate
