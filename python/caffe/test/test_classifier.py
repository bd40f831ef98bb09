"""Tests of caffe.Classifier, caffe.Detector and python/classify.py on a
real caffe.Net: a 3x4x4-input InnerProduct + Softmax net whose weights are
written here, so every prediction can be recomputed with numpy from the
documented pre-processing (resize, crops, transpose, channel swap, raw
scale, mean, input scale)."""

import os
import subprocess
import sys

import numpy as np
import pytest
from PIL import Image

import caffe
import caffe.io
from caffe.proto import caffe_pb2

PYTHON_DIR = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))

DEPLOY = """
name: "TinyClassifier"
layer { name: "data" type: "Input" top: "data"
  input_param { shape { dim: 10 dim: 3 dim: 4 dim: 4 } } }
layer { name: "ip" type: "InnerProduct" bottom: "data" top: "ip"
  inner_product_param { num_output: 5 } }
layer { name: "prob" type: "Softmax" bottom: "ip" top: "prob" }
"""

RNG = np.random.RandomState(7)
W = RNG.randn(5, 48).astype(np.float32)
B = RNG.randn(5).astype(np.float32)


@pytest.fixture(scope='module')
def model(tmp_path_factory):
    d = tmp_path_factory.mktemp('model')
    (d / 'deploy.prototxt').write_text(DEPLOY)
    weights = caffe_pb2.NetParameter()
    layer = weights.layer.add(name='ip', type='InnerProduct')
    layer.blobs.extend([caffe.io.array_to_blobproto(W),
                        caffe.io.array_to_blobproto(B)])
    (d / 'w.caffemodel').write_bytes(weights.SerializeToString())
    return str(d / 'deploy.prototxt'), str(d / 'w.caffemodel')


def _net_forward(chw):
    """The tiny net in numpy: softmax(W x + b) for a 3x4x4 input."""
    z = W.astype(np.float64) @ chw.reshape(-1) + B
    e = np.exp(z - z.max())
    return e / e.sum()


def _prep(hwc, mean, raw_scale=1.0, swap=(0, 1, 2), input_scale=1.0):
    chw = hwc.transpose(2, 0, 1)[list(swap)]
    return (chw * raw_scale - mean[:, None, None]) * input_scale


MEAN = np.array([0.1, 0.2, 0.3])


def test_classifier_oversampled_and_center_predictions(model):
    clf = caffe.Classifier(*model, image_dims=(6, 6), mean=MEAN,
                           raw_scale=2.0, channel_swap=(2, 1, 0),
                           input_scale=0.5)
    assert isinstance(clf, caffe.Net)
    assert list(clf.crop_dims) == [4, 4]
    images = [RNG.rand(5, 7, 3).astype(np.float32) for _ in range(2)]

    def expected(img, boxes):
        big = caffe.io.resize_image(img, (6, 6))
        outs = []
        for (y, x) in boxes:
            crop = big[y:y + 4, x:x + 4]
            for c in (crop, crop[:, ::-1]):
                outs.append(_net_forward(_prep(c, MEAN, 2.0, (2, 1, 0), 0.5)))
        return np.mean(outs, axis=0)

    # Ten crops (two images: 20 inputs, two batches of the net's 10).
    pred = clf.predict(images)
    assert pred.shape == (2, 5)
    np.testing.assert_allclose(pred.sum(1), 1, rtol=1e-5)
    corners_and_center = [(0, 0), (0, 2), (2, 0), (2, 2), (1, 1)]
    for i, img in enumerate(images):
        np.testing.assert_allclose(pred[i], expected(img, corners_and_center),
                                   rtol=1e-4, atol=1e-6)

    center = clf.predict(images, oversample=False)
    assert center.shape == (2, 5)
    for i, img in enumerate(images):
        big = caffe.io.resize_image(img, (6, 6))
        want = _net_forward(_prep(big[1:5, 1:5], MEAN, 2.0, (2, 1, 0), 0.5))
        np.testing.assert_allclose(center[i], want, rtol=1e-4, atol=1e-6)
    assert not np.allclose(center, pred)  # mirrors/corners do change it


def test_classifier_defaults_to_net_input_size(model):
    clf = caffe.Classifier(*model)
    assert list(clf.image_dims) == [4, 4]
    img = RNG.rand(4, 4, 3).astype(np.float32)
    pred = clf.predict([img], oversample=False)
    np.testing.assert_allclose(pred[0], _net_forward(_prep(img, np.zeros(3))),
                               rtol=1e-4, atol=1e-6)
    with pytest.raises(ValueError, match='Mean shape incompatible'):
        caffe.Classifier(*model, mean=np.zeros((3, 6, 6)))


def test_classify_script(model, tmp_path):
    images = RNG.rand(3, 6, 6, 3).astype(np.float32)
    np.save(tmp_path / 'in.npy', images)
    np.save(tmp_path / 'mean.npy', MEAN)
    env = dict(os.environ)
    env['PYTHONPATH'] = PYTHON_DIR + os.pathsep + env.get('PYTHONPATH', '')
    run = subprocess.run(
        [sys.executable, os.path.join(PYTHON_DIR, 'classify.py'),
         str(tmp_path / 'in.npy'), str(tmp_path / 'out.npy'),
         '--model_def', model[0], '--pretrained_model', model[1],
         '--images_dim', '6,6', '--mean_file', str(tmp_path / 'mean.npy'),
         '--raw_scale', '2', '--center_only'],
        env=env, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert 'Classifying 3 inputs.' in run.stdout
    out = np.load(tmp_path / 'out.npy')
    assert out.shape == (3, 5)
    for i in range(3):
        want = _net_forward(_prep(images[i][1:5, 1:5], MEAN, 2.0, (2, 1, 0)))
        np.testing.assert_allclose(out[i], want, rtol=1e-4, atol=1e-6)
    # The defaults name Caffe's reference model, which is not shipped: a
    # message naming the flag, not a traceback.
    for script in ('classify.py', 'detect.py'):
        run = subprocess.run(
            [sys.executable, os.path.join(PYTHON_DIR, script),
             str(tmp_path / 'in.npy'), str(tmp_path / 'out2.npy')],
            env=env, capture_output=True, text=True, timeout=120)
        assert run.returncode != 0
        assert '--pretrained_model' in run.stderr
        assert 'no such file' in run.stderr
        assert 'Traceback' not in run.stderr


def _image(tmp_path):
    rgb = (RNG.rand(12, 10, 3) * 255).astype(np.uint8)
    path = str(tmp_path / 'im.png')
    Image.fromarray(rgb, 'RGB').save(path)
    return path, rgb.astype(np.float32) / 255


def test_detector_windows(model, tmp_path):
    path, im = _image(tmp_path)
    det = caffe.Detector(*model, mean=MEAN * 255, raw_scale=255,
                         channel_swap=(2, 1, 0))
    assert list(det.crop_dims) == [4, 4, 3]
    windows = [np.array([0, 0, 6, 6]), np.array([2, 3, 10, 9])]
    out = det.detect_windows([(path, windows)])
    assert [d['filename'] for d in out] == [path, path]
    assert [list(d['window']) for d in out] == [[0, 0, 6, 6], [2, 3, 10, 9]]
    for d in out:
        y0, x0, y1, x1 = d['window']
        crop = caffe.io.resize_image(im[y0:y1, x0:x1], (4, 4))
        want = _net_forward(_prep(crop, MEAN * 255, 255, (2, 1, 0)))
        np.testing.assert_allclose(d['prediction'], want, rtol=1e-4,
                                   atol=1e-6)

    with pytest.raises(NotImplementedError, match='detect_windows'):
        det.detect_selective_search([path])


def test_detector_context_pad_fills_outside_with_mean(model, tmp_path):
    path, im = _image(tmp_path)
    det = caffe.Detector(*model, mean=np.array([30., 60., 90.]),
                         raw_scale=255, channel_swap=(2, 1, 0), context_pad=1)
    # The mean in image space: channel swap undone, raw scale divided out.
    np.testing.assert_allclose(det.crop_mean.reshape(-1),
                               np.array([90., 60., 30.]) / 255, rtol=1e-6)
    # Window 0..3 at the corner: grown x2 about its centre to -2..6, so the
    # first row/column of the 4x4 crop lies outside the image.
    crop = det.crop(im, np.array([0, 0, 3, 3]))
    assert crop.shape == (4, 4, 3)
    np.testing.assert_allclose(crop[0, :], np.tile(det.crop_mean.reshape(
        1, 3), (4, 1)), rtol=1e-6)
    np.testing.assert_allclose(crop[:, 0], crop[0, :], rtol=1e-6)
    np.testing.assert_allclose(
        crop[1:, 1:], caffe.io.resize_image(im[0:6, 0:6], (3, 3)), rtol=1e-5)

    out = det.detect_windows([(path, [np.array([0, 0, 3, 3])])])
    assert out[0]['prediction'].shape == (5,)
    want = _net_forward(_prep(crop, np.array([30., 60., 90.]), 255,
                              (2, 1, 0)))
    np.testing.assert_allclose(out[0]['prediction'], want, rtol=1e-4,
                               atol=1e-6)


def _run_detect(args, cwd):
    env = dict(os.environ, PYTHONPATH=PYTHON_DIR)
    return subprocess.run([sys.executable, os.path.join(PYTHON_DIR,
                                                        'detect.py')] + args,
                          cwd=str(cwd), env=env, capture_output=True,
                          text=True, timeout=120)


def test_detect_script_scores_listed_windows(model, tmp_path):
    import csv
    import h5py
    path, im = _image(tmp_path)
    mean = np.tile(np.array([90., 60., 30.])[:, None, None], (1, 5, 5))
    np.save(str(tmp_path / 'mean.npy'), mean)
    # Columns in another order than the coordinates: read by name.
    (tmp_path / 'windows.csv').write_text(
        'xmin,ymin,filename,xmax,ymax\n0,0,%s,6,6\n3,2,%s,9,10\n'
        % (path, path))
    common = ['--model_def', model[0], '--pretrained_model', model[1],
              '--crop_mode', 'list', '--mean_file', str(tmp_path / 'mean.npy'),
              '--context_pad', '0']
    run = _run_detect([str(tmp_path / 'windows.csv'),
                       str(tmp_path / 'out.csv')] + common, tmp_path)
    assert run.returncode == 0, run.stderr + run.stdout
    assert 'Processed 2 windows' in run.stdout
    det = caffe.Detector(*model, mean=np.array([90., 60., 30.]),
                         raw_scale=255, channel_swap=(2, 1, 0),
                         context_pad=0)
    want = det.detect_windows([(path, [np.array([0, 0, 6, 6]),
                                       np.array([2, 3, 10, 9])])])
    with open(str(tmp_path / 'out.csv')) as f:
        rows = list(csv.reader(f))
    assert rows[0] == ['filename', 'ymin', 'xmin', 'ymax', 'xmax',
                       'class0', 'class1', 'class2', 'class3', 'class4']
    for row, d in zip(rows[1:], want):
        assert row[0] == path
        assert [int(v) for v in row[1:5]] == list(d['window'])
        np.testing.assert_allclose([float(v) for v in row[5:]],
                                   d['prediction'], rtol=1e-5, atol=1e-7)
    run = _run_detect([str(tmp_path / 'windows.csv'),
                       str(tmp_path / 'out.h5')] + common, tmp_path)
    assert run.returncode == 0, run.stderr
    with h5py.File(str(tmp_path / 'out.h5'), 'r') as f:
        assert [n.decode() for n in f['filename'][...]] == [path, path]
        np.testing.assert_array_equal(f['window'][...],
                                      [[0, 0, 6, 6], [2, 3, 10, 9]])
        np.testing.assert_allclose(f['prediction'][...],
                                   [d['prediction'] for d in want],
                                   rtol=1e-5, atol=1e-7)
    # Selective search is not available; the error says so.
    (tmp_path / 'images.txt').write_text(path + '\n')
    run = _run_detect([str(tmp_path / 'images.txt'),
                       str(tmp_path / 'ss.csv')] + common[:4] +
                      ['--mean_file', ''], tmp_path)
    assert run.returncode != 0 and 'selective_search' in run.stderr
    (tmp_path / 'bad.csv').write_text('filename,ymin\n%s,0\n' % path)
    run = _run_detect([str(tmp_path / 'bad.csv'),
                       str(tmp_path / 'x.csv')] + common, tmp_path)
    assert run.returncode != 0 and 'missing column' in run.stderr
