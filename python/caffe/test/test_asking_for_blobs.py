"""Reading blobs with mem_param on, from Python: every read of a blob's
data or diff equals the unoptimized net's bytes or raises
BlobNotReadableError; blobs asked for in forward(blobs=...) or
backward(diffs=...), kept with net.keep() or Net(..., keep=...), always
equal; a TEST net with force_backward runs backward."""
import os

import numpy as np
import pytest
from google.protobuf import text_format

import caffe
from caffe.proto import caffe_pb2

from pycaffe_testutil import REPO, readable

LEVELS = [(level, release, recompute)
          for level in (0, 1, 2)
          for release in ('STATIC', 'DYNAMIC')
          for recompute in ('', 'recompute { auto: SQRT }')]


def zoo_net(model, batch, channels, size):
    """models/<model>/train_val.prototxt with DummyData instead of Data,
    without mem_param (as the C++ tests' ZooTrainVal)."""
    param = caffe_pb2.NetParameter()
    with open(os.path.join(REPO, 'models', model, 'train_val.prototxt')) as f:
        text_format.Merge(f.read(), param)
    param.ClearField('mem_param')
    for layer in param.layer:
        if layer.type != 'Data':
            continue
        layer.type = 'DummyData'
        layer.ClearField('data_param')
        layer.ClearField('transform_param')
        dummy = layer.dummy_data_param
        dummy.shape.add().dim.extend([batch, channels, size, size])
        dummy.data_filler.add(type='gaussian', std=1)
        if len(layer.top) > 1:
            dummy.shape.add().dim.extend([batch])
            dummy.data_filler.add(type='constant', value=1)
    return param


def with_mem(param, text):
    out = caffe_pb2.NetParameter()
    out.CopyFrom(param)
    text_format.Merge('mem_param { %s }' % text, out)
    return out


def build(param, phase=caffe.TRAIN, **kwargs):
    caffe.set_random_seed(1)
    return caffe.Net(param, phase, **kwargs)


def run(net, blobs=None, diffs=None):
    caffe.set_random_seed(2)
    out = net.forward(blobs=blobs)
    grads = net.backward(diffs=diffs)
    return out, grads


def tally(plain, opt, what):
    equal = refused = 0
    for name in plain.blobs:
        try:
            got = getattr(opt.blobs[name], what)
        except caffe.BlobNotReadableError as err:
            assert 'exclude_blob' in str(err)
            refused += 1
            continue
        want = getattr(plain.blobs[name], what)
        assert got.tobytes() == want.tobytes(), '%s %s differs' % (name, what)
        equal += 1
    return equal, refused


@pytest.mark.parametrize('model,batch,channels,size', [
    ('lenet', 4, 1, 28), ('cifar10_quick', 4, 3, 32)])
@pytest.mark.parametrize('level,release,recompute', LEVELS)
def test_every_read_equals_or_refuses(model, batch, channels, size, level,
                                      release, recompute):
    param = zoo_net(model, batch, channels, size)
    plain = build(param)
    run(plain)
    opt = build(with_mem(param, 'optimize_train: true level: %d release: %s '
                         'check: true %s' % (level, release, recompute)))
    caffe.set_random_seed(2)
    opt.forward()
    equal, refused = tally(plain, opt, 'data')
    assert equal and refused
    opt.backward()
    for what in ('data', 'diff'):
        equal, refused = tally(plain, opt, what)
        assert equal and refused


@pytest.mark.parametrize('release', ['STATIC', 'DYNAMIC'])
def test_asked_for_blobs_equal(release):
    param = zoo_net('lenet', 4, 1, 28)
    plain = build(param)
    inner = [n for n in plain.blobs if n not in ('data', 'label', 'loss')]
    plain_out, plain_grads = run(plain, blobs=inner, diffs=inner)
    opt = build(with_mem(param, 'optimize_train: true release: %s '
                         'recompute { auto: SQRT }' % release))
    out, grads = run(opt, blobs=inner, diffs=inner)
    for name in inner:
        assert out[name].tobytes() == plain_out[name].tobytes(), name
        assert grads[name].tobytes() == plain_grads[name].tobytes(), name
        # And through net.blobs afterwards.
        assert (opt.blobs[name].data.tobytes() ==
                plain.blobs[name].data.tobytes()), name
        assert (opt.blobs[name].diff.tobytes() ==
                plain.blobs[name].diff.tobytes()), name


def test_forward_all_and_forward_backward_all_return_asked_blobs():
    param = zoo_net('lenet', 4, 1, 28)
    # An Input net so the *_all helpers can batch arrays.
    deploy = caffe_pb2.NetParameter()
    deploy.CopyFrom(param)
    deploy.force_backward = True
    del deploy.layer[:]
    text_format.Merge('layer { name: "data" type: "Input" top: "data" '
                      'input_param { shape { dim: 4 dim: 1 dim: 28 dim: 28 }'
                      ' } }', deploy)
    for layer in param.layer:
        if layer.type not in ('DummyData', 'Accuracy', 'SoftmaxWithLoss'):
            deploy.layer.add().CopyFrom(layer)
    plain = build(deploy, caffe.TEST)
    opt = build(with_mem(deploy, 'optimize_test: true'), caffe.TEST)
    x = np.random.RandomState(0).randn(10, 1, 28, 28).astype(np.float32)
    want = plain.forward_all(blobs=['conv2', 'pool1'], data=x)
    got = opt.forward_all(blobs=['conv2', 'pool1'], data=x)
    for name in ('conv2', 'pool1', 'ip2'):
        np.testing.assert_array_equal(got[name], want[name])
    out_diff = np.ones((10,) + tuple(plain.blobs['ip2'].shape[1:]))
    want = plain.forward_backward_all(blobs=['conv1'], diffs=['pool1'],
                                      data=x, ip2=out_diff)
    got = opt.forward_backward_all(blobs=['conv1'], diffs=['pool1'],
                                   data=x, ip2=out_diff)
    for a, b in zip(got, want):
        for name in b:
            np.testing.assert_array_equal(a[name], b[name])


def test_saliency_backward_on_a_force_backward_test_net():
    """net.backward(diffs=...) on a deploy net with force_backward."""
    deploy = """
    name: "saliency" force_backward: true
    layer { name: "data" type: "Input" top: "data"
            input_param { shape { dim: 2 dim: 3 dim: 8 dim: 8 } } }
    layer { name: "c1" type: "Convolution" bottom: "data" top: "c1"
            convolution_param { num_output: 4 kernel_size: 3 pad: 1
              weight_filler { type: "gaussian" std: 0.3 } } }
    layer { name: "r1" type: "ReLU" bottom: "c1" top: "c1" }
    layer { name: "c2" type: "Convolution" bottom: "c1" top: "c2"
            convolution_param { num_output: 4 kernel_size: 3 pad: 1
              weight_filler { type: "gaussian" std: 0.3 } } }
    layer { name: "t2" type: "TanH" bottom: "c2" top: "t2" }
    layer { name: "c3" type: "Convolution" bottom: "t2" top: "c3"
            convolution_param { num_output: 4 kernel_size: 3 pad: 1
              weight_filler { type: "gaussian" std: 0.3 } } }
    layer { name: "score" type: "InnerProduct" bottom: "c3" top: "score"
            inner_product_param { num_output: 5
              weight_filler { type: "gaussian" } } }
    """
    param = caffe_pb2.NetParameter()
    text_format.Merge(deploy, param)
    x = np.random.RandomState(1).randn(2, 3, 8, 8)
    results = []
    for p in (param, with_mem(param, 'optimize_test: true')):
        net = build(p, caffe.TEST)
        net.forward(data=x)
        grads = net.backward(diffs=['t2'],
                             score=np.ones_like(net.blobs['score'].data))
        results.append(grads)
    assert results[0].keys() == results[1].keys()
    for name in results[0]:
        np.testing.assert_array_equal(results[1][name], results[0][name])


def test_keep_in_the_constructor_and_on_the_net():
    param = zoo_net('lenet', 4, 1, 28)
    plain = build(param)
    run(plain)
    probe = build(with_mem(param, 'optimize_train: true'))
    run(probe)
    refused = [n for n in probe.blobs if not readable(probe.blobs[n])]
    assert refused
    opt_param = with_mem(param, 'optimize_train: true')
    kept = build(opt_param, keep=refused)
    assert sorted(kept.kept_blobs) == sorted(refused)
    later = build(opt_param)
    later.keep(refused)
    for net in (kept, later):
        run(net)
        for name in refused:
            np.testing.assert_array_equal(net.blobs[name].data,
                                          plain.blobs[name].data)
            np.testing.assert_array_equal(net.blobs[name].diff,
                                          plain.blobs[name].diff)
    with pytest.raises(caffe.CaffeError, match='nope'):
        later.keep(['nope'])


def test_a_view_survives_a_replan():
    """A numpy view taken before keep() re-plans still reads its bytes."""
    param = zoo_net('lenet', 4, 1, 28)
    net = build(with_mem(param, 'optimize_train: true'))
    run(net, blobs=['conv1'])
    view = net.blobs['conv1'].data
    before = view.copy()
    net.keep(['pool1'])  # a new plan and a new arena
    np.testing.assert_array_equal(view, before)
