"""Tests of caffe.io: proto/Datum/array conversions, Transformer,
load_image, resize_image and oversample, against hand-computed values."""

import io as bytes_io

import numpy as np
import pytest
from PIL import Image

import caffe.io
from caffe.proto import caffe_pb2


# --- BlobProto ---------------------------------------------------------------

def test_blobproto_legacy_4d_shape():
    blob = caffe_pb2.BlobProto()
    blob.data.extend(np.arange(100, dtype=float))
    blob.num, blob.channels, blob.height, blob.width = (1, 1, 10, 10)
    arr = caffe.io.blobproto_to_array(blob)
    assert arr.shape == (1, 1, 10, 10)
    assert arr[0, 0, 3, 4] == 34


def test_blobproto_nd_shape_and_diff():
    blob = caffe_pb2.BlobProto()
    blob.data.extend(np.arange(6, dtype=float))
    blob.diff.extend(-np.arange(6, dtype=float))
    blob.shape.dim.extend([2, 3])
    assert caffe.io.blobproto_to_array(blob).tolist() == [[0, 1, 2],
                                                          [3, 4, 5]]
    diff = caffe.io.blobproto_to_array(blob, return_diff=True)
    assert diff.tolist() == [[0, -1, -2], [-3, -4, -5]]


def test_blobproto_without_shape_fails_and_scalar_is_0d():
    blob = caffe_pb2.BlobProto()
    blob.data.extend(np.zeros(100))
    with pytest.raises(ValueError):
        caffe.io.blobproto_to_array(blob)
    scalar = caffe_pb2.BlobProto()
    scalar.data.append(123.0)
    arr = caffe.io.blobproto_to_array(scalar)
    assert arr.shape == () and arr == 123


def test_array_to_blobproto_roundtrip_nd():
    arr = np.random.RandomState(0).randn(2, 3, 4).astype(np.float32)
    diff = arr * 2
    blob = caffe.io.array_to_blobproto(arr, diff)
    assert list(blob.shape.dim) == [2, 3, 4]
    assert not blob.HasField('num')  # N-d shape, not the legacy fields
    back = caffe.io.blobproto_to_array(blob)
    np.testing.assert_allclose(back, arr, rtol=1e-6)
    np.testing.assert_allclose(
        caffe.io.blobproto_to_array(blob, return_diff=True), diff, rtol=1e-6)
    # It also survives serialization, as a .binaryproto mean file would.
    parsed = caffe_pb2.BlobProto.FromString(blob.SerializeToString())
    np.testing.assert_allclose(caffe.io.blobproto_to_array(parsed), arr,
                               rtol=1e-6)


def test_blobprotovector_string_roundtrip():
    arrays = [np.arange(4.).reshape(1, 1, 2, 2), np.ones((3, 2))]
    s = caffe.io.arraylist_to_blobprotovector_str(arrays)
    assert isinstance(s, bytes)
    # Caffe's own (misspelled) name for it.
    assert caffe.io.arraylist_to_blobprotovecor_str(arrays) == s
    back = caffe.io.blobprotovector_str_to_arraylist(s)
    assert len(back) == 2
    for a, b in zip(arrays, back):
        assert a.shape == b.shape
        np.testing.assert_array_equal(a, b)


# --- Datum ---------------------------------------------------------------

def test_uint8_datum_uses_data_bytes():
    arr = np.arange(24, dtype=np.uint8).reshape(2, 3, 4)
    datum = caffe.io.array_to_datum(arr, label=7)
    assert (datum.channels, datum.height, datum.width) == (2, 3, 4)
    assert datum.data == arr.tobytes()
    assert len(datum.float_data) == 0
    assert datum.label == 7
    back = caffe.io.datum_to_array(datum)
    assert back.dtype == np.uint8
    np.testing.assert_array_equal(back, arr)
    back[0, 0, 0] = 99  # the result is a writable array of its own
    assert datum.data[0] == 0


def test_float_datum_uses_float_data():
    arr = np.linspace(-1, 1, 12).reshape(3, 2, 2)
    datum = caffe.io.array_to_datum(arr)
    assert datum.data == b''
    assert len(datum.float_data) == 12
    back = caffe.io.datum_to_array(datum)
    assert back.dtype == float
    np.testing.assert_allclose(back, arr, rtol=1e-6)


def test_datum_label_only_when_given_and_shape_checked():
    d1 = caffe.io.array_to_datum(np.ones((3, 10, 10)), label=1)
    d2 = caffe.io.array_to_datum(np.ones((3, 10, 10)))
    assert d1.HasField('label') and not d2.HasField('label')
    assert len(d1.SerializeToString()) > len(d2.SerializeToString())
    with pytest.raises(ValueError, match='Incorrect array shape'):
        caffe.io.array_to_datum(np.ones((10, 10)))


def _png_bytes(array, mode):
    buf = bytes_io.BytesIO()
    Image.fromarray(array, mode).save(buf, format='PNG')
    return buf.getvalue()


def test_encoded_datum_decodes_to_bgr_like_caffe():
    rgb = np.zeros((4, 5, 3), dtype=np.uint8)
    rgb[..., 0] = 200  # red
    rgb[1, 2] = (10, 20, 30)
    datum = caffe_pb2.Datum(encoded=True, data=_png_bytes(rgb, 'RGB'),
                            label=3)
    arr = caffe.io.datum_to_array(datum)
    assert arr.shape == (3, 4, 5) and arr.dtype == np.uint8
    assert arr[:, 0, 0].tolist() == [0, 0, 200]  # B, G, R
    assert arr[:, 1, 2].tolist() == [30, 20, 10]

    grey = np.arange(20, dtype=np.uint8).reshape(4, 5)
    datum = caffe_pb2.Datum(encoded=True, data=_png_bytes(grey, 'L'))
    arr = caffe.io.datum_to_array(datum)
    assert arr.shape == (1, 4, 5)
    np.testing.assert_array_equal(arr[0], grey)


# --- Transformer -----------------------------------------------------------

def _transformer(shape=(1, 3, 4, 5)):
    return caffe.io.Transformer({'data': shape})


def test_transformer_checks_and_messages():
    t = _transformer()
    with pytest.raises(Exception, match='^label is not one of the net '
                                        'inputs: '):
        t.set_raw_scale('label', 255)
    with pytest.raises(Exception, match='Transpose order needs to have the '
                                        'same number of dimensions'):
        t.set_transpose('data', (1, 0))
    with pytest.raises(Exception, match='Channel swap needs to have the same '
                                        'number of dimensions as the input '
                                        'channels'):
        t.set_channel_swap('data', (1, 0))
    with pytest.raises(ValueError,
                       match='Mean channels incompatible with input'):
        t.set_mean('data', np.zeros(2))
    with pytest.raises(ValueError, match='Mean shape invalid'):
        t.set_mean('data', np.zeros((1, 3, 4, 5)))
    with pytest.raises(ValueError,
                       match='Mean shape incompatible with input shape'):
        t.set_mean('data', np.zeros((3, 8, 8)))
    with pytest.raises(Exception, match='is not one of the net inputs'):
        t.preprocess('nope', np.zeros((4, 5, 3)))


def test_preprocess_applies_steps_in_caffe_order():
    rng = np.random.RandomState(1)
    img = rng.rand(4, 5, 3).astype(np.float32)
    original = img.copy()
    mean = np.array([10., 20., 30.])
    t = _transformer()
    t.set_transpose('data', (2, 0, 1))
    t.set_channel_swap('data', (2, 1, 0))
    t.set_raw_scale('data', 255.0)
    t.set_mean('data', mean)
    t.set_input_scale('data', 0.5)
    out = t.preprocess('data', img)
    expected = ((img.transpose(2, 0, 1)[[2, 1, 0]] * 255.0 -
                 mean[:, None, None]) * 0.5)
    assert out.shape == (3, 4, 5) and out.dtype == np.float32
    np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-4)
    np.testing.assert_array_equal(img, original)  # input left untouched

    back = t.deprocess('data', out[np.newaxis])
    np.testing.assert_allclose(back, img, atol=1e-5)


def test_preprocess_elementwise_mean_and_resize():
    t = _transformer((2, 3, 4, 5))
    t.set_transpose('data', (2, 0, 1))
    mean = np.arange(60, dtype=np.float32).reshape(3, 4, 5)
    t.set_mean('data', mean)
    big = np.full((8, 10, 3), 100, dtype=np.float32)  # resized to 4 x 5
    out = t.preprocess('data', big)
    assert out.shape == (3, 4, 5)
    np.testing.assert_allclose(out, 100 - mean, rtol=1e-6)


def test_deprocess_single_channel_keeps_channel_axis():
    t = _transformer((1, 1, 4, 5))
    t.set_transpose('data', (2, 0, 1))
    t.set_raw_scale('data', 255)
    img = np.random.RandomState(2).rand(4, 5, 1).astype(np.float32)
    out = t.preprocess('data', img)
    assert out.shape == (1, 4, 5)
    back = t.deprocess('data', out)
    assert back.shape == (4, 5, 1)
    np.testing.assert_allclose(back, img, atol=1e-6)


def test_transformer_accepts_list_shapes():
    t = caffe.io.Transformer({'data': [1, 3, 4, 5]})
    t.set_mean('data', np.zeros((3, 4, 5)))  # compared as tuples
    t.set_transpose('data', (2, 0, 1))
    assert t.preprocess('data', np.ones((4, 5, 3))).shape == (3, 4, 5)


# --- images ----------------------------------------------------------------

def test_load_image_color_grey_and_alpha(tmp_path):
    rgb = np.zeros((6, 7, 3), dtype=np.uint8)
    rgb[..., 1] = 255
    rgb[0, 0] = (255, 0, 0)
    Image.fromarray(rgb, 'RGB').save(tmp_path / 'rgb.png')
    img = caffe.io.load_image(str(tmp_path / 'rgb.png'))
    assert img.shape == (6, 7, 3) and img.dtype == np.float32
    assert img[0, 0].tolist() == [1.0, 0.0, 0.0]
    assert img[3, 3].tolist() == [0.0, 1.0, 0.0]

    grey_of_rgb = caffe.io.load_image(str(tmp_path / 'rgb.png'), color=False)
    assert grey_of_rgb.shape == (6, 7, 1)
    # Luminance of pure green (ITU-R 601/709 weights put it near 0.7).
    assert 0.55 < grey_of_rgb[3, 3, 0] < 0.75

    grey = (np.arange(42).reshape(6, 7) * 6).astype(np.uint8)
    Image.fromarray(grey, 'L').save(tmp_path / 'grey.png')
    as_color = caffe.io.load_image(str(tmp_path / 'grey.png'))
    assert as_color.shape == (6, 7, 3)
    np.testing.assert_allclose(as_color[..., 2], grey / 255.0, atol=1e-6)
    as_grey = caffe.io.load_image(str(tmp_path / 'grey.png'), color=False)
    assert as_grey.shape == (6, 7, 1)
    np.testing.assert_allclose(as_grey[..., 0], grey / 255.0, atol=1e-6)

    rgba = np.dstack([rgb, np.full((6, 7), 128, np.uint8)])
    Image.fromarray(rgba, 'RGBA').save(tmp_path / 'rgba.png')
    img = caffe.io.load_image(str(tmp_path / 'rgba.png'))
    assert img.shape == (6, 7, 3)
    assert img[0, 0].tolist() == [1.0, 0.0, 0.0]


def test_resize_image_shapes_and_values():
    ramp = np.tile(np.linspace(2, 10, 5, dtype=np.float32), (4, 1))
    im = np.dstack([ramp, ramp * 2, ramp * 3])  # 4 x 5 x 3, not in [0, 1]
    same = caffe.io.resize_image(im, (4, 5))
    np.testing.assert_allclose(same, im, rtol=1e-5)
    up = caffe.io.resize_image(im, (8, 10))
    assert up.shape == (8, 10, 3) and up.dtype == np.float32
    # Bilinear interpolation keeps the range and the left-to-right ramp.
    assert up.min() >= 2 - 1e-4 and up.max() <= 30 + 1e-4
    assert np.all(np.diff(up[0, :, 0]) >= -1e-5)
    assert up[0, 0, 0] == pytest.approx(2, abs=1e-4)
    assert up[0, -1, 0] == pytest.approx(10, abs=1e-4)

    const = np.full((3, 3, 1), 0.25, dtype=np.float32)
    out = caffe.io.resize_image(const, (5, 6))
    assert out.shape == (5, 6, 1) and np.all(out == 0.25)

    two = np.random.RandomState(3).rand(4, 6, 2)  # the ndimage path
    out = caffe.io.resize_image(two, (8, 12))
    assert out.shape == (8, 12, 2)
    assert out[0, 0, 1] == pytest.approx(two[0, 0, 1], abs=1e-6)


def test_oversample_corners_center_and_mirrors():
    im = np.arange(6 * 8 * 2, dtype=np.float32).reshape(6, 8, 2)
    crops = caffe.io.oversample([im, im + 1000], (4, 4))
    assert crops.shape == (20, 4, 4, 2) and crops.dtype == np.float32
    expected = [im[0:4, 0:4], im[0:4, 4:8], im[2:6, 0:4], im[2:6, 4:8],
                im[1:5, 2:6]]
    for i, e in enumerate(expected):
        np.testing.assert_array_equal(crops[i], e)
        np.testing.assert_array_equal(crops[5 + i], e[:, ::-1])
        np.testing.assert_array_equal(crops[10 + i], e + 1000)
