"""Data-parallel training from Python under mpirun: the same weights as
`mpirun -np 2 caffe train`, and an uncaught error on one rank ends the job.
"""
import os
import subprocess

import numpy as np
import pytest

import caffe
from caffe.proto import caffe_pb2
from pycaffe_testutil import PYTHON_DIR, caffe_tool, write

pytestmark = pytest.mark.skipif(
    not caffe._caffe._distributed_supported(),
    reason='this build has no MPI support (libopenmpi-dev missing)')

NET = """
name: "h5net"
layer { name: "data" type: "HDF5Data" top: "data" top: "label"
        hdf5_data_param { source: "list.txt" batch_size: 6 shuffle: true } }
layer { name: "ip1" type: "InnerProduct" bottom: "data" top: "ip1"
        inner_product_param { num_output: 8 weight_filler { type: "xavier" } } }
layer { name: "relu" type: "ReLU" bottom: "ip1" top: "ip1" }
layer { name: "ip2" type: "InnerProduct" bottom: "ip1" top: "ip2"
        inner_product_param { num_output: 3 weight_filler { type: "xavier" } } }
layer { name: "loss" type: "SoftmaxWithLoss" bottom: "ip2" bottom: "label"
        top: "loss" }
"""

SOLVER = """
net: "net.prototxt"
base_lr: 0.1 momentum: 0.9 lr_policy: "fixed" max_iter: 12 display: 4
random_seed: 11 snapshot: 12 snapshot_prefix: "%s"
"""

SCRIPT = """
import sys
import caffe
assert caffe.init_distributed(timeout=60)
assert caffe.solver_count() == 2
solver = caffe.SGDSolver('py_solver.prototxt')
solver.solve()
if caffe.solver_rank() == 0:
    solver.net.save('python_final.caffemodel')
# A file per rank: lines two ranks print may interleave in mpirun's output.
with open('rank%d.txt' % caffe.solver_rank(), 'w') as f:
    f.write('rank %d iter %d' % (caffe.solver_rank(), solver.iter))
"""

FAILING_SCRIPT = """
import time
import caffe
caffe.init_distributed(timeout=60)
solver = caffe.SGDSolver('py_solver.prototxt')
solver.step(2)
if caffe.solver_rank() == 1:
    raise ValueError('rank one gives up')
solver.step(1000000)
"""


def mpirun(args, cwd, ranks=2, timeout=120):
    env = dict(os.environ)
    env.update({'OMPI_ALLOW_RUN_AS_ROOT': '1',
                'OMPI_ALLOW_RUN_AS_ROOT_CONFIRM': '1',
                'OMP_NUM_THREADS': '1', 'OPENBLAS_NUM_THREADS': '1',
                'GLOG_minloglevel': '0'})
    # The ranks import the caffe package this test imported (the sanitized
    # overlay under make test-asan).
    here = os.path.dirname(os.path.dirname(os.path.abspath(caffe.__file__)))
    env['PYTHONPATH'] = os.pathsep.join(
        [here, PYTHON_DIR] + [p for p in env.get('PYTHONPATH', '').split(
            os.pathsep) if p])
    proc = subprocess.run(
        ['mpirun', '--oversubscribe', '--bind-to', 'none', '-np', str(ranks)]
        + list(args), cwd=str(cwd), env=env, stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT, universal_newlines=True, timeout=timeout)
    return proc.returncode, proc.stdout


def weights(path):
    net = caffe_pb2.NetParameter()
    with open(path, 'rb') as f:
        net.ParseFromString(f.read())
    return {(l.name, i): np.array(b.data) for l in net.layer
            for i, b in enumerate(l.blobs)}


@pytest.fixture
def job_dir(tmp_path):
    import h5py
    rng = np.random.RandomState(3)
    names = []
    for k, rows in enumerate([17, 29]):
        name = str(tmp_path / ('part%d.h5' % k))
        with h5py.File(name, 'w') as f:
            f['data'] = rng.rand(rows, 5).astype(np.float32)
            f['label'] = (np.arange(rows) % 3).astype(np.float32)
        names.append(name)
    write(tmp_path, 'list.txt', '\n'.join(names) + '\n')
    write(tmp_path, 'net.prototxt', NET)
    write(tmp_path, 'cli_solver.prototxt', SOLVER % 'cli')
    write(tmp_path, 'py_solver.prototxt', SOLVER % 'py')
    return tmp_path


def test_python_trains_the_weights_of_the_tool(job_dir):
    code, out = mpirun([os.path.abspath(caffe_tool()), 'train',
                        '--solver=cli_solver.prototxt'], job_dir)
    assert code == 0, out
    write(job_dir, 'train.py', SCRIPT)
    code, out = mpirun(['/usr/bin/python3', 'train.py'], job_dir)
    assert code == 0, out
    for rank in (0, 1):
        assert (job_dir / ('rank%d.txt' % rank)).read_text() == \
            'rank %d iter 12' % rank
    cli = weights(str(job_dir / 'cli_iter_12.caffemodel'))
    py = weights(str(job_dir / 'python_final.caffemodel'))
    assert sorted(cli) == sorted(py)
    for key in cli:
        np.testing.assert_array_equal(cli[key], py[key], err_msg=str(key))
    # Rank 0 snapshotted from Python too, once.
    assert os.path.exists(str(job_dir / 'py_iter_12.caffemodel'))


def test_an_uncaught_error_on_one_rank_ends_the_job(job_dir):
    write(job_dir, 'fail.py', FAILING_SCRIPT)
    code, out = mpirun(['/usr/bin/python3', 'fail.py'], job_dir, timeout=60)
    assert code != 0, out
    assert '[rank 1] Error: uncaught Python exception' in out, out
    assert 'rank one gives up' in out, out
