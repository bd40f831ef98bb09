"""Coordinate maps between the blobs of a NetSpec net (Caffe's coord_map).

Fully convolutional nets (FCN) upsample a coarse score map with
Deconvolution and crop it back onto the input's grid.  Which offset the
Crop layer needs follows from the kernels, strides and pads on the way,
and this module works it out instead of the user.

A coordinate map is a tuple (axis, a, b): along the spatial axes that
start after `axis`, a point at coordinate x in one blob lies at a * x + b
in another (a and b are numpy arrays, one entry per spatial axis, or
scalars that broadcast).  axis is None for layers that do not change
coordinates.  Spatial layers map their input onto their output:

  Convolution, Pooling, Im2col   x -> (x + pad - (k_eff - 1) / 2) / stride
  Deconvolution                  x -> stride * x + (k_eff - 1) / 2 - pad
  Crop                           x -> x - offset
  element-wise layers (ReLU ...) x -> x

where k_eff = (kernel - 1) * dilation + 1.  Other layers (InnerProduct,
global pooling, ...) have no such map (UndefinedMapException), and the
search stops there.

    from caffe.coord_map import crop
    n.score = crop(n.upscore, n.data)   # a Crop layer with the offset

crop() raises AssertionError, as Caffe's does, when the two blobs differ
in scale or would need a negative or fractional offset.
"""

from __future__ import division

import numpy as np

from .net_spec import layers as L

# Layers whose output has the same coordinates as their (first) input.
PASS_THROUGH_LAYERS = ['AbsVal', 'BatchNorm', 'Bias', 'BNLL', 'Dropout',
                       'Eltwise', 'ELU', 'Log', 'LRN', 'Exp', 'MVN', 'Power',
                       'ReLU', 'PReLU', 'Scale', 'Sigmoid', 'Split', 'TanH',
                       'Threshold']


class UndefinedMapException(Exception):
    """The layer has no coordinate map (it is not spatial)."""


class AxisMismatchException(Exception):
    """Two maps act on different axes and cannot be composed."""


def _layer_params(fn, sub_param):
    """The layer's keyword parameters, whether given flat
    (L.Convolution(x, kernel_size=3)) or nested (convolution_param=...)."""
    nested = fn.params.get(sub_param)
    return nested if isinstance(nested, dict) else fn.params


def _spatial(params, name, legacy, default):
    """One spatial setting as an array: the repeated field `name`, or the
    legacy pair `legacy`_h / `legacy`_w."""
    h, w = legacy + '_h', legacy + '_w'
    if h in params or w in params:
        if name in params:
            raise ValueError('give either {} or {}/{}, not both'.format(
                name, h, w))
        return np.array([params.get(h, default), params.get(w, default)],
                        dtype=float)
    return np.array(params.get(name, default), dtype=float, ndmin=1)


def conv_params(fn):
    """(axis, stride, effective kernel size, pad) of a Convolution,
    Deconvolution, Pooling or Im2col layer."""
    sub = 'pooling_param' if fn.type_name == 'Pooling' \
        else 'convolution_param'
    params = _layer_params(fn, sub)
    if params.get('global_pooling', False):
        raise UndefinedMapException('global pooling has no coordinate map')
    if 'kernel_size' not in params and 'kernel_h' not in params:
        raise ValueError('{} layer without kernel_size'.format(fn.type_name))
    kernel = _spatial(params, 'kernel_size', 'kernel', 1)
    dilation = np.array(params.get('dilation', 1), dtype=float, ndmin=1)
    return (params.get('axis', 1), _spatial(params, 'stride', 'stride', 1),
            (kernel - 1) * dilation + 1, _spatial(params, 'pad', 'pad', 0))


def crop_params(fn):
    """(axis, offset) of a Crop layer; Caffe crops from axis 2 by
    default."""
    params = _layer_params(fn, 'crop_param')
    return (params.get('axis', 2),
            np.array(params.get('offset', 0), dtype=float, ndmin=1))


def coord_map(fn):
    """The map from fn's input coordinates to its output coordinates."""
    kind = fn.type_name
    if kind in ('Convolution', 'Pooling', 'Im2col'):
        axis, stride, kernel, pad = conv_params(fn)
        return axis, 1 / stride, (pad - (kernel - 1) / 2) / stride
    if kind == 'Deconvolution':
        axis, stride, kernel, pad = conv_params(fn)
        return axis, stride, (kernel - 1) / 2 - pad
    if kind == 'Crop':
        axis, offset = crop_params(fn)
        # Crop's axis is the first cropped one; maps name the axis before.
        return axis - 1, 1, -offset
    if kind in PASS_THROUGH_LAYERS:
        return None, 1, 0
    raise UndefinedMapException('{} layers have no coordinate map'.format(
        kind))


def compose(base_map, next_map):
    """The map that applies next_map, then base_map."""
    axis_base, a_base, b_base = base_map
    axis_next, a_next, b_next = next_map
    if axis_base is None:
        axis = axis_next
    elif axis_next is None or axis_next == axis_base:
        axis = axis_base
    else:
        raise AxisMismatchException(
            'maps on axis {} and axis {} do not compose'.format(
                axis_base, axis_next))
    return axis, a_base * a_next, a_base * b_next + b_base


def inverse(coord_map):
    """The map back: x = (y - b) / a."""
    axis, a, b = coord_map
    return axis, 1 / a, -b / a


def _inputs_with_coordinates(top):
    # A Crop's second input only gives the shape; its coordinates are
    # those of the first.
    inputs = top.fn.inputs
    return inputs[:1] if top.fn.type_name == 'Crop' else inputs


def _walk_back(top):
    """Yields (blob, map from blob's coordinates to top's) for top and every
    blob it is computed from through layers that have maps, nearest
    first."""
    maps = {top: (None, 1, 0)}
    pending = [top]
    while pending:
        blob = pending.pop(0)
        yield blob, maps[blob]
        try:
            step = coord_map(blob.fn)
        except UndefinedMapException:
            continue
        for source in _inputs_with_coordinates(blob):
            if source not in maps:
                maps[source] = compose(maps[blob], step)
                pending.append(source)


def coord_map_from_to(top_from, top_to):
    """The map from top_from's coordinates to top_to's, through the blob
    nearest top_to that both are computed from (RuntimeError when there is
    none)."""
    from_maps = dict(_walk_back(top_from))
    for blob, to_map in _walk_back(top_to):
        if blob in from_maps:
            return compose(to_map, inverse(from_maps[blob]))
    raise RuntimeError('Could not compute map between tops; are they '
                       'connected by spatial layers?')


def crop(top_from, top_to):
    """A Crop layer that cuts top_from down to top_to's extent, aligned
    on the coordinates the layers between them define."""
    axis, a, b = coord_map_from_to(top_from, top_to)
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if not (a == 1).all():
        raise AssertionError('scale mismatch on crop (a = {})'.format(a))
    if not (b <= 0).all():
        raise AssertionError('cannot crop negative offset (b = {})'.format(b))
    if not (np.round(b) == b).all():
        raise AssertionError('cannot crop noninteger offset (b = {})'.format(
            b))
    offset = [int(v) for v in np.atleast_1d(-np.round(b))]
    return L.Crop(top_from, top_to,
                  crop_param=dict(axis=axis + 1, offset=offset))
