"""Writes the seed corpora under fuzz/corpus/<target>/ (committed; run
again after changing a fuzz target's fixed nets):

    PYTHONPATH=python /usr/bin/python3 fuzz/make_seeds.py

Seeds are valid inputs of each kind (nets and solvers from models/ and
examples/, legacy formats, weights and states the fixed nets of
fuzz_nets.cpp load, raw and encoded Datums, a mean file), so that the
fuzzer starts from files a user has rather than from noise.
"""
import glob
import io
import os
import re
import shutil
import struct
import sys
import tempfile

import numpy as np
from PIL import Image

import caffe
from caffe.proto import caffe_pb2

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
CORPUS = os.path.join(HERE, 'corpus')


def put(target, name, data):
    d = os.path.join(CORPUS, target)
    os.makedirs(d, exist_ok=True)
    mode = 'wb' if isinstance(data, bytes) else 'w'
    with open(os.path.join(d, name), mode) as f:
        f.write(data)


def read(path, mode='r'):
    with open(path, mode) as f:
        return f.read()


def weights_net_text():
    """The WeightsNet prototxt, taken from fuzz_nets.cpp itself."""
    src = read(os.path.join(HERE, 'fuzz_nets.cpp'))
    return re.search(r'R"\((.*?)\)"', src, re.S).group(1)


def net_seeds():
    small = ['models/cifar10_quick/deploy.prototxt',
             'models/cifar10_quick/train_val.prototxt',
             'examples/fashion_mnist/lenet_train_test.prototxt',
             'examples/siamese/siamese_train_test.prototxt',
             'examples/lstm_sequence/lstm_train_test.prototxt',
             'examples/hdf5_classification/nonlinear_train_test.prototxt',
             'src/caffe/test/test_data/compat_lenet/lenet_b64_const.prototxt']
    for p in small:
        put('net_prototxt', os.path.basename(os.path.dirname(p)) + '_' +
            os.path.basename(p), read(os.path.join(REPO, p)))
    put('net_prototxt', 'weights_net.prototxt', weights_net_text())
    put('net_prototxt', 'mem_param.prototxt', weights_net_text().replace(
        'name: "fuzz_weights_net"',
        'name: "planned"\nmem_param { optimize_train: true optimize_test: '
        'true level: 2 recompute { auto: SQRT } exclude_blob: "fc1" }'))
    put('net_prototxt', 'legacy_input_fields.prototxt', """
name: "legacy_inputs"
input: "data"
input_dim: 2 input_dim: 3 input_dim: 6 input_dim: 6
layer { name: "pool" type: "Pooling" bottom: "data" top: "pool"
  pooling_param { pool: AVE kernel_size: 2 stride: 2 } }
layer { name: "lrn" type: "LRN" bottom: "pool" top: "lrn" }
""")
    put('net_prototxt', 'v1_layers.prototxt', """
name: "v1"
layers { name: "data" type: DUMMY_DATA top: "data" top: "label"
  dummy_data_param { shape { dim: 2 dim: 1 dim: 5 dim: 5 } shape { dim: 2 } } }
layers { name: "conv" type: CONVOLUTION bottom: "data" top: "conv"
  blobs_lr: 1 blobs_lr: 2 weight_decay: 1 weight_decay: 0
  convolution_param { num_output: 2 kernel_size: 3 } }
layers { name: "relu" type: RELU bottom: "conv" top: "conv" }
layers { name: "ip" type: INNER_PRODUCT bottom: "conv" top: "ip"
  inner_product_param { num_output: 2 } }
layers { name: "loss" type: SOFTMAX_LOSS bottom: "ip" bottom: "label" }
""")
    put('net_prototxt', 'v0_padding.prototxt', """
name: "v0"
input: "data"
input_dim: 1 input_dim: 1 input_dim: 6 input_dim: 6
layers { layer { name: "pad" type: "padding" pad: 1 }
  bottom: "data" top: "pad" }
layers { layer { name: "conv" type: "conv" num_output: 2 kernelsize: 3
  weight_filler { type: "constant" value: 1 } } bottom: "pad" top: "conv" }
""")


def solver_seeds():
    for p in glob.glob(os.path.join(REPO, 'models/*/solver.prototxt'))[:4] + \
            glob.glob(os.path.join(REPO, 'examples/*/*solver.prototxt')):
        put('solver_prototxt', os.path.basename(os.path.dirname(p)) + '_' +
            os.path.basename(p), read(p))
    put('solver_prototxt', 'legacy_solver_type.prototxt',
        'base_lr: 0.1 solver_type: NESTEROV momentum: 0.9 max_iter: 2 '
        'lr_policy: "step" stepsize: 1 gamma: 0.5 test_iter: 1 '
        'test_interval: 1 snapshot: 1 display: 1 clip_gradients: 1\n')
    put('solver_prototxt', 'adam_multistep.prototxt',
        'type: "Adam" base_lr: 0.001 momentum: 0.9 momentum2: 0.999 '
        'lr_policy: "multistep" stepvalue: 1 stepvalue: 2 gamma: 0.1 '
        'max_iter: 2 iter_size: 2 average_loss: 2 weight_decay: 0.01 '
        'regularization_type: "L1" snapshot_format: HDF5 snapshot: 1\n')


def snapshot_seeds(work):
    os.chdir(work)
    net_file = os.path.join(work, 'net.prototxt')
    with open(net_file, 'w') as f:
        f.write(weights_net_text())
    for i, kind in enumerate(['SGD', 'Nesterov', 'AdaGrad', 'RMSProp',
                              'AdaDelta', 'Adam']):
        for fmt in ['BINARYPROTO', 'HDF5']:
            s = caffe_pb2.SolverParameter()
            s.net = net_file
            s.type = kind
            s.base_lr = 0.01
            s.lr_policy = 'fixed'
            s.max_iter = 1
            s.snapshot_prefix = 'fuzz_state'
            s.snapshot_format = getattr(caffe_pb2.SolverParameter, fmt)
            if kind not in ('AdaGrad', 'RMSProp'):
                s.momentum = 0.9
            sf = os.path.join(work, 'solver.prototxt')
            with open(sf, 'w') as f:
                f.write(str(s))
            solver = caffe.get_solver(sf)
            solver.step(1)
            solver.snapshot()
            if fmt == 'HDF5':
                if kind == 'Adam':
                    put('hdf5_snapshot', 'weights.caffemodel.h5',
                        read('fuzz_state_iter_1.caffemodel.h5', 'rb'))
                    put('hdf5_snapshot', 'adam.solverstate.h5',
                        read('fuzz_state_iter_1.solverstate.h5', 'rb'))
                continue
            state = read('fuzz_state_iter_1.solverstate', 'rb')
            put('solverstate', kind.lower() + '.solverstate',
                bytes([i]) + state)
            if kind == 'SGD':
                put('caffemodel', 'weights_net.caffemodel',
                    read('fuzz_state_iter_1.caffemodel', 'rb'))
    put('caffemodel', 'compat_lenet_iter_0.caffemodel', read(os.path.join(
        REPO, 'src/caffe/test/test_data/compat_lenet/'
        'lenet_init_iter_0.caffemodel'), 'rb'))


def datum_seeds():
    rng = np.random.RandomState(7)
    pixels = rng.randint(0, 256, size=(3, 8, 8)).astype(np.uint8)
    raw = caffe_pb2.Datum(channels=3, height=8, width=8,
                          data=pixels.tobytes(), label=2)
    put('datum', 'raw_3x8x8', bytes([4, 1, 0, 0]) + raw.SerializeToString())
    floats = caffe_pb2.Datum(channels=1, height=2, width=3, label=1)
    floats.float_data.extend([0.5, -1, 2, 3, 4, 5])
    put('datum', 'float_1x2x3', bytes([0, 8, 1, 0]) +
        floats.SerializeToString())
    for fmt, flags in (('PNG', 0), ('JPEG', 2)):
        buf = io.BytesIO()
        Image.fromarray(pixels.transpose(1, 2, 0)).save(buf, format=fmt)
        enc = caffe_pb2.Datum(data=buf.getvalue(), encoded=True, label=0)
        put('datum', 'encoded_' + fmt.lower(), bytes([6, flags, 1, 0]) +
            enc.SerializeToString())


def mean_seeds():
    mean = caffe_pb2.BlobProto()
    mean.shape.dim.extend([1, 3, 8, 8])
    mean.data.extend([float(v % 7) for v in range(3 * 8 * 8)])
    put('mean_binaryproto', 'mean_1x3x8x8.binaryproto',
        mean.SerializeToString())
    legacy = caffe_pb2.BlobProto(num=1, channels=3, height=8, width=8)
    legacy.data.extend([1.0] * (3 * 8 * 8))
    put('mean_binaryproto', 'legacy_dims.binaryproto',
        legacy.SerializeToString())


def mem_param_seeds():
    for i, seed in enumerate([b'', b'\x02\x00\x01\x00', b'\x01\x01\x01\x01'
                              b'\x05\x05\x00\x05\x05\x05\x05\x05\x05\x05\x05'
                              b'\x05\x00\x01', bytes(range(40)),
                              b'\x00\x02\x00\x00' + b'\x01' * 14 +
                              b'\x00\x02\x00\x90']):
        put('mem_param', 'settings_%d' % i, seed)


def main():
    caffe.init_log(3)
    shutil.rmtree(CORPUS, ignore_errors=True)
    net_seeds()
    solver_seeds()
    work = tempfile.mkdtemp()
    try:
        snapshot_seeds(work)
    finally:
        os.chdir(HERE)
        shutil.rmtree(work)
    datum_seeds()
    mean_seeds()
    mem_param_seeds()
    for t in sorted(os.listdir(CORPUS)):
        print(t, len(os.listdir(os.path.join(CORPUS, t))), 'seeds')


if __name__ == '__main__':
    sys.exit(main())
