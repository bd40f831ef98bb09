"""Memory refused before it runs out, from Python: under a lowered limit
(caffe.set_memory_limit, or CAFFE_MEMORY_LIMIT in the environment) a net
that cannot fit raises caffe.CaffeError saying what it needs and what would
fit; the interpreter lives on, and the suggested setting builds and trains.
"""
import os
import re
import subprocess
import sys

import pytest

import caffe
from pycaffe_testutil import PYTHON_DIR, write

# DummyData 32 x 8 x 64 x 64 through four 3x3 convolutions: activations
# dominate the memory, so a smaller batch or mem_param makes it fit.
NET = """
name: "convs"
%(mem)s
layer { name: "data" type: "DummyData" top: "data" top: "label"
  dummy_data_param { shape { dim: %(batch)d dim: 8 dim: 64 dim: 64 }
    shape { dim: %(batch)d }
    data_filler { type: "gaussian" std: 1 }
    data_filler { type: "constant" value: 1 } } }
layer { name: "c1" type: "Convolution" bottom: "data" top: "c1"
  convolution_param { num_output: 8 kernel_size: 3 pad: 1
    weight_filler { type: "gaussian" std: 0.05 } } }
layer { name: "c2" type: "Convolution" bottom: "c1" top: "c2"
  convolution_param { num_output: 8 kernel_size: 3 pad: 1
    weight_filler { type: "gaussian" std: 0.05 } } }
layer { name: "c3" type: "Convolution" bottom: "c2" top: "c3"
  convolution_param { num_output: 8 kernel_size: 3 pad: 1
    weight_filler { type: "gaussian" std: 0.05 } } }
layer { name: "pool" type: "Pooling" bottom: "c3" top: "pool"
  pooling_param { pool: AVE global_pooling: true } }
layer { name: "fc" type: "InnerProduct" bottom: "pool" top: "fc"
  inner_product_param { num_output: 4
    weight_filler { type: "gaussian" std: 0.1 } } }
layer { name: "loss" type: "SoftmaxWithLoss" bottom: "fc" bottom: "label"
  top: "loss" }
"""


@pytest.fixture
def limit_reset():
    yield
    caffe.set_memory_limit(0)


def test_limit_accepts_sizes_and_reports_room(limit_reset):
    caffe.set_memory_limit('3M')
    assert caffe.memory_limit() == 3 << 20
    room = caffe.memory_room()
    assert room['bytes'] <= 3 << 20
    assert 'CAFFE_MEMORY_LIMIT' in room['limited_by']
    with pytest.raises(caffe.CaffeError, match='not a byte size'):
        caffe.set_memory_limit('lots')
    caffe.set_memory_limit(0)
    assert caffe.memory_room()['bytes'] > 3 << 20


def test_net_over_the_limit_raises_and_suggestion_fits(tmp_path, limit_reset):
    plain = write(tmp_path, 'plain.prototxt', NET % {'mem': '', 'batch': 32})
    caffe.set_memory_limit('12M')
    with pytest.raises(caffe.CaffeError) as e:
        caffe.Net(plain, caffe.TRAIN)
    what = str(e.value)
    assert "net 'convs' (TRAIN) does not fit in host memory" in what
    assert 'plain.prototxt' in what
    batch = re.search(r'a batch of (\d+) instead of 32', what)
    assert batch, what
    smaller = write(tmp_path, 'smaller.prototxt',
                    NET % {'mem': '', 'batch': int(batch.group(1))})
    net = caffe.Net(smaller, caffe.TRAIN)
    net.forward()
    net.backward()
    assert float(net.blobs['loss'].data) > 0


def test_environment_variable_sets_the_limit(tmp_path):
    plain = write(tmp_path, 'plain.prototxt', NET % {'mem': '', 'batch': 32})
    script = ('import caffe\n'
              'try:\n'
              '    caffe.Net(%r, caffe.TRAIN)\n'
              'except caffe.CaffeError as e:\n'
              '    print("refused:", e)\n' % plain)
    env = dict(os.environ, CAFFE_MEMORY_LIMIT='12M', PYTHONPATH=PYTHON_DIR)
    r = subprocess.run([sys.executable, '-c', script], env=env,
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert 'refused:' in r.stdout and 'CAFFE_MEMORY_LIMIT' in r.stdout, \
        r.stdout + r.stderr
