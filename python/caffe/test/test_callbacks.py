"""Caffe master's hooks into training from Python: solver callbacks
(add_callback), net callbacks around each layer, apply_update for training
loops written in Python, and the live solver.param."""
import numpy as np
import pytest

import caffe

from pycaffe_testutil import IP_NET, write
from test_solver import fed, solver_file


def test_manual_loop_with_apply_update_matches_step(tmp_path):
    # Momentum and a fixed rate: the update does not depend on iter, which
    # apply_update (as in Caffe master) does not advance.
    stepped = fed(caffe.SGDSolver(solver_file(tmp_path, 'SGD')))
    manual = fed(caffe.SGDSolver(solver_file(tmp_path, 'SGD')))
    for name in stepped.net.params:
        for a, b in zip(stepped.net.params[name], manual.net.params[name]):
            b.data[...] = a.data
    stepped.step(5)
    for _ in range(5):
        manual.net.clear_param_diffs()
        manual.net.forward()
        manual.net.backward()
        manual.apply_update()
    assert manual.iter == 0 and stepped.iter == 5
    for name in stepped.net.params:
        for a, b in zip(stepped.net.params[name], manual.net.params[name]):
            assert np.array_equal(a.data, b.data), name


def test_solver_callbacks_fire_at_start_and_before_the_update(tmp_path):
    solver = fed(caffe.SGDSolver(solver_file(tmp_path, 'SGD')))
    weights = solver.net.params['ip'][0]
    seen = []

    def on_start():
        seen.append(('start', solver.iter, float(np.abs(weights.diff).sum()),
                     weights.data.copy()))

    def on_gradients_ready():
        seen.append(('ready', solver.iter, float(np.abs(weights.diff).sum()),
                     weights.data.copy()))

    solver.add_callback(on_start, on_gradients_ready)
    solver.step(3)
    assert [s[:2] for s in seen] == [('start', 0), ('ready', 0),
                                     ('start', 1), ('ready', 1),
                                     ('start', 2), ('ready', 2)]
    for start, ready in zip(seen[0::2], seen[1::2]):
        assert start[2] == 0.0       # diffs cleared before the passes
        assert ready[2] > 0.0        # gradients computed
        assert np.array_equal(start[3], ready[3])  # not yet updated
    assert not np.array_equal(seen[0][3], seen[2][3])


def test_callback_errors_reach_the_caller_as_raised(tmp_path):
    solver = fed(caffe.SGDSolver(solver_file(tmp_path, 'SGD')))

    def boom():
        raise ValueError('stop here')

    solver.add_callback(lambda: None, boom)
    with pytest.raises(ValueError, match='stop here'):
        solver.step(2)
    assert solver.iter == 0
    with pytest.raises(TypeError):
        solver.add_callback(1, 2)


@pytest.fixture
def ip_net(tmp_path):
    net = caffe.Net(write(tmp_path, 'ip.prototxt', IP_NET), caffe.TRAIN)
    net.blobs['data'].data[...] = np.arange(12).reshape(4, 3) / 12.0
    return net


def test_net_callbacks_run_around_each_layer(ip_net):
    log = []
    ip_net.before_forward(lambda i: log.append(('bf', i)))
    ip_net.after_forward(lambda i: log.append(('af', i)))
    ip_net.before_backward(lambda i: log.append(('bb', i)))
    ip_net.after_backward(lambda i: log.append(('ab', i)))
    ip_net.forward()
    ip_net.backward()
    n = len(ip_net.layers)
    forward = [(k, i) for i in range(n) for k in ('bf', 'af')]
    backward = [(k, i) for i in reversed(range(n)) for k in ('bb', 'ab')]
    assert log == forward + backward
    # forward(start=..., end=...) runs only those layers' callbacks.
    del log[:]
    ip_net.forward(start='ip', end='ip')
    ip = list(ip_net._layer_names).index('ip')
    assert log == [('bf', ip), ('af', ip)]


def test_after_forward_sees_each_layers_output(ip_net):
    tops = {}
    names = list(ip_net._layer_names)

    def grab(i):
        for top in ip_net.top_names[names[i]]:
            tops[top] = ip_net.blobs[top].data.copy()

    ip_net.after_forward(grab)
    out = ip_net.forward()
    assert np.array_equal(tops['loss'], out['loss'])
    w, b = ip_net.params['ip']
    expected = ip_net.blobs['data'].data.dot(w.data.T) + b.data
    np.testing.assert_allclose(tops['ip'], expected, rtol=1e-5)


def test_net_callback_errors_propagate(ip_net):
    def fail(i):
        raise KeyError('layer %d' % i)

    ip_net.before_forward(fail)
    with pytest.raises(KeyError, match='layer 0'):
        ip_net.forward()
    with pytest.raises(TypeError):
        ip_net.after_forward('not callable')


def test_solver_param_is_live_for_base_lr(tmp_path):
    # Two solvers from one state; one has its rate halved mid-run and then
    # moves its weights half as far on the same gradient (momentum 0).
    path = solver_file(tmp_path, 'SGD')
    text = open(path).read().replace('momentum: 0.9', 'momentum: 0')
    path = write(tmp_path, 'plain_sgd.prototxt', text)
    a, b = fed(caffe.SGDSolver(path)), fed(caffe.SGDSolver(path))
    for name in a.net.params:
        for x, y in zip(a.net.params[name], b.net.params[name]):
            y.data[...] = x.data
    start = a.net.params['ip'][0].data.copy()
    b.param.base_lr = a.param.base_lr / 2
    assert b.param.base_lr == pytest.approx(a.param.base_lr / 2)
    a.step(1)
    b.step(1)
    moved_a = a.net.params['ip'][0].data - start
    moved_b = b.net.params['ip'][0].data - start
    np.testing.assert_allclose(moved_b, moved_a / 2, rtol=1e-5, atol=1e-7)
    assert b.param.max_iter == a.param.max_iter
    assert b.param.display == 0 and b.param.layer_wise_reduce
    with pytest.raises(AttributeError, match='only base_lr'):
        b.param.max_iter = 7


def test_nccl_follows_the_build_and_refuses_clearly_without_a_gpu(tmp_path):
    # master's multi-GPU API: uid = NCCL.new_uid(); nccl = NCCL(solver,
    # uid); nccl.bcast(); solver.add_callback(nccl). It needs GPU mode (and
    # a GPU); here it must say so, never crash.
    solver = fed(caffe.SGDSolver(solver_file(tmp_path, 'SGD')))
    with pytest.raises(TypeError):
        caffe.NCCL(None, b'')
    if caffe.has_nccl():
        uid = caffe.NCCL.new_uid()
        assert isinstance(uid, bytes) and len(uid) == 128
        assert uid != caffe.NCCL.new_uid()
        caffe.set_multiprocess(True)   # one process per GPU: accepted
        caffe.set_multiprocess(False)
        with pytest.raises(caffe.CaffeError, match='128 bytes'):
            caffe.NCCL(solver, b'short')
        with pytest.raises(caffe.CaffeError, match='GPU'):
            caffe.NCCL(solver, uid)
    else:
        for call in (caffe.NCCL.new_uid, lambda: caffe.set_multiprocess(True)):
            with pytest.raises(RuntimeError, match='NCCL'):
                call()
    solver.step(1)   # the solver is untouched by the refusals
    assert solver.iter == 1
