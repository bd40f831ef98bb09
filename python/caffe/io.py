"""Conversions between numpy arrays and Caffe's protobuf messages, and the
image pre-processing that pycaffe users feed nets with (Caffe 1.0's caffe.io).

Contract, as in Caffe 1.0:
- BlobProto <-> ndarray (N-d `shape`, or the legacy num/channels/height/width),
  BlobProtoVector <-> list of ndarrays, Datum <-> C x H x W ndarray
  (uint8 in `data`, anything else in `float_data`; encoded Datums, as written
  by `convert_imageset --encoded`, are decoded like Caffe's DecodeDatumNative).
- Transformer maps H x W x K images (RGB, [0, 1], as load_image gives) to the
  K x H x W blobs a net takes, and back.
- load_image gives float32 H x W x 3 (or x 1) in [0, 1]; resize_image and
  oversample work on H x W x K arrays.
"""

import io as _bytes_io

import numpy as np
import skimage.io
from scipy.ndimage import zoom
from skimage.transform import resize

from caffe.proto import caffe_pb2


# ---------------------------------------------------------------------------
# proto / datum / ndarray conversion

def blobproto_to_array(blob, return_diff=False):
    """Return the data (or, with return_diff, the diff) of a BlobProto as an
    ndarray shaped by the legacy 4-D fields when any is set, else by
    blob.shape (an empty shape gives a 0-d array)."""
    values = blob.diff if return_diff else blob.data
    legacy = any(blob.HasField(f)
                 for f in ('num', 'channels', 'height', 'width'))
    if legacy:
        shape = (blob.num, blob.channels, blob.height, blob.width)
    else:
        shape = tuple(blob.shape.dim)
    return np.array(values).reshape(shape)


def array_to_blobproto(arr, diff=None):
    """Convert an N-d array (and, optionally, a diff of the same shape) to a
    BlobProto with an N-d shape. As in Caffe, shapes are not cross-checked."""
    blob = caffe_pb2.BlobProto()
    blob.shape.dim.extend(arr.shape)
    blob.data.extend(arr.astype(float).flat)
    if diff is not None:
        blob.diff.extend(diff.astype(float).flat)
    return blob


def arraylist_to_blobprotovector_str(arraylist):
    """Serialize a list of arrays as a BlobProtoVector string."""
    vec = caffe_pb2.BlobProtoVector()
    vec.blobs.extend([array_to_blobproto(arr) for arr in arraylist])
    return vec.SerializeToString()


# Caffe's name for it, misspelled; scripts written for Caffe call this one.
arraylist_to_blobprotovecor_str = arraylist_to_blobprotovector_str


def blobprotovector_str_to_arraylist(str):
    """Parse a serialized BlobProtoVector into a list of arrays."""
    vec = caffe_pb2.BlobProtoVector()
    vec.ParseFromString(str)
    return [blobproto_to_array(blob) for blob in vec.blobs]


def array_to_datum(arr, label=None):
    """Convert a C x H x W array to a Datum: uint8 arrays go to the byte
    string `data` (as Caffe's data layers store images), other dtypes to
    `float_data`. The label is set only when given."""
    if arr.ndim != 3:
        raise ValueError('Incorrect array shape.')
    datum = caffe_pb2.Datum()
    datum.channels, datum.height, datum.width = arr.shape
    if arr.dtype == np.uint8:
        datum.data = arr.tobytes()
    else:
        datum.float_data.extend(arr.flat)
    if label is not None:
        datum.label = label
    return datum


def _decode_datum_image(datum):
    # Caffe's DecodeDatumNative reads with OpenCV's IMREAD_ANYCOLOR: grey
    # images stay one channel, colour ones become 3-channel BGR, no alpha.
    from PIL import Image
    img = Image.open(_bytes_io.BytesIO(datum.data))
    if img.mode in ('1', 'L', 'I', 'I;16', 'F'):
        arr = np.asarray(img.convert('L'))[np.newaxis, :, :]
    else:
        rgb = np.asarray(img.convert('RGB'))
        arr = rgb[:, :, ::-1].transpose(2, 0, 1)
    return np.ascontiguousarray(arr, dtype=np.uint8)


def datum_to_array(datum):
    """Convert a Datum to a C x H x W array (uint8 when the Datum holds bytes,
    float otherwise). The label is left on the Datum."""
    if datum.encoded:
        return _decode_datum_image(datum)
    shape = (datum.channels, datum.height, datum.width)
    if len(datum.data):
        return np.frombuffer(datum.data, dtype=np.uint8).reshape(shape).copy()
    return np.array(datum.float_data).astype(float).reshape(shape)


# ---------------------------------------------------------------------------
# Pre-processing

class Transformer:
    """Prepare H x W x K images for a net's inputs and invert that.

    inputs: {input blob name: blob shape (N, K, H, W)}, typically
    {name: net.blobs[name].data.shape}. preprocess() applies, in order:
    resize to (H, W), transpose, channel swap, raw scale, mean subtraction,
    input scale; deprocess() undoes them in reverse order.
    """

    def __init__(self, inputs):
        # Shapes are compared as tuples below; a list shape would never match.
        self.inputs = {name: tuple(shape) for name, shape in inputs.items()}
        self.transpose = {}
        self.channel_swap = {}
        self.raw_scale = {}
        self.mean = {}
        self.input_scale = {}

    def __check_input(self, in_):
        if in_ not in self.inputs:
            raise Exception('{} is not one of the net inputs: {}'.format(
                in_, self.inputs))

    def preprocess(self, in_, data):
        """Turn an H' x W' x K image into a K x H x W float32 array for input
        blob in_ (the caller's array is left untouched)."""
        self.__check_input(in_)
        caffe_in = np.array(data, dtype=np.float32)
        transpose = self.transpose.get(in_)
        channel_swap = self.channel_swap.get(in_)
        raw_scale = self.raw_scale.get(in_)
        mean = self.mean.get(in_)
        input_scale = self.input_scale.get(in_)
        in_dims = self.inputs[in_][2:]
        if caffe_in.shape[:2] != in_dims:
            caffe_in = resize_image(caffe_in, in_dims)
        if transpose is not None:
            caffe_in = caffe_in.transpose(transpose)
        if channel_swap is not None:
            caffe_in = caffe_in[channel_swap, :, :]
        if raw_scale is not None:
            caffe_in *= raw_scale
        if mean is not None:
            caffe_in -= mean
        if input_scale is not None:
            caffe_in *= input_scale
        return caffe_in

    def deprocess(self, in_, data):
        """Invert preprocess() for a K x H x W (or 1 x K x H x W) array."""
        self.__check_input(in_)
        decaf_in = np.array(data, dtype=np.float32)
        # Caffe squeezes every singleton axis, which breaks 1-channel inputs;
        # only a leading batch axis of one is dropped here.
        if decaf_in.ndim == 4 and decaf_in.shape[0] == 1:
            decaf_in = decaf_in[0]
        transpose = self.transpose.get(in_)
        channel_swap = self.channel_swap.get(in_)
        raw_scale = self.raw_scale.get(in_)
        mean = self.mean.get(in_)
        input_scale = self.input_scale.get(in_)
        if input_scale is not None:
            decaf_in /= input_scale
        if mean is not None:
            decaf_in += mean
        if raw_scale is not None:
            decaf_in /= raw_scale
        if channel_swap is not None:
            decaf_in = decaf_in[np.argsort(channel_swap), :, :]
        if transpose is not None:
            decaf_in = decaf_in.transpose(np.argsort(transpose))
        return decaf_in

    def set_transpose(self, in_, order):
        """Set the axis order taking an H x W x K image to K x H x W,
        normally (2, 0, 1)."""
        self.__check_input(in_)
        if len(order) != len(self.inputs[in_]) - 1:
            raise Exception('Transpose order needs to have the same number of '
                            'dimensions as the input.')
        self.transpose[in_] = order

    def set_channel_swap(self, in_, order):
        """Set the channel order to take after the transpose, e.g. (2, 1, 0)
        for RGB -> BGR as the reference ImageNet models expect."""
        self.__check_input(in_)
        if len(order) != self.inputs[in_][1]:
            raise Exception('Channel swap needs to have the same number of '
                            'dimensions as the input channels.')
        self.channel_swap[in_] = order

    def set_raw_scale(self, in_, scale):
        """Set the factor applied before mean subtraction, e.g. 255 for
        models trained on [0, 255] pixels (load_image gives [0, 1])."""
        self.__check_input(in_)
        self.raw_scale[in_] = scale

    def set_mean(self, in_, mean):
        """Set the mean to subtract: a K-vector (one value per channel) or a
        K x H x W (or H x W) array matching the input blob."""
        self.__check_input(in_)
        ms = mean.shape
        if mean.ndim == 1:
            if ms[0] != self.inputs[in_][1]:
                raise ValueError('Mean channels incompatible with input.')
            mean = mean[:, np.newaxis, np.newaxis]
        else:
            if len(ms) == 2:
                ms = (1,) + ms
            if len(ms) != 3:
                raise ValueError('Mean shape invalid')
            if ms != self.inputs[in_][1:]:
                raise ValueError('Mean shape incompatible with input shape.')
        self.mean[in_] = mean

    def set_input_scale(self, in_, scale):
        """Set the factor applied last, after mean subtraction."""
        self.__check_input(in_)
        self.input_scale[in_] = scale


# ---------------------------------------------------------------------------
# Image IO

def input_transformer(in_, shape, mean=None, input_scale=None,
                      raw_scale=None, channel_swap=None):
    """The Transformer Classifier and Detector use: HxWxC images to the
    net's CxHxW input `in_` of `shape`, with the optional settings applied
    (None leaves one unset)."""
    transformer = Transformer({in_: shape})
    transformer.set_transpose(in_, (2, 0, 1))
    if mean is not None:
        transformer.set_mean(in_, mean)
    if input_scale is not None:
        transformer.set_input_scale(in_, input_scale)
    if raw_scale is not None:
        transformer.set_raw_scale(in_, raw_scale)
    if channel_swap is not None:
        transformer.set_channel_swap(in_, channel_swap)
    return transformer


def load_image(filename, color=True):
    """Load an image as float32 in [0, 1]: H x W x 3 RGB when color is True
    (grey images are tiled, alpha dropped), else H x W x 1 intensity."""
    img = skimage.img_as_float(
        skimage.io.imread(filename, as_gray=not color)).astype(np.float32)
    if img.ndim == 2:
        img = img[:, :, np.newaxis]
        if color:
            img = np.tile(img, (1, 1, 3))
    elif img.shape[2] == 4:
        img = img[:, :, :3]
    return img


def resize_image(im, new_dims, interp_order=1):
    """Resize an H x W x K array to new_dims = (height, width), keeping K,
    with spline interpolation of the given order (1: bilinear)."""
    new_dims = tuple(int(d) for d in new_dims)
    if im.shape[-1] == 1 or im.shape[-1] == 3:
        im_min, im_max = im.min(), im.max()
        if im_max > im_min:
            # skimage wants values in [0, 1]: stretch, resize, stretch back.
            # No anti-aliasing prefilter, as with the skimage Caffe 1.0 used.
            im_std = (im - im_min) / (im_max - im_min)
            resized_std = resize(im_std, new_dims, order=interp_order,
                                 mode='edge', anti_aliasing=False)
            resized_im = resized_std * (im_max - im_min) + im_min
        else:
            # A constant image: avoid the division by zero.
            ret = np.empty((new_dims[0], new_dims[1], im.shape[-1]),
                           dtype=np.float32)
            ret.fill(im_min)
            return ret
    else:
        # ndimage handles any number of channels, more slowly.
        scale = tuple(np.array(new_dims, dtype=float) /
                      np.array(im.shape[:2]))
        resized_im = zoom(im, scale + (1,), order=interp_order)
    return resized_im.astype(np.float32)


def oversample(images, crop_dims):
    """Crop each H x W x K image at its four corners and centre, plus the
    mirrored (left-right) versions: returns 10*N x h x w x K float32, the ten
    crops of each image consecutive (5 crops, then their 5 mirrors)."""
    im_shape = np.array(images[0].shape)
    crop_dims = np.array(crop_dims)
    im_center = im_shape[:2] / 2.0

    h_indices = (0, im_shape[0] - crop_dims[0])
    w_indices = (0, im_shape[1] - crop_dims[1])
    crops_ix = np.empty((5, 4), dtype=int)
    curr = 0
    for i in h_indices:
        for j in w_indices:
            crops_ix[curr] = (i, j, i + crop_dims[0], j + crop_dims[1])
            curr += 1
    crops_ix[4] = np.tile(im_center, (1, 2)) + np.concatenate(
        [-crop_dims / 2.0, crop_dims / 2.0])
    crops_ix = np.tile(crops_ix, (2, 1))

    crops = np.empty((10 * len(images), crop_dims[0], crop_dims[1],
                      im_shape[-1]), dtype=np.float32)
    ix = 0
    for im in images:
        for crop in crops_ix:
            crops[ix] = im[crop[0]:crop[2], crop[1]:crop[3], :]
            ix += 1
        crops[ix - 5:ix] = crops[ix - 5:ix, :, ::-1, :]  # the mirrors
    return crops
