"""mem_param from Python: reading a blob whose memory the planner reused
raises and names the fix; inputs, outputs and excluded blobs read the same
values as the unoptimized net; the plan is visible; mem_param can be set
programmatically."""
import numpy as np
import pytest
from google.protobuf import text_format

import caffe
from caffe.proto import caffe_pb2

from pycaffe_testutil import readable, write

LAYERS = """
name: "chain"
force_backward: true
layer { name: "data" type: "Input" top: "data"
        input_param { shape { dim: 4 dim: 8 } } }
layer { name: "target" type: "Input" top: "target"
        input_param { shape { dim: 4 dim: 8 } } }
layer { name: "ip1" type: "InnerProduct" bottom: "data" top: "ip1"
        inner_product_param { num_output: 8
          weight_filler { type: "gaussian" std: 0.5 } } }
layer { name: "sig1" type: "Sigmoid" bottom: "ip1" top: "sig1" }
layer { name: "ip2" type: "InnerProduct" bottom: "sig1" top: "ip2"
        inner_product_param { num_output: 8
          weight_filler { type: "gaussian" std: 0.5 } } }
layer { name: "sig2" type: "Sigmoid" bottom: "ip2" top: "sig2" }
layer { name: "ip3" type: "InnerProduct" bottom: "sig2" top: "ip3"
        inner_product_param { num_output: 8
          weight_filler { type: "gaussian" std: 0.5 } } }
layer { name: "loss" type: "EuclideanLoss" bottom: "ip3" bottom: "target"
        top: "loss" }
"""

MEM = 'mem_param { optimize_train: true level: 2 %s }\n'


def nets(tmp_path, mem_extra=''):
    plain = caffe.Net(write(tmp_path, 'plain.prototxt', LAYERS), caffe.TRAIN)
    opt = caffe.Net(write(tmp_path, 'opt.prototxt',
                          MEM % mem_extra + LAYERS), caffe.TRAIN)
    opt.share_with(plain)
    return plain, opt


def run(net):
    rng = np.random.RandomState(5)
    net.forward(data=rng.randn(4, 8), target=rng.randn(4, 8))
    net.backward()


def test_reused_blob_refuses_and_names_the_fix(tmp_path):
    _, opt = nets(tmp_path)
    run(opt)
    refused = [name for name in opt.blobs if not readable(opt.blobs[name])]
    assert refused, 'the plan reused no blob; the test net is too small'
    for name in refused:
        with pytest.raises(caffe.BlobNotReadableError) as err:
            opt.blobs[name].data
        assert 'exclude_blob: "%s"' % name in str(err.value)
        assert 'mem_param' in str(err.value)
        # Also what catching Caffe's errors catches.
        assert isinstance(err.value, caffe.CaffeError)
        assert isinstance(err.value, RuntimeError)
    # Inputs, outputs and loss are never shared.
    for name in ('data', 'target', 'loss'):
        assert name not in refused


def test_readable_blobs_match_the_plain_net(tmp_path):
    plain, opt = nets(tmp_path)
    run(plain)
    run(opt)
    for name in ('data', 'target', 'loss'):
        np.testing.assert_array_equal(opt.blobs[name].data,
                                      plain.blobs[name].data)
    for name in ('data', 'target'):
        np.testing.assert_array_equal(opt.blobs[name].diff,
                                      plain.blobs[name].diff)
    for name in opt.blobs:
        for what in ('data', 'diff'):
            if readable(opt.blobs[name], what):
                np.testing.assert_array_equal(
                    getattr(opt.blobs[name], what),
                    getattr(plain.blobs[name], what))
    # Parameters are not activations: always readable, same gradients.
    for name in opt.params:
        for a, b in zip(opt.params[name], plain.params[name]):
            np.testing.assert_array_equal(a.diff, b.diff)


def test_excluded_blob_reads_like_the_plain_net(tmp_path):
    _, probe = nets(tmp_path)
    victim = [n for n in probe.blobs if not readable(probe.blobs[n])][0]
    plain, opt = nets(tmp_path, 'exclude_blob: "%s"' % victim)
    run(plain)
    run(opt)
    np.testing.assert_array_equal(opt.blobs[victim].data,
                                  plain.blobs[victim].data)
    assert list(opt.mem_param.exclude_blob) == [victim]


def test_diff_guard(tmp_path):
    plain, opt = nets(tmp_path)
    run(plain)
    run(opt)
    refused = [n for n in opt.blobs if not readable(opt.blobs[n], 'diff')]
    assert refused
    with pytest.raises(caffe.BlobNotReadableError, match='diff'):
        opt.blobs[refused[0]].diff


def test_dynamic_release(tmp_path):
    plain, opt = nets(tmp_path, 'release: DYNAMIC')
    run(plain)
    run(opt)
    assert opt.memory_report()['release'] == 'DYNAMIC'
    np.testing.assert_array_equal(opt.blobs['loss'].data,
                                  plain.blobs['loss'].data)
    np.testing.assert_array_equal(opt.blobs['data'].diff,
                                  plain.blobs['data'].diff)


def test_test_phase_is_not_optimized_by_default(tmp_path):
    net = caffe.Net(write(tmp_path, 'opt.prototxt', MEM % '' + LAYERS),
                    caffe.TEST)
    assert net.memory_report() is None and net.mem_param is None
    net.forward(data=np.ones((4, 8)), target=np.zeros((4, 8)))
    assert all(readable(net.blobs[n]) for n in net.blobs)


def test_memory_report(tmp_path):
    plain, opt = nets(tmp_path)
    assert plain.memory_report() is None and plain.mem_param is None
    report = opt.memory_report()
    assert report['level'] == 2 and report['release'] == 'STATIC'
    assert report['planned_bytes'] < report['unoptimized_bytes']
    assert report['planned_bytes'] == (report['shared_bytes'] +
                                       report['pinned_bytes'])
    assert report['lower_bound'] <= report['shared_bytes']
    names = {b['name'] for b in report['buffers']}
    assert {'ip1', 'ip1(diff)'} <= names
    pins = {b['name']: b['pin_reason'] for b in report['buffers']}
    assert pins['data'] and pins['ip1'] is None
    assert opt.mem_param.optimize_train and opt.mem_param.level == 2


def test_mem_report_function(tmp_path):
    report = caffe.mem_report(write(tmp_path, 'plain.prototxt', LAYERS),
                              caffe.TRAIN, 2)
    assert report['net_name'] == 'chain'
    assert report['planned_bytes'][2] <= report['planned_bytes'][0]
    assert report['planned_bytes'][2] < report['activation_bytes']
    assert 'chain' in report['text']
    # The peak, split by what the bytes hold; the shares add up.
    shares = report['peak_breakdown']
    assert [s['kind'].split()[0] for s in shares] == [
        'forward', 'forward', "layers'", 'gradients', 'gradient',
        'recomputed', "layers'"]
    assert report['peak_step'] >= 0
    assert 'At the peak' in report['text']
    assert sum(s['bytes'] for s in shares) > 0


def test_mem_param_set_from_python(tmp_path):
    param = caffe_pb2.NetParameter()
    text_format.Merge(LAYERS, param)
    param.mem_param.optimize_train = True
    param.mem_param.exclude_blob.extend(['ip1', 'ip2', 'sig2', 'ip3'])
    net = caffe.Net(param, caffe.TRAIN)
    run(net)
    for name in ('ip1', 'ip2', 'sig2', 'ip3'):
        assert readable(net.blobs[name]), name
    assert net.memory_report() is not None
    text = MEM % '' + LAYERS
    assert caffe.Net.from_string(text, caffe.TRAIN).memory_report()


PY_LAYER = """
import numpy as np
import caffe

class Square(caffe.Layer):
    def setup(self, bottom, top):
        pass

    def reshape(self, bottom, top):
        top[0].reshape(*bottom[0].data.shape)

    def forward(self, bottom, top):
        top[0].data[...] = bottom[0].data ** 2

    def backward(self, top, propagate_down, bottom):
        # Reads both its bottom's and its top's data, as declared.
        bottom[0].diff[...] = (2 * bottom[0].data * top[0].diff
                               + 0 * top[0].data)
"""


def test_python_layer_in_an_optimized_net(tmp_path, monkeypatch):
    write(tmp_path, 'guard_square.py', PY_LAYER)
    monkeypatch.syspath_prepend(str(tmp_path))
    layers = LAYERS.replace(
        'layer { name: "sig2" type: "Sigmoid" bottom: "ip2" top: "sig2" }',
        'layer { name: "sig2" type: "Python" bottom: "ip2" top: "sig2" '
        'python_param { module: "guard_square" layer: "Square" } }')
    plain = caffe.Net(write(tmp_path, 'p.prototxt', layers), caffe.TRAIN)
    opt = caffe.Net(write(tmp_path, 'o.prototxt',
                          MEM % 'check: true' + layers), caffe.TRAIN)
    opt.share_with(plain)
    run(plain)
    run(opt)
    assert opt.blobs['loss'].data == plain.blobs['loss'].data
    for name in opt.params:
        for a, b in zip(opt.params[name], plain.params[name]):
            np.testing.assert_array_equal(a.diff, b.diff)


def test_recompute_settings_from_python(tmp_path):
    # Recomputation set programmatically: the segment after sig1 runs again
    # during backward; gradients equal the unoptimized net's exactly.
    param = caffe_pb2.NetParameter()
    text_format.Merge(LAYERS, param)
    param.mem_param.optimize_train = True
    param.mem_param.recompute.checkpoint.append('sig1')
    opt = caffe.Net(param, caffe.TRAIN)
    plain = caffe.Net(write(tmp_path, 'plain.prototxt', LAYERS), caffe.TRAIN)
    opt.share_with(plain)
    run(plain)
    run(opt)
    report = opt.memory_report()
    assert report['checkpoints'] == ['sig1']
    assert 0 < report['extra_forward_fraction'] < 1
    np.testing.assert_array_equal(opt.blobs['loss'].data,
                                  plain.blobs['loss'].data)
    for name in ('ip1', 'ip2', 'ip3'):
        np.testing.assert_array_equal(opt.params[name][0].diff,
                                      plain.params[name][0].diff)
