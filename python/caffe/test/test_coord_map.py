"""caffe.coord_map: the coordinate maps of spatial layers, composed through
a NetSpec graph, and crop() giving the Crop a fully convolutional net
needs.  Expected maps are worked out by hand in each test from the layer
formulas (output j of a convolution sees input j*stride - pad + (k-1)/2 at
its centre); the end-to-end tests check them against what Caffe computes."""
import numpy as np
import pytest

import caffe
from caffe import layers as L, params as P
from caffe.coord_map import (AxisMismatchException, UndefinedMapException,
                             compose, coord_map, coord_map_from_to, crop,
                             inverse)


def fcn_spec(ks=3, pad=0, pool=2, dks=4, dstride=2, dpad=0):
    """data -> conv -> relu -> pool -> deconv, an FCN's shape."""
    n = caffe.NetSpec()
    n.data = L.Input(shape=dict(dim=[1, 1, 40, 40]))
    n.conv = L.Convolution(n.data, num_output=2, kernel_size=ks, pad=pad)
    n.relu = L.ReLU(n.conv, in_place=True)
    n.pool = L.Pooling(n.relu, pool=P.Pooling.MAX, kernel_size=pool,
                       stride=pool)
    n.deconv = L.Deconvolution(
        n.pool, convolution_param=dict(num_output=1, kernel_size=dks,
                                       stride=dstride, pad=dpad))
    return n


def test_single_layer_maps():
    n = fcn_spec(ks=5, pad=1)
    # conv: x -> x + 1 - 2; pool: x -> (x - 0.5) / 2; deconv: x -> 2x + 1.5
    axis, a, b = coord_map(n.conv.fn)
    assert axis == 1 and a == 1 and b == -1
    axis, a, b = coord_map(n.pool.fn)
    assert a == 0.5 and b == -0.25
    axis, a, b = coord_map(n.deconv.fn)
    assert a == 2 and b == 1.5
    assert coord_map(n.relu.fn) == (None, 1, 0)
    with pytest.raises(UndefinedMapException):
        coord_map(L.InnerProduct(n.pool, num_output=3).fn)


def test_compose_and_inverse():
    m = compose((1, 2.0, 3.0), (None, 0.5, -1.0))   # x -> 2(0.5x - 1) + 3
    assert m == (1, 1.0, 1.0)
    axis, a, b = inverse((1, 2.0, 3.0))
    assert (axis, a, b) == (1, 0.5, -1.5)
    with pytest.raises(AxisMismatchException):
        compose((1, 1, 0), (2, 1, 0))


@pytest.mark.parametrize('ks, pad, expected_b', [(3, 0, 0.0), (5, 1, 0.0),
                                                 (3, 1, 1.0), (2, 0, 0.5)])
def test_map_through_the_fcn(ks, pad, expected_b):
    # data -> deconv: 2 * ((x + pad - (ks-1)/2 - 0.5) / 2) + 1.5
    #               = x + pad - (ks-1)/2 + 1
    # (strides are given once, so a and b have one entry for both axes)
    n = fcn_spec(ks=ks, pad=pad)
    axis, a, b = coord_map_from_to(n.data, n.deconv)
    assert axis == 1 and np.all(a == 1)
    assert np.all(b == pad - (ks - 1) / 2.0 + 1) and np.all(b == expected_b)
    # And back.
    _, a_back, b_back = coord_map_from_to(n.deconv, n.data)
    assert np.all(a_back == 1) and np.all(b_back == -b)


def test_rectangular_and_legacy_kernel_parameters():
    n = caffe.NetSpec()
    n.data = L.Input(shape=dict(dim=[1, 1, 30, 30]))
    n.nd = L.Convolution(n.data, num_output=1, kernel_size=[3, 5],
                         pad=[0, 1])
    n.hw = L.Convolution(n.data, num_output=1, kernel_h=3, kernel_w=5,
                         pad_h=0, pad_w=1)
    for top in (n.nd, n.hw):
        _, a, b = coord_map_from_to(n.data, top)
        assert np.array_equal(np.broadcast_to(a, (2,)), [1, 1])
        assert np.array_equal(b, [-1, -1])


def test_crop_aligns_what_caffe_computes():
    # Centre-tap kernels copy the input pixel each output is centred on,
    # so the cropped input must equal the conv output exactly.
    n = caffe.NetSpec()
    n.data = L.Input(shape=dict(dim=[1, 1, 12, 12]))
    n.c1 = L.Convolution(n.data, num_output=1, kernel_size=5, pad=1,
                         bias_term=False)
    n.c2 = L.Convolution(n.c1, num_output=1, kernel_size=3, bias_term=False)
    n.cropped = crop(n.data, n.c2)
    net = caffe.Net(n.to_proto(), caffe.TEST)
    assert list(net.layer_dict['cropped'].blobs) == []
    for name, k in (('c1', 5), ('c2', 3)):
        w = np.zeros((1, 1, k, k), np.float32)
        w[0, 0, k // 2, k // 2] = 1
        net.params[name][0].data[...] = w
    net.blobs['data'].data[...] = np.arange(144).reshape(1, 1, 12, 12)
    net.forward()
    assert net.blobs['cropped'].data.shape == net.blobs['c2'].data.shape
    assert np.array_equal(net.blobs['cropped'].data, net.blobs['c2'].data)


def test_crop_of_an_upsampled_score_builds_an_fcn():
    n = fcn_spec(ks=3, pad=1)   # b = +1: the score must be cropped
    with pytest.raises(AssertionError, match='negative offset'):
        crop(n.data, n.deconv)
    n.score = crop(n.deconv, n.data)
    text = str(n.to_proto())
    assert 'offset: 1' in text and 'axis: 2' in text
    net = caffe.Net(n.to_proto(), caffe.TEST)
    assert net.blobs['score'].data.shape[2:] == net.blobs['data'].data.shape[2:]


def test_crop_of_a_crop_and_errors():
    n = fcn_spec(ks=3, pad=1)
    n.score = crop(n.deconv, n.data)
    _, a, b = coord_map_from_to(n.score, n.data)
    assert np.all(a == 1) and np.all(b == 0)
    # Scale mismatch: the pooled map is half the data's resolution.
    with pytest.raises(AssertionError, match='scale mismatch'):
        crop(n.pool, n.data)
    # Fractional offset: deconv -> data is x - 0.5.
    m = fcn_spec(ks=2, pad=0)
    with pytest.raises(AssertionError, match='noninteger'):
        crop(m.deconv, m.data)
    # No common spatial ancestor.
    other = L.Input(shape=dict(dim=[1, 1, 40, 40]))
    with pytest.raises(RuntimeError, match='connected'):
        coord_map_from_to(n.deconv, other)


def test_more_layer_arrangements():
    n = caffe.NetSpec()
    n.data = L.Input(shape=dict(dim=[1, 1, 64, 64, 64]))
    # 1x1 convolution: the identity map (on its axis).
    n.c11 = L.Convolution(n.data, num_output=1, kernel_size=1)
    assert coord_map_from_to(n.data, n.c11)[1:] == (1, 0)
    # Two pooling stages and a 4x deconvolution: a = 1, shifted by the
    # kernels: pools x -> (x - 0.5) / 2 twice, deconv k=8 s=4 p=2:
    # 4 * ((x/2 - 0.25)/2 - 0.25) + 3.5 - 2 = x - 0.5 - 1 + 1.5 = x.
    n.p1 = L.Pooling(n.data, kernel_size=2, stride=2)
    n.p2 = L.Pooling(n.p1, kernel_size=2, stride=2)
    n.up = L.Deconvolution(n.p2, convolution_param=dict(
        num_output=1, kernel_size=8, stride=4, pad=2))
    _, a, b = coord_map_from_to(n.data, n.up)
    assert np.all(a == 1) and np.all(b == 0)
    # Deconvolution padding shifts back by pad: x -> 2x + 1.5 - pad, so
    # after the pool, 2 (x - 0.5) / 2 + 1.5 - pad = x + 1 - pad.
    for pad in (0, 1, 3):
        n['dp%d' % pad] = L.Deconvolution(n.p1, convolution_param=dict(
            num_output=1, kernel_size=4, stride=2, pad=pad))
        _, a, b = coord_map_from_to(n.data, n['dp%d' % pad])
        assert np.all(a == 1) and np.all(b == 1 - pad)
    # Anisotropic stride and a 3-D kernel: one entry per spatial axis.
    n.aniso = L.Convolution(n.data, num_output=1, kernel_size=[3, 3, 3],
                            stride=[2, 1, 4])
    _, a, b = coord_map_from_to(n.data, n.aniso)
    np.testing.assert_allclose(a, [0.5, 1, 0.25])
    np.testing.assert_allclose(b, [-0.5, -1, -0.25])
    # A layer with two bottoms (Eltwise): both inputs share coordinates.
    n.other = L.Convolution(n.data, num_output=1, kernel_size=1)
    n.sum = L.Eltwise(n.c11, n.other)
    assert coord_map_from_to(n.data, n.sum)[1:] == (1, 0)
    # Through an InnerProduct there is no map.
    n.ip = L.InnerProduct(n.p2, num_output=3)
    with pytest.raises(RuntimeError, match='connected'):
        coord_map_from_to(n.ip, n.data)
