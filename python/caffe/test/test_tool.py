"""Weights cross between Python and the C++ `caffe` tool both ways, in the
binary and the HDF5 format."""
import os

import numpy as np
import pytest

import caffe
from caffe.proto import caffe_pb2

from pycaffe_testutil import DUMMY_NET, logged_value, run_tool, write


@pytest.mark.parametrize('ext', ['.caffemodel', '.caffemodel.h5'])
def test_python_weights_score_the_same_in_the_tool(tmp_path, ext):
    model = write(tmp_path, 'dummy.prototxt', DUMMY_NET)
    net = caffe.Net(model, caffe.TEST)
    net.params['ip'][0].data[...] = [[1, -2, 0.5], [0.25, 3, -1]]
    net.params['ip'][1].data[...] = [0.1, -0.3]
    weights = str(tmp_path / ('py' + ext))
    if ext.endswith('.h5'):
        net.save_hdf5(weights)
    else:
        net.save(weights)
    loss = float(net.forward()['loss'])
    code, out = run_tool(['test', '--model=' + model, '--weights=' + weights,
                          '--iterations=2'], cwd=tmp_path)
    assert code == 0, out
    assert logged_value(out, 'loss') == pytest.approx(loss, rel=1e-5)


def test_tool_weights_load_in_python(tmp_path):
    model = write(tmp_path, 'dummy.prototxt', DUMMY_NET)
    solver = write(tmp_path, 'solver.prototxt', """
        net: "%s" base_lr: 0.1 lr_policy: "fixed" max_iter: 10 display: 5
        snapshot_prefix: "%s" random_seed: 7
        """ % (model, tmp_path / 'tool'))
    code, out = run_tool(['train', '--solver=' + solver], cwd=tmp_path)
    assert code == 0, out
    weights = str(tmp_path / 'tool_iter_10.caffemodel')
    assert os.path.exists(weights)

    net = caffe.Net(model, caffe.TEST, weights=weights)
    saved = caffe_pb2.NetParameter()
    with open(weights, 'rb') as f:
        saved.ParseFromString(f.read())
    ip = [layer for layer in saved.layer if layer.name == 'ip'][0]
    for blob, proto in zip(net.params['ip'], ip.blobs):
        np.testing.assert_array_equal(blob.data.ravel(),
                                      np.array(proto.data, np.float32))
    # The tool scores the snapshot as Python does.
    code, out = run_tool(['test', '--model=' + model, '--weights=' + weights,
                          '--iterations=1'], cwd=tmp_path)
    assert code == 0, out
    assert logged_value(out, 'loss') == pytest.approx(
        float(net.forward()['loss']), rel=1e-5)


def test_tool_refuses_missing_weights_cleanly(tmp_path):
    model = write(tmp_path, 'dummy.prototxt', DUMMY_NET)
    code, out = run_tool(['test', '--model=' + model,
                          '--weights=' + str(tmp_path / 'none.caffemodel')],
                         cwd=tmp_path)
    assert code == 1 and 'none.caffemodel' in out
