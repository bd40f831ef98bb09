"""The Python layer: inside nets built from Python (forward, backward,
learnable blobs, errors with tracebacks) and inside the `caffe` tool, which
embeds the interpreter."""
import itertools
import os

import numpy as np
import pytest

import caffe

from pycaffe_testutil import logged_value, run_tool, write

LAYERS = """
import numpy as np
import caffe


class EuclideanLoss(caffe.Layer):
    def setup(self, bottom, top):
        if len(bottom) != 2:
            raise Exception('Need two inputs to compute distance.')
        self.seen = dict(param_str=self.param_str, phase=self.phase)

    def reshape(self, bottom, top):
        if bottom[0].count != bottom[1].count:
            raise Exception('Inputs must have the same dimension.')
        self.diff = np.zeros_like(bottom[0].data, dtype=np.float32)
        top[0].reshape(1)

    def forward(self, bottom, top):
        self.diff[...] = bottom[0].data - bottom[1].data
        top[0].data[...] = np.sum(self.diff ** 2) / bottom[0].num / 2.

    def backward(self, top, propagate_down, bottom):
        for i in range(2):
            if propagate_down[i]:
                sign = 1 if i == 0 else -1
                bottom[i].diff[...] = sign * self.diff / bottom[i].num


class Scale(caffe.Layer):
    \"\"\"top = w * bottom with one learnable scalar w.\"\"\"
    def setup(self, bottom, top):
        self.blobs.add_blob(1)
        self.blobs[0].data[...] = float(self.param_str or 1)

    def reshape(self, bottom, top):
        top[0].reshape(*bottom[0].data.shape)

    def forward(self, bottom, top):
        top[0].data[...] = self.blobs[0].data * bottom[0].data

    def backward(self, top, propagate_down, bottom):
        self.blobs[0].diff[...] += np.sum(top[0].diff * bottom[0].data)
        if propagate_down[0]:
            bottom[0].diff[...] = self.blobs[0].data * top[0].diff


class Data(caffe.Layer):
    \"\"\"A fixed regression problem: y = 3 x.\"\"\"
    def setup(self, bottom, top):
        self.x = np.linspace(-1, 1, 8).astype(np.float32).reshape(8, 1)
        print('Data layer ready for phase %d' % self.phase)

    def reshape(self, bottom, top):
        top[0].reshape(8, 1)
        top[1].reshape(8, 1)

    def forward(self, bottom, top):
        top[0].data[...] = self.x
        top[1].data[...] = 3 * self.x

    def backward(self, top, propagate_down, bottom):
        pass


class Failing(caffe.Layer):
    fail_in = 'forward'

    def setup(self, bottom, top):
        if Failing.fail_in == 'setup':
            raise ValueError('setup went wrong')

    def reshape(self, bottom, top):
        top[0].reshape(*bottom[0].data.shape)

    def forward(self, bottom, top):
        if Failing.fail_in == 'forward':
            raise ValueError('forward went wrong')
        top[0].data[...] = bottom[0].data

    def backward(self, top, propagate_down, bottom):
        raise KeyError('backward went wrong')


class NoReshape(caffe.Layer):
    def forward(self, bottom, top):
        pass
"""

_names = itertools.count()


@pytest.fixture
def pymod(tmp_path, monkeypatch):
    """A fresh module holding LAYERS, importable by name."""
    name = 'pyl_%d' % next(_names)
    write(tmp_path, name + '.py', LAYERS)
    monkeypatch.syspath_prepend(str(tmp_path))
    return name


def loss_net(module, loss_type='Python'):
    loss = ('python_param { module: "%s" layer: "EuclideanLoss" '
            'param_str: "abc" }' % module) if loss_type == 'Python' else ''
    return """
    name: "pyloss"
    force_backward: true
    layer { name: "data" type: "Input" top: "data"
            input_param { shape { dim: 4 dim: 3 } } }
    layer { name: "target" type: "Input" top: "target"
            input_param { shape { dim: 4 dim: 2 } } }
    layer { name: "ip" type: "InnerProduct" bottom: "data" top: "ip"
            inner_product_param { num_output: 2
              weight_filler { type: "gaussian" std: 1 } } }
    layer { name: "loss" type: "%s" bottom: "ip" bottom: "target"
            top: "loss" loss_weight: 1 %s }
    """ % (loss_type, loss)


def test_python_loss_matches_cpp(tmp_path, pymod):
    py_net = caffe.Net(write(tmp_path, 'py.prototxt', loss_net(pymod)),
                       caffe.TRAIN)
    cpp_net = caffe.Net(write(tmp_path, 'cpp.prototxt',
                              loss_net(pymod, 'EuclideanLoss')), caffe.TRAIN)
    cpp_net.share_with(py_net)
    rng = np.random.RandomState(0)
    x = rng.randn(4, 3).astype(np.float32)
    t = rng.randn(4, 2).astype(np.float32)
    py_out = py_net.forward(data=x, target=t)
    cpp_out = cpp_net.forward(data=x, target=t)
    np.testing.assert_allclose(py_out['loss'], cpp_out['loss'], rtol=1e-5)
    py_diff = py_net.backward()
    cpp_diff = cpp_net.backward()
    for name in ('data', 'target'):
        np.testing.assert_allclose(py_diff[name], cpp_diff[name], rtol=1e-5,
                                   atol=1e-6)

    layer = py_net.layer_dict['loss']
    assert type(layer).__name__ == 'EuclideanLoss'
    assert isinstance(layer, caffe.Layer)
    assert layer.type == 'Python'
    assert layer.param_str == 'abc'
    assert layer.seen == {'param_str': 'abc', 'phase': caffe.TRAIN}
    assert caffe.Net(write(tmp_path, 'py2.prototxt', loss_net(pymod)),
                     caffe.TEST).layer_dict['loss'].phase == caffe.TEST


def scale_net(module):
    return """
    name: "scale"
    layer { name: "data" type: "Python" top: "x" top: "y"
            python_param { module: "%(m)s" layer: "Data" } }
    layer { name: "scale" type: "Python" bottom: "x" top: "wx"
            python_param { module: "%(m)s" layer: "Scale" param_str: "0.5" } }
    layer { name: "loss" type: "EuclideanLoss" bottom: "wx" bottom: "y"
            top: "loss" }
    """ % {'m': module}


def test_learnable_python_blob_is_trained(tmp_path, pymod):
    net_file = write(tmp_path, 'scale.prototxt', scale_net(pymod))
    solver = caffe.SGDSolver(write(tmp_path, 'solver.prototxt', """
        net: "%s" base_lr: 0.5 lr_policy: "fixed" max_iter: 100 display: 0
        snapshot_prefix: "%s" """ % (net_file, tmp_path / 'snap')))
    assert list(solver.net.params) == ['scale']
    w = solver.net.params['scale'][0]
    assert w.data[0] == pytest.approx(0.5)
    solver.step(60)
    assert w.data[0] == pytest.approx(3.0, abs=1e-2)
    # The layer's blob is the same memory the solver updates.
    assert solver.net.layer_dict['scale'].blobs[0].data[0] == w.data[0]


def test_python_layers_reshape_with_their_input(tmp_path, pymod):
    # Caffe master's test_reshape: a Python layer follows its bottom's
    # new shape on net.reshape().
    f = write(tmp_path, 'reshape.prototxt', """
    layer { name: "data" type: "Input" top: "data"
            input_param { shape { dim: 2 dim: 3 } } }
    layer { name: "scale" type: "Python" bottom: "data" top: "out"
            python_param { module: "%s" layer: "Scale" param_str: "2" } }
    """ % pymod)
    net = caffe.Net(f, caffe.TEST)
    for shape in ((5, 3), (1, 4, 6)):
        net.blobs['data'].reshape(*shape)
        net.reshape()
        net.blobs['data'].data[...] = 1.5
        assert net.forward()['out'].shape == shape
        assert np.all(net.blobs['out'].data == 3.0)


def test_python_layer_blobs_save_load_and_share(tmp_path, pymod):
    # Caffe master's test_parameter: learnable Python blobs go through
    # save / copy_from and share_with like any layer's parameters.
    net_file = write(tmp_path, 'scale.prototxt', scale_net(pymod))
    a = caffe.Net(net_file, caffe.TRAIN)
    a.params['scale'][0].data[...] = 1.25
    weights = str(tmp_path / 'scale.caffemodel')
    a.save(weights)
    b = caffe.Net(net_file, caffe.TRAIN)
    assert b.params['scale'][0].data[0] == pytest.approx(0.5)
    b.copy_from(weights)
    assert b.params['scale'][0].data[0] == 1.25
    c = caffe.Net(net_file, caffe.TRAIN, weights=weights)
    assert c.params['scale'][0].data[0] == 1.25
    d = caffe.Net(net_file, caffe.TEST)
    d.share_with(a)
    a.params['scale'][0].data[...] = -4
    assert d.params['scale'][0].data[0] == -4   # one blob, two nets
    assert d.forward(blobs=['wx'])['wx'][0, 0] == pytest.approx(-4 * -1.0)


def failing_net(module):
    return """
    layer { name: "data" type: "Input" top: "data"
            input_param { shape { dim: 2 dim: 2 } } }
    layer { name: "fail" type: "Python" bottom: "data" top: "out"
            python_param { module: "%s" layer: "Failing" } }
    force_backward: true
    """ % module


def test_exceptions_carry_the_traceback(tmp_path, pymod):
    net = caffe.Net(write(tmp_path, 'f.prototxt', failing_net(pymod)),
                    caffe.TRAIN)
    with pytest.raises(caffe.CaffeError) as err:
        net.forward()
    text = str(err.value)
    assert "layer 'fail'" in text and 'Traceback' in text
    assert 'ValueError: forward went wrong' in text
    assert pymod + '.py' in text          # the file and line of the raise
    with pytest.raises(RuntimeError, match='KeyError'):
        net.backward()
    # The net and the interpreter carry on.
    module = __import__(pymod)
    module.Failing.fail_in = 'nowhere'
    net.blobs['data'].data[...] = 2
    assert np.all(net.forward()['out'] == 2)


def test_creation_errors(tmp_path, pymod):
    module = __import__(pymod)
    module.Failing.fail_in = 'setup'
    with pytest.raises(caffe.CaffeError, match='setup went wrong'):
        caffe.Net(write(tmp_path, 'f.prototxt', failing_net(pymod)),
                  caffe.TEST)
    cases = [
        ('module: "no_such_module_xyz" layer: "X"', 'no_such_module_xyz'),
        ('module: "%s" layer: "Missing"' % pymod, 'Missing'),
        ('module: "%s" layer: "NoReshape"' % pymod, 'reshape'),
        ('layer: "X"', 'python_param needs'),
    ]
    for python_param, message in cases:
        text = """
        layer { name: "data" type: "Input" top: "data"
                input_param { shape { dim: 2 } } }
        layer { name: "p" type: "Python" bottom: "data" top: "p"
                python_param { %s } }
        """ % python_param
        with pytest.raises(caffe.CaffeError, match=message):
            caffe.Net.from_string(text, caffe.TEST)


def test_threads_share_the_gil(tmp_path, pymod):
    """forward runs without the GIL and Python layers take it back: two
    threads running nets with Python layers neither deadlock nor mix up
    results."""
    import threading
    nets = [caffe.Net(write(tmp_path, 'n%d.prototxt' % i, loss_net(pymod)),
                      caffe.TRAIN) for i in range(2)]
    expected, results = [], [None, None]
    for i, net in enumerate(nets):
        net.blobs['data'].data[...] = i + 1
        net.blobs['target'].data[...] = 0
        expected.append(float(net.forward()['loss']))

    def work(i):
        losses = set()
        for _ in range(200):
            losses.add(float(nets[i].forward()['loss']))
            nets[i].backward()
        results[i] = losses

    threads = [threading.Thread(target=work, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not any(t.is_alive() for t in threads)
    assert results == [{expected[0]}, {expected[1]}]


# ------------------------------------------------------------ in the tool

def test_tool_trains_a_net_with_python_layers(tmp_path):
    # The module sits next to the prototxts; the tool runs elsewhere.
    models = tmp_path / 'models'
    models.mkdir()
    write(models, 'tool_layers.py', LAYERS)
    net_file = write(models, 'scale.prototxt', scale_net('tool_layers'))
    solver = write(models, 'solver.prototxt', """
        net: "%s" base_lr: 0.5 lr_policy: "fixed" max_iter: 40 display: 10
        snapshot_prefix: "%s" random_seed: 1
        """ % (net_file, tmp_path / 'snap'))
    code, out = run_tool(['train', '--solver=' + solver], cwd=tmp_path)
    assert code == 0, out
    assert 'Optimization Done' in out
    # Python's buffered stdout reaches the pipe before the tool exits.
    assert 'Data layer ready for phase 0' in out
    weights = str(tmp_path / 'snap_iter_40.caffemodel')
    assert os.path.exists(weights)
    assert logged_value(out, 'loss') < 0.01
    # The trained weights load in Python; the learned scale is ~3.
    import sys
    sys.path.insert(0, str(models))
    try:
        net = caffe.Net(net_file, caffe.TEST, weights=weights)
    finally:
        sys.path.remove(str(models))
    assert net.params['scale'][0].data[0] == pytest.approx(3.0, abs=1e-2)


def test_tool_reports_python_errors(tmp_path):
    write(tmp_path, 'tool_failing.py', LAYERS)
    model = write(tmp_path, 'f.prototxt', failing_net('tool_failing'))
    code, out = run_tool(['time', '--model=' + model, '--iterations=1'],
                         cwd=tmp_path)
    assert code == 1, out                  # an error exit, not a crash
    assert 'Error:' in out and 'ValueError: forward went wrong' in out
    assert 'Traceback' in out


def test_tool_refuses_a_caffe_package_from_another_build(tmp_path,
                                                         monkeypatch):
    # A `caffe` package whose compiled module is not this build's (here a
    # stand-in that registers nothing) cannot receive blobs; the tool says
    # which package it found instead of failing inside the layer.
    fake = tmp_path / 'other_build' / 'caffe'
    fake.mkdir(parents=True)
    write(fake, '__init__.py', 'from . import _caffe\n')
    write(fake, '_caffe.py', '# not LeanCaffe\n')
    write(tmp_path, 'tool_layers2.py', LAYERS)
    model = write(tmp_path, 'scale.prototxt', scale_net('tool_layers2'))
    monkeypatch.setenv('PYTHONPATH', str(tmp_path / 'other_build'))
    code, out = run_tool(['time', '--model=' + model, '--iterations=1'],
                         cwd=tmp_path)
    assert code == 1, out
    assert 'comes from another build' in out
    assert str(fake / '_caffe.py') in out
