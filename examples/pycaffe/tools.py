"""Helpers of Caffe's pycaffe examples.

SimpleTransformer turns an H x W x 3 RGB image (uint8 or float in
[0, 255]) into the 3 x H x W BGR, mean-subtracted, scaled float32 array a
Caffe net takes, and back.  CaffeSolver collects solver settings in a
dict and writes them as a solver prototxt.
"""
import numpy as np


class SimpleTransformer(object):

    def __init__(self, mean=(128, 128, 128)):
        self.mean = np.array(mean, dtype=np.float32)
        self.scale = 1.0

    def set_mean(self, mean):
        """mean: one value per BGR channel."""
        self.mean = np.array(mean, dtype=np.float32)

    def set_scale(self, scale):
        self.scale = float(scale)

    def preprocess(self, im):
        im = np.asarray(im, dtype=np.float32)
        im = im[:, :, ::-1]           # RGB -> BGR
        im = (im - self.mean) * self.scale
        return im.transpose((2, 0, 1))

    def deprocess(self, im):
        im = np.asarray(im, dtype=np.float32).transpose((1, 2, 0))
        im = im / self.scale + self.mean
        return np.uint8(np.clip(im[:, :, ::-1], 0, 255))


class CaffeSolver(object):
    """Solver settings as strings, ready for the prototxt; defaults follow
    the examples (SGD, fixed rate)."""

    def __init__(self, testnet_prototxt_path='testnet.prototxt',
                 trainnet_prototxt_path='trainnet.prototxt', debug=False):
        self.sp = {
            'base_lr': '0.001', 'momentum': '0.9', 'test_iter': '100',
            'test_interval': '250', 'display': '25', 'snapshot': '2500',
            'snapshot_prefix': '"snapshot"', 'lr_policy': '"fixed"',
            'gamma': '0.1', 'weight_decay': '0.0005',
            'train_net': '"%s"' % trainnet_prototxt_path,
            'test_net': '"%s"' % testnet_prototxt_path,
            'max_iter': '100000', 'test_initialization': 'false',
            'average_loss': '25', 'iter_size': '1',
        }
        if debug:
            self.sp.update(max_iter='12', test_iter='1',
                           test_interval='4', display='1')

    def add_from_file(self, filepath):
        """Reads "key: value" lines (comments and blank lines skipped)."""
        with open(filepath) as f:
            for line in f:
                line = line.split('#', 1)[0].strip()
                if line:
                    key, value = line.split(':', 1)
                    self.sp[key.strip()] = value.strip()

    def write(self, filepath):
        with open(filepath, 'w') as f:
            for key, value in sorted(self.sp.items()):
                if not isinstance(value, str):
                    raise TypeError('solver setting %s must be a string' % key)
                f.write('%s: %s\n' % (key, value))
