"""python/train.py, Caffe's Python training script: trains to max_iter,
resumes from --snapshot to the same weights, logs per-layer times with
--timing (through the net and solver callbacks), and refuses --gpus where
there is no GPU (one GPU, or one process per GPU with NCCL)."""
import os
import subprocess
import sys

import numpy as np

import caffe

from pycaffe_testutil import DUMMY_NET, PYTHON_DIR, write


def run_train(args, cwd):
    env = dict(os.environ, PYTHONPATH=PYTHON_DIR)
    proc = subprocess.run(
        [sys.executable, os.path.join(PYTHON_DIR, 'train.py')] + args,
        cwd=str(cwd), env=env, stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT, universal_newlines=True, timeout=120)
    return proc.returncode, proc.stdout


def weights(model, path):
    net = caffe.Net(model, caffe.TEST, weights=path)
    return [b.data.copy() for b in net.params['ip']]


def test_train_resume_and_timing(tmp_path):
    model = write(tmp_path, 'net.prototxt', DUMMY_NET)
    solver = write(tmp_path, 'solver.prototxt', """
        net: "%s" base_lr: 0.1 momentum: 0.9 lr_policy: "fixed"
        max_iter: 4 display: 2 snapshot: 2 snapshot_prefix: "%s"
        random_seed: 7
        """ % (model, tmp_path / 'run'))
    code, out = run_train(['--solver=' + solver, '--timing'], tmp_path)
    assert code == 0, out
    for i, layer in enumerate(['data', 'ip', 'loss']):
        assert 'forw %3d %8s : ' % (i, layer) in out, out
        assert 'back %3d %8s : ' % (i, layer) in out, out
    assert out.count('solver total: ') == 2        # iterations 0 and 2
    final = weights(model, str(tmp_path / 'run_iter_4.caffemodel'))
    os.rename(str(tmp_path / 'run_iter_4.caffemodel'),
              str(tmp_path / 'straight.caffemodel'))
    code, out = run_train(['--solver=' + solver,
                           '--snapshot=' + str(tmp_path /
                                               'run_iter_2.solverstate')],
                          tmp_path)
    assert code == 0, out
    resumed = weights(model, str(tmp_path / 'run_iter_4.caffemodel'))
    for a, b in zip(final, resumed):
        assert np.array_equal(a, b)


def test_gpus_are_refused_clearly(tmp_path):
    model = write(tmp_path, 'net.prototxt', DUMMY_NET)
    solver = write(tmp_path, 'solver.prototxt',
                   'net: "%s" base_lr: 0.1 max_iter: 1' % model)
    for gpus in (['0'], ['0', '1']):
        code, out = run_train(['--solver=' + solver, '--gpus'] + gpus,
                              tmp_path)
        assert code != 0 and ('no GPU' in out or 'NCCL' in out), out
        assert 'Traceback' not in out, out
    code, out = run_train(['--solver=' + solver, '--gpus', '0', '0'],
                          tmp_path)
    assert code != 0 and 'each GPU once' in out, out
    code, out = run_train([], tmp_path)
    assert code != 0 and '--solver' in out
