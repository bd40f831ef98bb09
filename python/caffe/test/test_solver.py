"""Solvers driven from Python: every solver type learns a small generated
problem, snapshots restore to the same weights as continuing, solve()
tests and snapshots on the solver's schedule, Ctrl-C stops a step, and
errors raise."""
import os
import signal
import threading

import numpy as np
import pytest

import caffe

from pycaffe_testutil import MEMORY_NET, write

BATCH = 16

SOLVER = """
net: "%(net)s"
type: "%(type)s"
base_lr: %(lr)s
lr_policy: "fixed"
max_iter: %(max_iter)d
display: 0
snapshot_prefix: "%(prefix)s"
snapshot_format: %(format)s
random_seed: 3
%(extra)s
"""

EXTRA = {
    'SGD': ('0.5', 'momentum: 0.9'),
    'Nesterov': ('0.5', 'momentum: 0.9'),
    'AdaGrad': ('0.5', ''),
    'RMSProp': ('0.05', 'rms_decay: 0.9'),
    'AdaDelta': ('1.0', 'momentum: 0.95 delta: 1e-4'),
    'Adam': ('0.05', 'momentum: 0.9 momentum2: 0.999'),
}


def problem():
    """A linearly separable 2-class problem of one batch, so every
    iteration sees the same data (and restores are comparable)."""
    rng = np.random.RandomState(0)
    x = rng.randn(BATCH, 4, 1, 1).astype(np.float32)
    y = (x.reshape(BATCH, 4).dot([1.0, -1.0, 0.5, 2.0]) > 0)
    return x, y.astype(np.float32)


def solver_file(tmp_path, solver_type='SGD', max_iter=100, fmt='BINARYPROTO',
                net_text=None):
    net = write(tmp_path, 'net.prototxt',
                net_text or MEMORY_NET % {'batch': BATCH})
    lr, extra = EXTRA[solver_type]
    return write(tmp_path, 'solver_%s.prototxt' % solver_type, SOLVER % {
        'net': net, 'type': solver_type, 'lr': lr, 'max_iter': max_iter,
        'prefix': str(tmp_path / 'snap'), 'format': fmt, 'extra': extra})


def fed(solver):
    solver.net.set_input_arrays(*problem())
    return solver


def loss_now(solver):
    return float(solver.net.forward()['loss'])


@pytest.mark.parametrize('cls', [caffe.SGDSolver, caffe.NesterovSolver,
                                 caffe.AdaGradSolver, caffe.RMSPropSolver,
                                 caffe.AdaDeltaSolver, caffe.AdamSolver])
def test_every_solver_learns(tmp_path, cls):
    name = cls.__name__[:-len('Solver')]
    solver = fed(cls(solver_file(tmp_path, name)))
    assert solver.type == name
    assert solver.iter == 0
    before = loss_now(solver)
    solver.step(30)
    assert solver.iter == 30
    after = loss_now(solver)
    assert after < 0.5 * before, (before, after)


def test_get_solver_picks_the_type(tmp_path):
    solver = caffe.get_solver(solver_file(tmp_path, 'Adam'))
    assert isinstance(solver, caffe.AdamSolver)
    assert isinstance(solver, caffe.Solver)
    assert solver.type == 'Adam'
    param = solver.param
    assert param.type == 'Adam' and param.base_lr == pytest.approx(0.05)
    assert solver.test_nets == []


@pytest.mark.parametrize('fmt, ext', [('BINARYPROTO', ''), ('HDF5', '.h5')])
def test_snapshot_restore_equals_continuing(tmp_path, fmt, ext):
    path = solver_file(tmp_path, 'SGD', max_iter=20, fmt=fmt)
    first = fed(caffe.SGDSolver(path))
    first.step(10)
    first.snapshot()
    state = str(tmp_path / ('snap_iter_10.solverstate' + ext))
    assert os.path.exists(state)
    assert os.path.exists(str(tmp_path / ('snap_iter_10.caffemodel' + ext)))
    first.step(10)
    expected = [b.data.copy() for b in first.net.params['ip']]

    second = fed(caffe.SGDSolver(path))
    second.restore(state)
    assert second.iter == 10
    second.step(10)
    for blob, want in zip(second.net.params['ip'], expected):
        np.testing.assert_array_equal(blob.data, want)

    third = fed(caffe.SGDSolver(path))
    third.solve(state)             # resumes, runs to max_iter, snapshots
    assert third.iter == 20
    for blob, want in zip(third.net.params['ip'], expected):
        np.testing.assert_array_equal(blob.data, want)
    assert os.path.exists(str(tmp_path / ('snap_iter_20.caffemodel' + ext)))


COUNTER = """
import caffe

class Counter(caffe.Layer):
    forwards = {}

    def setup(self, bottom, top):
        Counter.forwards[self.param_str] = 0

    def reshape(self, bottom, top):
        pass

    def forward(self, bottom, top):
        Counter.forwards[self.param_str] += 1

    def backward(self, top, propagate_down, bottom):
        pass
"""

TRAIN_TEST_NET = """
name: "traintest"
layer { name: "data" type: "DummyData" top: "data" top: "label"
        dummy_data_param {
          shape { dim: 4 dim: 3 } shape { dim: 4 }
          data_filler { type: "gaussian" std: 1 }
          data_filler { type: "constant" value: 1 } } }
layer { name: "ip" type: "InnerProduct" bottom: "data" top: "ip"
        inner_product_param { num_output: 2
          weight_filler { type: "gaussian" std: 0.1 } } }
layer { name: "loss" type: "SoftmaxWithLoss" bottom: "ip" bottom: "label"
        top: "loss" }
layer { name: "count" type: "Python" bottom: "ip"
        python_param { module: "solver_counter" layer: "Counter"
                       param_str: "test" }
        include { phase: TEST } }
"""


def test_solve_follows_the_schedule(tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(tmp_path))
    write(tmp_path, 'solver_counter.py', COUNTER)
    net = write(tmp_path, 'traintest.prototxt', TRAIN_TEST_NET)
    path = write(tmp_path, 'solver.prototxt', """
        net: "%s"
        test_iter: 3
        test_interval: 5
        base_lr: 0.1
        lr_policy: "fixed"
        max_iter: 10
        display: 0
        snapshot: 4
        snapshot_prefix: "%s"
        random_seed: 1
        """ % (net, tmp_path / 'sched'))
    solver = caffe.SGDSolver(path)
    assert len(solver.test_nets) == 1
    assert 'count' in solver.test_nets[0].layer_dict
    assert 'count' not in solver.net.layer_dict
    solver.solve()
    assert solver.iter == 10
    import solver_counter
    # Tests at iterations 0 (test_initialization), 5 and 10, 3 batches each.
    assert solver_counter.Counter.forwards['test'] == 9
    for it in (4, 8, 10):
        assert os.path.exists(str(tmp_path / ('sched_iter_%d.caffemodel'
                                              % it)))
    assert not os.path.exists(str(tmp_path / 'sched_iter_5.caffemodel'))


def test_nets_outlive_their_solver(tmp_path):
    # Caffe master's test_net_memory: nets taken from a solver stay
    # usable after the solver is gone.
    solver = fed(caffe.SGDSolver(solver_file(tmp_path)))
    solver.step(2)
    nets = [solver.net] + list(solver.test_nets)
    weights = nets[0].params['ip'][0].data.copy()
    del solver
    import gc
    gc.collect()
    for net in nets:
        for blob in net.blobs.values():
            blob.data.sum()
        for blobs in net.params.values():
            for blob in blobs:
                blob.data.sum()
    assert np.array_equal(nets[0].params['ip'][0].data, weights)
    assert np.isfinite(nets[0].forward()['loss'])


def test_snapshot_at_iteration_zero_and_solve_from_zero(tmp_path):
    # Caffe master's test_snapshot and test_solve: snapshot() before any
    # step writes <prefix>_iter_0 files; solve() runs to max_iter.
    solver = fed(caffe.SGDSolver(solver_file(tmp_path, max_iter=7)))
    solver.snapshot()
    for ext in ('caffemodel', 'solverstate'):
        assert os.path.exists(str(tmp_path / ('snap_iter_0.' + ext)))
    assert solver.iter == 0
    solver.solve()
    assert solver.iter == 7
    assert os.path.exists(str(tmp_path / 'snap_iter_7.caffemodel'))


def test_share_weights(tmp_path):
    path = solver_file(tmp_path)
    solver = fed(caffe.SGDSolver(path))
    test_net = caffe.Net(str(tmp_path / 'net.prototxt'), caffe.TEST)
    solver.share_weights(test_net)
    solver.step(5)
    np.testing.assert_array_equal(test_net.params['ip'][0].data,
                                  solver.net.params['ip'][0].data)
    assert solver.net.params['ip'][0].data.any()


def test_ctrl_c_stops_a_step(tmp_path):
    solver = fed(caffe.SGDSolver(solver_file(tmp_path)))
    timer = threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGINT))
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            solver.step(10 ** 7)
    finally:
        timer.cancel()
    assert 0 < solver.iter < 10 ** 7
    solver.step(1)        # the solver still works


def test_solver_errors(tmp_path):
    with pytest.raises(caffe.CaffeError, match='missing_solver'):
        caffe.SGDSolver(str(tmp_path / 'missing_solver.prototxt'))
    no_net = write(tmp_path, 'nonet.prototxt',
                   'net: "%s"\nbase_lr: 0.1\n' % (tmp_path / 'ghost.prototxt'))
    with pytest.raises(RuntimeError, match='ghost.prototxt'):
        caffe.get_solver(no_net)
    unknown = write(tmp_path, 'unknown.prototxt', 'net: "%s"\ntype: "Magic"\n'
                    % write(tmp_path, 'n.prototxt',
                            MEMORY_NET % {'batch': BATCH}))
    with pytest.raises(RuntimeError, match='Magic'):
        caffe.get_solver(unknown)
    momentum = write(tmp_path, 'adagrad.prototxt',
                     'net: "%s"\nmomentum: 0.9\n' % (tmp_path / 'n.prototxt'))
    with pytest.raises(RuntimeError, match='AdaGrad'):
        caffe.AdaGradSolver(momentum)
    solver = caffe.SGDSolver(solver_file(tmp_path))
    # No data handed to the MemoryData layer yet.
    with pytest.raises(RuntimeError):
        solver.step(1)
    with pytest.raises(caffe.CaffeError):
        solver.restore(str(tmp_path / 'missing.solverstate'))
    fed(solver).step(1)
    assert solver.iter == 1
