"""caffe.Net from Python: construction forms, the dict views, forward and
backward against numpy, batching, blobs as numpy views, weights on disk,
MemoryData input, module functions, and errors that must not end the
interpreter."""
import gc
import pathlib

from collections import OrderedDict

import numpy as np
import pytest
from google.protobuf import text_format

import caffe
from caffe.proto import caffe_pb2

from pycaffe_testutil import IP_NET, MEMORY_NET, write


@pytest.fixture
def ip_file(tmp_path):
    return write(tmp_path, 'ip.prototxt', IP_NET)


@pytest.fixture
def net(ip_file):
    return caffe.Net(ip_file, caffe.TRAIN)


def ip_reference(net, x):
    w = net.params['ip'][0].data
    b = net.params['ip'][1].data
    return x.dot(w.T) + b


# --------------------------------------------------------------- structure

def test_dict_views(net):
    assert list(net.blobs) == ['data', 'target', 'ip', 'loss']
    assert net.inputs == ['data', 'target']
    assert net.outputs == ['loss']
    assert list(net.params) == ['ip']
    assert len(net.params['ip']) == 2
    assert list(net.layer_dict) == ['data', 'target', 'ip', 'loss']
    assert net.layer_dict['ip'].type == 'InnerProduct'
    assert [l.type for l in net.layers] == ['Input', 'Input', 'InnerProduct',
                                           'EuclideanLoss']
    assert net.blob_loss_weights['loss'] == 1.0
    assert net.blob_loss_weights['ip'] == 0.0
    # Caffe 1.0: OrderedDicts from layer name to blob names, in layer order.
    assert net.top_names == OrderedDict([
        ('data', ['data']), ('target', ['target']), ('ip', ['ip']),
        ('loss', ['loss'])])
    assert net.bottom_names == OrderedDict([
        ('data', []), ('target', []), ('ip', ['data']),
        ('loss', ['ip', 'target'])])
    assert isinstance(net.top_names, OrderedDict)
    assert list(net.bottom_names.keys()) == list(net.layer_dict)
    assert net.top_names is net.top_names
    assert list(net._layer_names) == list(net.layer_dict)
    assert list(net._blob_names) == list(net.blobs)
    assert net._bottom_ids(2) == [0]
    assert net._top_ids(2) == [2]
    assert net.name == 'ipnet'
    # Cached, as in Caffe 1.0.
    assert net.blobs is net.blobs
    assert net.params is net.params


def test_blob_properties(net):
    blob = net.blobs['data']
    assert blob.shape == [4, 3]
    assert (blob.num, blob.channels, blob.height, blob.width) == (4, 3, 1, 1)
    assert blob.count == 12
    assert net.params['ip'][0].shape == [2, 3]
    assert net.params['ip'][-1].shape == [2]
    with pytest.raises(IndexError):
        net.params['ip'][2]
    assert [b.shape for b in net.params['ip']] == [[2, 3], [2]]
    assert "'data'" in repr(blob)


def test_data_is_a_writable_view(net):
    net.blobs['data'].data[...] = 7
    assert np.all(net.blobs['data'].data == 7)
    view = net.blobs['data'].data
    view[1, 2] = -3
    assert net.blobs['data'].data[1, 2] == -3
    assert view.dtype == np.float32 and view.flags.writeable
    net.blobs['ip'].diff[...] = 2
    assert np.all(net.blobs['ip'].diff == 2)


def test_view_keeps_memory_alive(ip_file):
    net = caffe.Net(ip_file, caffe.TEST)
    weights = net.params['ip'][0].data
    data = net.blobs['data'].data
    data[...] = 4
    expected = weights.copy()
    del net
    gc.collect()
    # Both views still point at live memory.
    np.testing.assert_array_equal(weights, expected)
    assert np.all(data == 4)
    data[...] = 5
    assert np.all(data == 5)


def test_standalone_blob():
    blob = caffe.Blob([2, 3])
    assert blob.shape == [2, 3]
    blob.data[...] = np.arange(6).reshape(2, 3)
    assert blob.data.sum() == 15
    blob.reshape(3, 2, 1)
    assert blob.shape == [3, 2, 1] and blob.count == 6
    assert caffe.Blob(5).shape == [5]


# ---------------------------------------------------------- construction

def test_construction_forms(tmp_path, ip_file, net):
    weights = str(tmp_path / 'w.caffemodel')
    net.save(weights)
    w0 = net.params['ip'][0].data.copy()
    for other in (caffe.Net(ip_file, caffe.TEST, weights=weights),
                  caffe.Net(ip_file, phase=caffe.TEST, weights=weights),
                  caffe.Net(network_file=ip_file, phase=caffe.TEST,
                            level=0, stages=[], weights=weights),
                  caffe.Net(ip_file, weights, caffe.TEST),   # legacy form
                  caffe.Net(pathlib.Path(ip_file), caffe.TEST,
                            weights=pathlib.Path(weights))):
        np.testing.assert_array_equal(other.params['ip'][0].data, w0)


def test_from_net_parameter_and_string(ip_file):
    param = caffe_pb2.NetParameter()
    text_format.Merge(IP_NET, param)
    param.layer[2].inner_product_param.num_output = 5
    del param.layer[3]
    net = caffe.Net(param, caffe.TEST)
    assert net.blobs['ip'].shape == [4, 5]
    net2 = caffe.Net.from_string(IP_NET, caffe.TEST)
    assert net2.blobs['ip'].shape == [4, 2]


def test_level_and_stages(tmp_path):
    text = IP_NET + """
    layer { name: "deploy_only" type: "ReLU" bottom: "ip" top: "relu"
            include { stage: "deploy" } }
    layer { name: "level2" type: "Sigmoid" bottom: "ip" top: "sig"
            include { min_level: 2 } }
    """
    f = write(tmp_path, 'staged.prototxt', text)
    assert 'relu' not in caffe.Net(f, caffe.TEST).blobs
    assert 'relu' in caffe.Net(f, caffe.TEST, stages=['deploy']).blobs
    assert 'sig' not in caffe.Net(f, caffe.TEST, level=1).blobs
    assert 'sig' in caffe.Net(f, caffe.TEST, level=2).blobs


# NetState rules as Caffe master's test_net.py checks them: one Input and
# one layer per rule, named after it; which layers a state builds.
RULES_NET = """
layer { name: "data" type: "Input" top: "data"
        input_param { shape { dim: 1 dim: 1 } } }
%s
"""


def rule_layers(rules):
    return RULES_NET % '\n'.join(
        'layer { name: "%s" type: "Power" bottom: "data" top: "%s" %s }'
        % (name, name, rule) for name, rule in rules)


def built(text, phase, **state):
    net = caffe.Net.from_string(text, phase, **state)
    return [n for n in net._layer_names if n != 'data' and
            not n.startswith('data_')]


def test_levels_select_layers():
    text = rule_layers([
        ('NoLevel', ''), ('Level0Only', 'include { max_level: 0 }'),
        ('Level1Only', 'include { min_level: 1 max_level: 1 }'),
        ('Level>=0', 'include { min_level: 0 }'),
        ('Level>=1', 'include { min_level: 1 }')])
    assert built(text, caffe.TEST) == ['NoLevel', 'Level0Only', 'Level>=0']
    assert built(text, caffe.TEST, level=1) == [
        'NoLevel', 'Level1Only', 'Level>=0', 'Level>=1']


def test_stages_select_layers():
    text = rule_layers([
        ('A', 'include { stage: "A" }'), ('B', 'include { stage: "B" }'),
        ('AorB', 'include { stage: "A" } include { stage: "B" }'),
        ('AandB', 'include { stage: "A" stage: "B" }'),
        ('NotA', 'exclude { stage: "A" }')])
    assert built(text, caffe.TEST) == ['NotA']
    assert built(text, caffe.TEST, stages=['A']) == ['A', 'AorB']
    assert built(text, caffe.TEST, stages=['B']) == ['B', 'AorB', 'NotA']
    assert built(text, caffe.TEST, stages=['A', 'B']) == [
        'A', 'B', 'AorB', 'AandB']


def test_all_in_one_train_val_deploy():
    # One file for training, validation and deployment, told apart by
    # phase and stage.
    text = rule_layers([
        ('train', 'include { phase: TRAIN stage: "train" }'),
        ('val', 'include { phase: TEST stage: "val" }'),
        ('deploy', 'include { phase: TEST stage: "deploy" }'),
        ('shared', 'exclude { stage: "deploy" }')])
    assert built(text, caffe.TRAIN, stages=['train']) == ['train', 'shared']
    assert built(text, caffe.TEST, stages=['val']) == ['val', 'shared']
    assert built(text, caffe.TEST, stages=['deploy']) == ['deploy']


def test_backward_between_middle_layers_matches_numpy(tmp_path):
    # data -> ip1 -> ip2 -> loss; backward from ip2 down to ip1 only.
    f = write(tmp_path, 'chain.prototxt', """
    force_backward: true
    layer { name: "data" type: "Input" top: "data"
            input_param { shape { dim: 2 dim: 3 } } }
    layer { name: "ip1" type: "InnerProduct" bottom: "data" top: "ip1"
            inner_product_param { num_output: 4
              weight_filler { type: "gaussian" std: 1 } } }
    layer { name: "ip2" type: "InnerProduct" bottom: "ip1" top: "ip2"
            inner_product_param { num_output: 2
              weight_filler { type: "gaussian" std: 1 } } }
    layer { name: "loss" type: "Reduction" bottom: "ip2" top: "loss"
            loss_weight: 1 }
    """)
    net = caffe.Net(f, caffe.TRAIN)
    net.blobs['data'].data[...] = np.arange(6).reshape(2, 3) / 6.0
    net.forward()
    g = np.array([[1, -1], [2, 0.5]], np.float32)
    net.blobs['ip2'].diff[...] = g
    diffs = net.backward(start='ip2', end='ip1', diffs=['ip1'])
    w1 = net.params['ip1'][0].data
    w2 = net.params['ip2'][0].data
    np.testing.assert_allclose(diffs['ip1'], g.dot(w2), rtol=1e-5)
    np.testing.assert_allclose(diffs['data'], g.dot(w2).dot(w1), rtol=1e-5)
    np.testing.assert_allclose(net.params['ip2'][0].diff,
                               g.T.dot(net.blobs['ip1'].data), rtol=1e-5)


# --------------------------------------------------------- forward/backward

def test_forward_backward_match_numpy(net):
    rng = np.random.RandomState(1)
    x = rng.randn(4, 3).astype(np.float32)
    t = rng.randn(4, 2).astype(np.float32)
    out = net.forward(data=x, target=t)
    y = ip_reference(net, x)
    np.testing.assert_allclose(net.blobs['ip'].data, y, rtol=1e-5, atol=1e-5)
    loss = ((y - t) ** 2).sum() / 4 / 2
    assert set(out) == {'loss'}
    np.testing.assert_allclose(out['loss'], loss, rtol=1e-5)

    net.clear_param_diffs()
    diffs = net.backward()
    assert set(diffs) == {'data', 'target'}
    dy = (y - t) / 4
    w = net.params['ip'][0].data
    np.testing.assert_allclose(diffs['data'], dy.dot(w), rtol=1e-4,
                               atol=1e-5)
    np.testing.assert_allclose(net.params['ip'][0].diff, dy.T.dot(x),
                               rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(net.params['ip'][1].diff, dy.sum(0),
                               rtol=1e-4, atol=1e-5)
    net.clear_param_diffs()
    assert not net.params['ip'][0].diff.any()


def test_forward_start_end_and_extra_blobs(net):
    x = np.ones((4, 3), np.float32)
    net.blobs['data'].data[...] = x
    out = net.forward(end='ip')
    assert set(out) == {'ip'}
    np.testing.assert_allclose(out['ip'], ip_reference(net, x), rtol=1e-5)
    net.blobs['ip'].data[...] = 0
    net.blobs['target'].data[...] = 1
    out = net.forward(start='loss', blobs=['ip'])
    assert set(out) == {'loss', 'ip'}
    assert out['loss'] == pytest.approx(4 * 2 / 4 / 2)
    diffs = net.backward(start='loss', end='ip', diffs=['ip'])
    assert set(diffs) == {'data', 'ip'}
    with pytest.raises(KeyError):
        net.forward(start='nope')


def test_backward_with_top_diffs(tmp_path):
    f = write(tmp_path, 'deploy.prototxt', """
    layer { name: "data" type: "Input" top: "data"
            input_param { shape { dim: 2 dim: 3 } } }
    layer { name: "ip" type: "InnerProduct" bottom: "data" top: "ip"
            inner_product_param { num_output: 2
              weight_filler { type: "gaussian" std: 1 } } }
    force_backward: true
    """)
    net = caffe.Net(f, caffe.TRAIN)
    g = np.array([[1, 0], [0, 2]], np.float32)
    diffs = net.backward(ip=g)
    np.testing.assert_allclose(diffs['data'],
                               g.dot(net.params['ip'][0].data), rtol=1e-5)
    with pytest.raises(Exception, match='do not match net outputs'):
        net.backward(data=g)


def test_forward_all_batches_and_pads(tmp_path):
    f = write(tmp_path, 'deploy.prototxt', """
    layer { name: "data" type: "Input" top: "data"
            input_param { shape { dim: 4 dim: 3 } } }
    layer { name: "ip" type: "InnerProduct" bottom: "data" top: "ip"
            inner_product_param { num_output: 2
              weight_filler { type: "gaussian" std: 1 } } }
    force_backward: true
    """)
    net = caffe.Net(f, caffe.TEST)
    x = np.random.RandomState(2).randn(10, 3).astype(np.float32)
    out = net.forward_all(data=x)
    assert out['ip'].shape == (10, 2)
    np.testing.assert_allclose(out['ip'], ip_reference(net, x), rtol=1e-5,
                               atol=1e-5)
    g = np.ones((10, 2), np.float32)
    blobs, diffs = net.forward_backward_all(data=x, ip=g)
    assert blobs['ip'].shape == (10, 2) and diffs['data'].shape == (10, 3)
    np.testing.assert_allclose(
        diffs['data'], g.dot(net.params['ip'][0].data), rtol=1e-5)


def test_reshape_input(net):
    net.blobs['data'].reshape(6, 3)
    net.blobs['target'].reshape(6, 2)
    net.reshape()
    assert net.blobs['ip'].shape == [6, 2]
    x = np.ones((6, 3), np.float32)
    net.forward(data=x, target=np.zeros((6, 2), np.float32))
    np.testing.assert_allclose(net.blobs['ip'].data, ip_reference(net, x),
                               rtol=1e-5)


# ---------------------------------------------------------- weights on disk

def test_weights_round_trips(tmp_path, ip_file, net):
    binary = str(tmp_path / 'w.caffemodel')
    h5 = str(tmp_path / 'w.caffemodel.h5')
    net.params['ip'][0].data[...] = np.arange(6).reshape(2, 3)
    net.params['ip'][1].data[...] = [5, -5]
    net.save(binary)
    net.save_hdf5(h5)
    for load in (lambda n: n.copy_from(binary), lambda n: n.load_hdf5(h5),
                 lambda n: n.copy_from(h5)):
        other = caffe.Net(ip_file, caffe.TEST)
        load(other)
        for i in range(2):
            np.testing.assert_array_equal(other.params['ip'][i].data,
                                          net.params['ip'][i].data)
    # The file is a NetParameter Python can read, too.
    param = caffe_pb2.NetParameter()
    with open(binary, 'rb') as fh:
        param.ParseFromString(fh.read())
    ip = [l for l in param.layer if l.name == 'ip'][0]
    assert list(ip.blobs[1].data) == [5, -5]


def test_net_surgery_between_nets(ip_file, net):
    other = caffe.Net(ip_file, caffe.TEST)
    for name in net.params:
        for i, blob in enumerate(net.params[name]):
            other.params[name][i].data[...] = blob.data * 2
    np.testing.assert_allclose(other.params['ip'][0].data,
                               2 * net.params['ip'][0].data)
    x = np.ones((4, 3), np.float32)
    other.forward(data=x, target=np.zeros((4, 2), np.float32))
    np.testing.assert_allclose(other.blobs['ip'].data,
                               ip_reference(other, x), rtol=1e-5)
    # share_with makes the weights one memory.
    third = caffe.Net(ip_file, caffe.TEST)
    third.share_with(net)
    net.params['ip'][0].data[...] = 9
    assert np.all(third.params['ip'][0].data == 9)


# ------------------------------------------------------------- MemoryData

def test_set_input_arrays(tmp_path):
    f = write(tmp_path, 'mem.prototxt', MEMORY_NET % {'batch': 2})
    net = caffe.Net(f, caffe.TEST)
    data = np.arange(16, dtype=np.float32).reshape(4, 4, 1, 1)
    labels = np.array([0, 1, 1, 0], np.float32)
    net.set_input_arrays(data, labels)
    del data, labels     # the net keeps them
    gc.collect()
    net.forward()
    np.testing.assert_array_equal(net.blobs['data'].data.ravel(),
                                  np.arange(8))
    np.testing.assert_array_equal(net.blobs['label'].data, [0, 1])
    net.forward()
    np.testing.assert_array_equal(net.blobs['data'].data.ravel(),
                                  np.arange(8, 16))
    np.testing.assert_array_equal(net.blobs['label'].data, [1, 0])


@pytest.mark.parametrize('data, labels, message', [
    (np.zeros((4, 4, 1, 1), np.float64), np.zeros(4, np.float32), 'float32'),
    (np.zeros((4, 1, 1, 8), np.float32)[..., ::2], np.zeros(4, np.float32),
     'contiguous'),
    (np.zeros((4, 3, 1, 1), np.float32), np.zeros(4, np.float32), 'channels'),
    (np.zeros((4, 4, 1), np.float32), np.zeros(4, np.float32), '4-d'),
    (np.zeros((3, 4, 1, 1), np.float32), np.zeros(3, np.float32),
     'multiple of batch size'),
    (np.zeros((4, 4, 1, 1), np.float32), np.zeros(2, np.float32),
     'same first dimension'),
])
def test_set_input_arrays_errors(tmp_path, data, labels, message):
    f = write(tmp_path, 'mem.prototxt', MEMORY_NET % {'batch': 2})
    net = caffe.Net(f, caffe.TEST)
    with pytest.raises(caffe.CaffeError, match=message):
        net.set_input_arrays(data, labels)


def test_set_input_arrays_needs_memory_data(net):
    with pytest.raises(RuntimeError, match='MemoryData'):
        net.set_input_arrays(np.zeros((4, 4, 1, 1), np.float32),
                             np.zeros(4, np.float32))


# -------------------------------------------------------- module functions

def test_module_functions(ip_file):
    assert caffe.__version__ == '1.0.0'
    assert (caffe.TRAIN, caffe.TEST) == (0, 1)
    assert caffe._caffe.TRAIN == 0 and caffe._caffe.TEST == 1
    types = caffe.layer_type_list()
    for kind in ('Data', 'Convolution', 'InnerProduct', 'Python'):
        assert kind in types
    caffe.set_mode_cpu()
    with pytest.raises(RuntimeError, match='no GPU'):
        caffe.set_mode_gpu()
    with pytest.raises(RuntimeError, match='no GPU'):
        caffe.set_device(0)
    caffe.init_log()
    caffe.init_log(2)      # idempotent: glog is initialized once
    caffe.log('pycaffe test log line')
    # master's GPU pointers: in a CUDA build an int, or without a GPU the
    # reason; a CPU-only build has no such attribute (as BVLC's).
    blob = caffe.Blob([2, 3])
    blob.data[...] = 1
    if hasattr(caffe.Blob, '_gpu_data_ptr'):
        for name in ('_gpu_data_ptr', '_gpu_diff_ptr'):
            try:
                assert getattr(blob, name) > 0
            except caffe.CaffeError as e:
                assert 'GPU' in str(e)
        assert (blob.data == 1).all()   # the CPU copy is untouched
    assert caffe.solver_count() == 1
    caffe.set_solver_count(3)
    caffe.set_solver_rank(2)
    assert (caffe.solver_count(), caffe.solver_rank()) == (3, 2)
    caffe.set_solver_count(1)
    caffe.set_solver_rank(0)
    caffe.set_multiprocess(False)
    timer = caffe.Timer()
    timer.start()
    timer.stop()
    assert timer.ms >= 0


def test_init_log_level_and_stderr(capfd):
    # Caffe master's init_log(level, stderr): messages at INFO (0) reach
    # stderr, and are dropped below the level asked for.
    caffe.init_log(0, True)
    caffe.log('visible pycaffe line')
    caffe.init_log(3, True)
    caffe.log('dropped pycaffe line')
    caffe.init_log(0)
    err = capfd.readouterr().err
    assert 'visible pycaffe line' in err
    assert 'dropped pycaffe line' not in err


def test_random_seed_makes_fillers_repeat(ip_file):
    caffe.set_random_seed(42)
    a = caffe.Net(ip_file, caffe.TEST).params['ip'][0].data.copy()
    caffe.set_random_seed(42)
    b = caffe.Net(ip_file, caffe.TEST).params['ip'][0].data.copy()
    c = caffe.Net(ip_file, caffe.TEST).params['ip'][0].data.copy()
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)


def test_layer_objects(net):
    ip = net.layer_dict['ip']
    assert ip.type == 'InnerProduct'
    assert len(ip.blobs) == 2
    bottom = [net.blobs['data']]
    top = [caffe.Blob([1])]
    ip.reshape(bottom, top)
    assert top[0].shape == [4, 2]


# ------------------------------------------------------------------ errors

def test_errors_leave_the_interpreter_alive(tmp_path, ip_file):
    with pytest.raises(caffe.CaffeError, match='missing.prototxt'):
        caffe.Net(str(tmp_path / 'missing.prototxt'), caffe.TEST)
    bad = write(tmp_path, 'bad.prototxt', 'layer { name: "x" type: }')
    with pytest.raises(RuntimeError, match='bad.prototxt:1'):
        caffe.Net(bad, caffe.TEST)
    unknown = write(tmp_path, 'unknown.prototxt',
                    'layer { name: "x" type: "NoSuchType" top: "x" }')
    with pytest.raises(RuntimeError, match='NoSuchType'):
        caffe.Net(unknown, caffe.TEST)
    no_bottom = write(tmp_path, 'nobottom.prototxt',
                      'layer { name: "r" type: "ReLU" bottom: "ghost" '
                      'top: "r" }')
    with pytest.raises(RuntimeError, match='ghost'):
        caffe.Net(no_bottom, caffe.TEST)
    with pytest.raises(caffe.CaffeError, match='nope.caffemodel'):
        caffe.Net(ip_file, caffe.TEST, weights=str(tmp_path /
                                                   'nope.caffemodel'))
    with pytest.raises(ValueError):
        caffe.Net(ip_file, 7)
    with pytest.raises(TypeError):
        caffe.Net(ip_file)
    net = caffe.Net(ip_file, caffe.TRAIN)
    with pytest.raises(ValueError):        # numpy cannot broadcast
        net.forward(data=np.zeros((4, 5)), target=np.zeros((4, 2)))
    with pytest.raises(Exception, match='batch sized'):
        net.forward(data=np.zeros((3, 3)), target=np.zeros((3, 2)))
    with pytest.raises(Exception, match='do not match net inputs'):
        net.forward(data=np.zeros((4, 3)))
    with pytest.raises(RuntimeError):
        net._forward(0, 99)
    with pytest.raises(IndexError):
        net._top_ids(99)
    with pytest.raises(RuntimeError):
        net.copy_from(bad)
    # Still alive and working.
    out = net.forward(data=np.zeros((4, 3)), target=np.zeros((4, 2)))
    assert np.isfinite(out['loss'])
