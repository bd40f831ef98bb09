"""BVLC Caffe's example nets and reference models, as their files are laid
out in a Caffe tree (examples/mnist, examples/cifar10, examples/siamese,
examples/net_surgery, examples/pascal-multilabel-with-datalayer,
models/bvlc_*, models/finetune_flickr_style), run unchanged on small data
made here with LeanCaffe's own converters.

Each net parses, builds in every phase its solver uses, draws with
draw_net.py, and trains (solver-driven updates through apply_update, which
skips the full test passes of the published schedules) or runs a forward
pass; the checks compare with what Caffe's documentation says the net is:
layer shapes, outputs, solver types, shared weights.  Paths inside the
files are relative to the Caffe root, so each test runs in a temporary
root holding copies of those directories and the data."""
import os
import shutil
import struct
import subprocess
import sys

import numpy as np
import pytest
from google.protobuf import text_format
from PIL import Image

import caffe
from caffe.proto import caffe_pb2

from pycaffe_testutil import REPO, caffe_tool


def tool(name, *args):
    path = os.path.join(os.path.dirname(caffe_tool()), name)
    proc = subprocess.run([path] + [str(a) for a in args],
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          universal_newlines=True, timeout=300)
    assert proc.returncode == 0, proc.stdout


def write_idx(prefix, images, labels):
    n, rows, cols = images.shape
    with open(prefix + '-images-idx3-ubyte', 'wb') as f:
        f.write(struct.pack('>IIII', 2051, n, rows, cols))
        f.write(images.astype(np.uint8).tobytes())
    with open(prefix + '-labels-idx1-ubyte', 'wb') as f:
        f.write(struct.pack('>II', 2049, n))
        f.write(labels.astype(np.uint8).tobytes())
    return prefix + '-images-idx3-ubyte', prefix + '-labels-idx1-ubyte'


def digits(n, seed):
    """n 28x28 'digits': class k is a bright bar at row 2k, plus noise."""
    rng = np.random.RandomState(seed)
    labels = np.arange(n) % 10
    images = rng.randint(0, 40, size=(n, 28, 28))
    for i, k in enumerate(labels):
        images[i, 2 * k + 4:2 * k + 7, 4:24] = 250
    return images, labels


@pytest.fixture
def root(tmp_path, monkeypatch):
    """A Caffe root: copies of the example and model directories."""
    for sub in ('examples/mnist', 'examples/cifar10', 'examples/siamese',
                'examples/net_surgery', 'examples/pycaffe',
                'examples/pascal-multilabel-with-datalayer', 'models'):
        shutil.copytree(os.path.join(REPO, sub), str(tmp_path / sub),
                        symlinks=True)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def make_mnist(root):
    for split, n in (('train', 40), ('t10k', 20)):
        images, labels = digits(n, seed=len(split))
        imgs, labs = write_idx(str(root / 'examples/mnist' / split), images,
                               labels)
        db = 'train' if split == 'train' else 'test'
        tool('convert_mnist_data', imgs, labs,
             root / ('examples/mnist/mnist_%s_lmdb' % db))
        tool('convert_mnist_siamese_data', imgs, labs,
             root / ('examples/siamese/mnist_siamese_%s_leveldb' % db))


def write_images(directory, n, size, seed):
    """n RGB images in directory; returns 'name label' lines."""
    rng = np.random.RandomState(seed)
    os.makedirs(str(directory), exist_ok=True)
    lines = []
    for i in range(n):
        pixels = rng.randint(0, 256, size=(size, size, 3)).astype(np.uint8)
        name = 'im%03d.png' % i
        Image.fromarray(pixels).save(os.path.join(str(directory), name))
        lines.append('%s %d' % (name, i % 10))
    return lines


def make_imageset(root, subdir, db_names, n, size, mean_file=None):
    images = root / 'images' / subdir
    lines = write_images(images, n, size, seed=n + size)
    (images / 'list.txt').write_text('\n'.join(lines) + '\n')
    for db in db_names:
        os.makedirs(os.path.dirname(str(root / db)), exist_ok=True)
        tool('convert_imageset', '--resize_height=%d' % size,
             '--resize_width=%d' % size, str(images) + '/',
             images / 'list.txt', root / db)
    if mean_file:
        os.makedirs(os.path.dirname(str(root / mean_file)), exist_ok=True)
        tool('compute_image_mean', root / db_names[0], root / mean_file)
    return images, lines


def train_two_iterations(solver_file):
    """Builds the solver the file describes and applies two of its updates
    to the training net's own batches; returns the solver."""
    solver = caffe.get_solver(solver_file)
    losses = []
    for _ in range(2):
        solver.net.clear_param_diffs()
        out = solver.net.forward()
        solver.net.backward()
        solver.apply_update()
        losses.append(sum(float(np.sum(v)) for k, v in out.items()
                          if solver.net.blob_loss_weights[k] != 0))
    assert all(np.isfinite(losses)), losses
    for net in solver.test_nets:
        out = net.forward()
        assert all(np.all(np.isfinite(v)) for v in out.values())
    return solver


def param_shapes(net):
    return {name: [tuple(b.data.shape) for b in blobs]
            for name, blobs in net.params.items()}


def draw(prototxt, root):
    out = str(root / (os.path.basename(prototxt) + '.png'))
    proc = subprocess.run(
        [sys.executable, os.path.join(REPO, 'python', 'draw_net.py'),
         prototxt, out], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        universal_newlines=True, timeout=120,
        env=dict(os.environ, PYTHONPATH=os.path.join(REPO, 'python')))
    assert proc.returncode == 0, proc.stdout
    with open(out, 'rb') as f:
        assert f.read(8) == b'\x89PNG\r\n\x1a\n'


LENET_SHAPES = {'conv1': [(20, 1, 5, 5), (20,)],
                'conv2': [(50, 20, 5, 5), (50,)],
                'ip1': [(500, 800), (500,)], 'ip2': [(10, 500), (10,)]}

MNIST_SOLVERS = {
    'lenet_solver.prototxt': 'SGD',
    'lenet_solver_adam.prototxt': 'Adam',
    'lenet_solver_rmsprop.prototxt': 'RMSProp',
    'lenet_adadelta_solver.prototxt': 'AdaDelta',
    'lenet_multistep_solver.prototxt': 'SGD',
    'lenet_consolidated_solver.prototxt': 'SGD',
    'mnist_autoencoder_solver.prototxt': 'SGD',
    'mnist_autoencoder_solver_adagrad.prototxt': 'AdaGrad',
    'mnist_autoencoder_solver_nesterov.prototxt': 'Nesterov',
    'mnist_autoencoder_solver_adadelta.prototxt': 'AdaDelta',
}


def test_mnist_examples_train(root):
    make_mnist(root)
    for name, kind in sorted(MNIST_SOLVERS.items()):
        solver = train_two_iterations('examples/mnist/' + name)
        assert solver.type == kind, name
        if name.startswith('lenet'):
            assert param_shapes(solver.net) == LENET_SHAPES, name
        else:
            sizes = [blobs[0].data.shape[0]
                     for blobs in solver.net.params.values()]
            assert sizes == [1000, 500, 250, 30, 250, 500, 1000, 784], name
        # Consolidated and autoencoder solvers test on the training and
        # the test set, chosen by stage.
        staged = 'consolidated' in name or 'autoencoder' in name
        assert len(solver.test_nets) == (2 if staged else 1), name
    deploy = caffe.Net('examples/mnist/lenet.prototxt', caffe.TEST)
    assert param_shapes(deploy) == LENET_SHAPES
    assert deploy.forward()['prob'].shape == (64, 10)
    for name in ('lenet_train_test', 'mnist_autoencoder', 'lenet'):
        draw('examples/mnist/%s.prototxt' % name, root)


def test_siamese_example_shares_its_towers(root):
    make_mnist(root)
    solver = train_two_iterations('examples/siamese/mnist_siamese_solver.prototxt')
    net = solver.net
    assert net.blobs['pair_data'].data.shape == (64, 2, 28, 28)
    for layer in ('conv1', 'conv2', 'ip1', 'ip2', 'feat'):
        for a, b in zip(net.params[layer], net.params[layer + '_p']):
            assert np.array_equal(a.data, b.data), layer
            a.data.flat[0] += 1      # one blob, two layers
            assert a.data.flat[0] == b.data.flat[0], layer
    assert net.blobs['feat'].data.shape == (64, 2)
    deploy = caffe.Net('examples/siamese/mnist_siamese.prototxt', caffe.TEST)
    assert deploy.blobs['feat'].data.shape == (10000, 2)
    draw('examples/siamese/mnist_siamese_train_test.prototxt', root)


CIFAR_SOLVERS = ['cifar10_quick_solver.prototxt',
                 'cifar10_quick_solver_lr1.prototxt',
                 'cifar10_full_solver.prototxt',
                 'cifar10_full_solver_lr1.prototxt',
                 'cifar10_full_solver_lr2.prototxt',
                 'cifar10_full_sigmoid_solver.prototxt',
                 'cifar10_full_sigmoid_solver_bn.prototxt']


def test_cifar10_examples_train(root):
    make_imageset(root, 'cifar', ['examples/cifar10/cifar10_train_lmdb',
                                  'examples/cifar10/cifar10_test_lmdb'],
                  n=24, size=32, mean_file='examples/cifar10/mean.binaryproto')
    for name in CIFAR_SOLVERS:
        solver = train_two_iterations('examples/cifar10/' + name)
        shapes = param_shapes(solver.net)
        assert shapes['conv1'][0] == (32, 3, 5, 5), name
        assert shapes['conv3'][0] == (64, 32, 5, 5), name
        if 'quick' in name:
            assert shapes['ip1'][0] == (64, 1024) and \
                shapes['ip2'][0] == (10, 64), name
        else:
            assert shapes['ip1'][0] == (10, 1024), name
        if name.endswith('_bn.prototxt'):
            assert len(shapes['conv1']) == 1          # no bias with BN
            assert 'bn1' in solver.net.params
    for deploy, top in (('cifar10_quick', 'prob'), ('cifar10_full', 'prob')):
        net = caffe.Net('examples/cifar10/%s.prototxt' % deploy, caffe.TEST)
        prob = net.forward()[top]
        assert prob.shape == (1, 10)
        assert np.isclose(prob.sum(), 1, atol=1e-5)
    for name in ('cifar10_quick_train_test', 'cifar10_full_train_test',
                 'cifar10_full_sigmoid_train_test_bn'):
        draw('examples/cifar10/%s.prototxt' % name, root)


# Reference models: deploy nets' outputs (the model's documented task) and
# the shapes of their first and last parameters.
DEPLOY_NETS = [
    ('models/bvlc_alexnet/deploy.prototxt', 'prob', (10, 1000),
     {'conv1': (96, 3, 11, 11), 'fc8': (1000, 4096)}),
    ('models/bvlc_reference_caffenet/deploy.prototxt', 'prob', (10, 1000),
     {'conv1': (96, 3, 11, 11), 'conv2': (256, 48, 5, 5),
      'fc6': (4096, 9216)}),
    ('models/bvlc_googlenet/deploy.prototxt', 'prob', (10, 1000),
     {'conv1/7x7_s2': (64, 3, 7, 7), 'loss3/classifier': (1000, 1024)}),
    ('models/bvlc_reference_rcnn_ilsvrc13/deploy.prototxt', 'fc-rcnn',
     (10, 200), {'fc-rcnn': (200, 4096)}),
    ('models/finetune_flickr_style/deploy.prototxt', 'prob', (10, 20),
     {'fc8_flickr': (20, 4096)}),
]


@pytest.mark.parametrize('path, top, shape, params', DEPLOY_NETS,
                         ids=[d[0].split('/')[1] for d in DEPLOY_NETS])
def test_reference_model_deploy_nets_run(root, path, top, shape, params):
    caffe.set_random_seed(5)
    net = caffe.Net(path, caffe.TEST)
    for layer, want in params.items():
        assert net.params[layer][0].data.shape == want, layer
    net.blobs['data'].data[...] = np.random.RandomState(0).uniform(
        -50, 50, net.blobs['data'].data.shape)
    out = net.forward()[top]
    assert out.shape == shape and np.all(np.isfinite(out))
    if top == 'prob':
        np.testing.assert_allclose(out.sum(axis=1), 1, rtol=1e-4)
    draw(path, root)


def test_reference_model_training_nets_build(root):
    make_imageset(root, 'imagenet', ['examples/imagenet/ilsvrc12_train_lmdb',
                                     'examples/imagenet/ilsvrc12_val_lmdb'],
                  n=3, size=256, mean_file='data/ilsvrc12/imagenet_mean.binaryproto')
    images, lines = make_imageset(root, 'flickr', [], n=4, size=256)
    os.makedirs('data/flickr_style')
    listed = ['%s %s' % (images / l.split()[0], l.split()[1]) for l in lines]
    for split in ('train', 'test'):
        (root / 'data/flickr_style' / (split + '.txt')).write_text(
            '\n'.join(listed) + '\n')
    for model in ('bvlc_alexnet', 'bvlc_reference_caffenet', 'bvlc_googlenet',
                  'finetune_flickr_style'):
        solver = caffe.get_solver('models/%s/solver.prototxt' % model)
        batch = solver.net.blobs['data'].data.shape
        assert batch[1:] == (3, 227, 227) or batch[1:] == (3, 224, 224)
        assert len(solver.test_nets) == 1
        assert 'label' in solver.net.blobs
        draw('models/%s/train_val.prototxt' % model, root)
    flickr = caffe.get_solver('models/finetune_flickr_style/solver.prototxt')
    assert flickr.net.blobs['data'].data.shape == (50, 3, 227, 227)
    # The new layer learns 10x (weights) and 20x (bias) faster.
    proto = caffe_pb2.NetParameter()
    text_format.Merge(open('models/finetune_flickr_style/train_val.prototxt')
                      .read(), proto)
    fc8 = [l for l in proto.layer if l.name == 'fc8_flickr'][0]
    assert [p.lr_mult for p in fc8.param] == [10, 20]


def test_net_surgery_makes_caffenet_fully_convolutional(root):
    caffe.set_random_seed(3)
    net = caffe.Net('models/bvlc_reference_caffenet/deploy.prototxt',
                    caffe.TEST)
    full = caffe.Net('examples/net_surgery/bvlc_caffenet_full_conv.prototxt',
                     caffe.TEST)
    # The surgery of Caffe's notebook: the same parameters, reshaped.
    for fc, conv in (('fc6', 'fc6-conv'), ('fc7', 'fc7-conv'),
                     ('fc8', 'fc8-conv')):
        w, b = net.params[fc]
        cw, cb = full.params[conv]
        assert cw.data.size == w.data.size
        cw.data.flat = w.data.flat
        cb.data[...] = b.data
    for layer in ('conv1', 'conv2', 'conv3', 'conv4', 'conv5'):
        for src, dst in zip(net.params[layer], full.params[layer]):
            dst.data[...] = src.data
    assert full.params['fc6-conv'][0].data.shape == (4096, 256, 6, 6)
    image = np.random.RandomState(1).uniform(-50, 50, (1, 3, 451, 451))
    full.blobs['data'].data[...] = image
    prob = full.forward()['prob']
    # 451x451 in, an 8x8 map of class distributions out.
    assert prob.shape == (1, 1000, 8, 8)
    np.testing.assert_allclose(prob.sum(axis=1), 1, rtol=1e-4)
    # The point of the surgery: fc6-conv at map position (0, 0) is the
    # classifier's fc6 (then ReLU, in place) applied to the 6x6 pool5
    # window there.
    pool5 = full.blobs['pool5'].data[:, :, 0:6, 0:6]
    fc6 = net.params['fc6'][0].data.dot(pool5.reshape(-1)) + \
        net.params['fc6'][1].data
    np.testing.assert_allclose(
        full.blobs['fc6-conv'].data[0, :, 0, 0], np.maximum(fc6, 0),
        rtol=1e-3, atol=1e-3)
    draw('examples/net_surgery/bvlc_caffenet_full_conv.prototxt', root)


CLASSES = ('aeroplane', 'bicycle', 'bird', 'boat', 'bottle', 'bus', 'car',
           'cat', 'chair', 'cow', 'diningtable', 'dog', 'horse', 'motorbike',
           'person', 'pottedplant', 'sheep', 'sofa', 'train', 'tvmonitor')


def make_voc(root):
    voc = root / 'data/pascal/VOC2012'
    for sub in ('ImageSets/Main', 'JPEGImages', 'Annotations'):
        os.makedirs(str(voc / sub))
    rng = np.random.RandomState(2)
    objects = {'a': ['cat', 'dog'], 'b': ['person'], 'c': ['car', 'car', 'bus']}
    for index, names in objects.items():
        Image.fromarray(rng.randint(0, 256, (60, 80, 3)).astype(np.uint8)) \
            .save(str(voc / 'JPEGImages' / (index + '.jpg')))
        xml = '<annotation>%s</annotation>' % ''.join(
            '<object><name>%s</name><difficult>0</difficult></object>' % n
            for n in names)
        (voc / 'Annotations' / (index + '.xml')).write_text(xml)
    for split in ('train', 'val'):
        (voc / 'ImageSets/Main' / (split + '.txt')).write_text('a\nb\nc\n')
    return objects


def test_pascal_multilabel_python_layer_net(root, monkeypatch):
    objects = make_voc(root)
    example = root / 'examples/pascal-multilabel-with-datalayer'
    monkeypatch.syspath_prepend(str(root / 'examples/pycaffe/layers'))
    monkeypatch.syspath_prepend(str(root / 'examples/pycaffe'))
    monkeypatch.chdir(example)
    # The files as published (batch 128) build; the solver reads both.
    solver = caffe.get_solver('solver.prototxt')
    assert solver.net.blobs['data'].data.shape == (128, 3, 227, 227)
    assert solver.net.blobs['label'].data.shape == (128, 20)
    assert len(solver.test_nets) == 1
    # One training pass on a batch of 3 (the VOC tree made above).
    proto = caffe_pb2.NetParameter()
    text_format.Merge(open('trainnet.prototxt').read(), proto)
    proto.layer[0].python_param.param_str = proto.layer[0].python_param \
        .param_str.replace("'batch_size': 128", "'batch_size': 3")
    net = caffe.Net(proto, caffe.TRAIN)
    loss = net.forward()['loss']
    net.backward()
    assert np.isfinite(loss) and loss > 0
    assert np.any(net.params['conv1'][0].diff != 0)
    want = sorted(tuple(sorted(set(n))) for n in objects.values())
    got = sorted(tuple(CLASSES[k] for k in np.flatnonzero(row))
                 for row in net.blobs['label'].data)
    assert got == want
    assert net.blobs['score'].data.shape == (3, 20)
    draw('trainnet.prototxt', root)


def with_build(root):
    """The root's build/tools are this build's tools (the scripts call
    ./build/tools/...)."""
    os.symlink(os.path.dirname(os.path.dirname(caffe_tool())),
               str(root / 'build'))


def run_script(script, root, **env):
    proc = subprocess.run(['sh', script], cwd=str(root),
                          env=dict(os.environ, **env),
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          universal_newlines=True, timeout=300)
    return proc.returncode, proc.stdout


def test_create_scripts_make_the_databases(root):
    with_build(root)
    code, out = run_script('examples/mnist/create_mnist.sh', root)
    assert code != 0 and 'train-images-idx3-ubyte not found' in out
    os.makedirs('data/mnist')
    for split, n in (('train', 30), ('t10k', 10)):
        write_idx(str(root / 'data/mnist' / split), *digits(n, seed=1))
    for script in ('examples/mnist/create_mnist.sh',
                   'examples/siamese/create_mnist_siamese.sh'):
        code, out = run_script(script, root)
        assert code == 0, out
    net = caffe.Net('examples/mnist/lenet_train_test.prototxt', caffe.TEST)
    labels = net.forward(blobs=['label'])['label']
    assert list(labels[:10]) == list(range(10))     # the t10k order
    pairs = caffe.Net('examples/siamese/mnist_siamese_train_test.prototxt',
                      caffe.TRAIN)
    assert pairs.blobs['pair_data'].data.shape == (64, 2, 28, 28)
    # CIFAR-10: six full binary batches (Caffe's converter takes no
    # other size), all zeros but the labels.
    os.makedirs('data/cifar10')
    record = bytearray(1 + 3 * 32 * 32)
    for name in ['data_batch_%d.bin' % i for i in range(1, 6)] + \
            ['test_batch.bin']:
        with open(str(root / 'data/cifar10' / name), 'wb') as f:
            for i in range(10000):
                record[0] = i % 10
                f.write(record)
    code, out = run_script('examples/cifar10/create_cifar10.sh', root)
    assert code == 0, out
    assert os.path.exists('examples/cifar10/mean.binaryproto')
    net = caffe.Net('examples/cifar10/cifar10_quick_train_test.prototxt',
                    caffe.TEST)
    assert net.forward(blobs=['label'])['label'].shape == (100,)


def solver_param(path):
    param = caffe_pb2.SolverParameter()
    text_format.Merge(open(path).read(), param)
    return param


def test_train_scripts_resume_from_what_the_previous_stage_writes():
    # Every solver a script names exists, and each --snapshot is the file
    # the stage before it writes at its max_iter, in its snapshot format.
    import re
    scripts = [os.path.join(d, f) for d in ('examples/mnist',
                                           'examples/cifar10',
                                           'examples/siamese')
               for f in sorted(os.listdir(os.path.join(REPO, d)))
               if f.startswith('train_') and f.endswith('.sh')]
    assert len(scripts) >= 14
    for script in scripts:
        text = open(os.path.join(REPO, script)).read()
        solvers = re.findall(r'--solver=(\S+)', text)
        snapshots = re.findall(r'--snapshot=(\S+)', text)
        assert solvers, script
        for solver in solvers:
            assert os.path.exists(os.path.join(REPO, solver)), solver
        for previous, snapshot in zip(solvers, snapshots):
            p = solver_param(os.path.join(REPO, previous))
            ext = '.solverstate.h5' if p.snapshot_format == \
                caffe_pb2.SolverParameter.HDF5 else '.solverstate'
            assert snapshot == '%s_iter_%d%s' % (p.snapshot_prefix,
                                                 p.max_iter, ext), script
