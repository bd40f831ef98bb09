"""Tests of caffe.net_spec: LeNet written with NetSpec (and anonymously with
to_proto) must give, field for field, the NetParameter written out by hand
below, and load in caffe.Net; plus ntop=0, in-place layers, param naming,
enum constants and the Top type check."""

import pytest
from google.protobuf import text_format

import caffe
from caffe.net_spec import NetSpec, layers as L, params as P, to_proto
from caffe.proto import caffe_pb2


def lenet(batch_size):
    n = NetSpec()
    n.data, n.label = L.DummyData(shape=[dict(dim=[batch_size, 1, 28, 28]),
                                         dict(dim=[batch_size, 1, 1, 1])],
                                  transform_param=dict(scale=1. / 255),
                                  ntop=2)
    n.conv1 = L.Convolution(n.data, kernel_size=5, num_output=20,
                            weight_filler=dict(type='xavier'))
    n.pool1 = L.Pooling(n.conv1, kernel_size=2, stride=2, pool=P.Pooling.MAX)
    n.conv2 = L.Convolution(n.pool1, kernel_size=5, num_output=50,
                            weight_filler=dict(type='xavier'))
    n.pool2 = L.Pooling(n.conv2, kernel_size=2, stride=2, pool=P.Pooling.MAX)
    n.ip1 = L.InnerProduct(n.pool2, num_output=500,
                           weight_filler=dict(type='xavier'))
    n.relu1 = L.ReLU(n.ip1, in_place=True)
    n.ip2 = L.InnerProduct(n.relu1, num_output=10,
                           weight_filler=dict(type='xavier'))
    n.loss = L.SoftmaxWithLoss(n.ip2, n.label)
    return n.to_proto()


def anon_lenet(batch_size):
    data, label = L.DummyData(shape=[dict(dim=[batch_size, 1, 28, 28]),
                                     dict(dim=[batch_size, 1, 1, 1])],
                              transform_param=dict(scale=1. / 255), ntop=2)
    conv1 = L.Convolution(data, kernel_size=5, num_output=20,
                          weight_filler=dict(type='xavier'))
    pool1 = L.Pooling(conv1, kernel_size=2, stride=2, pool=P.Pooling.MAX)
    conv2 = L.Convolution(pool1, kernel_size=5, num_output=50,
                          weight_filler=dict(type='xavier'))
    pool2 = L.Pooling(conv2, kernel_size=2, stride=2, pool=P.Pooling.MAX)
    ip1 = L.InnerProduct(pool2, num_output=500,
                         weight_filler=dict(type='xavier'))
    relu1 = L.ReLU(ip1, in_place=True)
    ip2 = L.InnerProduct(relu1, num_output=10,
                         weight_filler=dict(type='xavier'))
    loss = L.SoftmaxWithLoss(ip2, label)
    return loss.to_proto()


LENET_TEXT = """
layer { name: "data" type: "DummyData" top: "data" top: "label"
  transform_param { scale: 0.00392156862745098 }
  dummy_data_param { shape { dim: 50 dim: 1 dim: 28 dim: 28 }
                     shape { dim: 50 dim: 1 dim: 1 dim: 1 } } }
layer { name: "conv1" type: "Convolution" bottom: "data" top: "conv1"
  convolution_param { num_output: 20 kernel_size: 5
                      weight_filler { type: "xavier" } } }
layer { name: "pool1" type: "Pooling" bottom: "conv1" top: "pool1"
  pooling_param { pool: MAX kernel_size: 2 stride: 2 } }
layer { name: "conv2" type: "Convolution" bottom: "pool1" top: "conv2"
  convolution_param { num_output: 50 kernel_size: 5
                      weight_filler { type: "xavier" } } }
layer { name: "pool2" type: "Pooling" bottom: "conv2" top: "pool2"
  pooling_param { pool: MAX kernel_size: 2 stride: 2 } }
layer { name: "ip1" type: "InnerProduct" bottom: "pool2" top: "ip1"
  inner_product_param { num_output: 500 weight_filler { type: "xavier" } } }
layer { name: "relu1" type: "ReLU" bottom: "ip1" top: "ip1" }
layer { name: "ip2" type: "InnerProduct" bottom: "ip1" top: "ip2"
  inner_product_param { num_output: 10 weight_filler { type: "xavier" } } }
layer { name: "loss" type: "SoftmaxWithLoss" bottom: "ip2" bottom: "label"
  top: "loss" }
"""


def _parse(text):
    net = caffe_pb2.NetParameter()
    text_format.Merge(text, net)
    return net


def _load_net(net_proto, tmp_path):
    path = tmp_path / 'net.prototxt'
    path.write_text(str(net_proto))
    return caffe.Net(str(path), caffe.TEST)


def test_lenet_matches_hand_written_proto_field_by_field():
    net_proto = lenet(50)
    expected = _parse(LENET_TEXT)
    assert len(net_proto.layer) == len(expected.layer) == 9
    for got, want in zip(net_proto.layer, expected.layer):
        assert got == want, 'layer %s:\n%s\nexpected\n%s' % (want.name, got,
                                                              want)
    assert net_proto == expected
    # ... and its text form parses back to the same message.
    assert _parse(str(net_proto)) == net_proto


def test_lenet_fields():
    net_proto = lenet(64)
    names = [l.name for l in net_proto.layer]
    assert names == ['data', 'conv1', 'pool1', 'conv2', 'pool2', 'ip1',
                     'relu1', 'ip2', 'loss']
    relu = net_proto.layer[6]
    assert list(relu.bottom) == list(relu.top) == ['ip1']  # in place
    conv1 = net_proto.layer[1]
    assert list(conv1.convolution_param.kernel_size) == [5]  # repeated
    assert conv1.convolution_param.num_output == 20
    assert conv1.convolution_param.weight_filler.type == 'xavier'
    assert net_proto.layer[2].pooling_param.pool == \
        caffe_pb2.PoolingParameter.MAX
    assert list(net_proto.layer[0].dummy_data_param.shape[0].dim) == \
        [64, 1, 28, 28]
    assert list(net_proto.layer[8].bottom) == ['ip2', 'label']


def test_anonymous_lenet_gets_generated_names():
    net_proto = anon_lenet(50)
    layers = [(l.name, l.type, list(l.bottom), list(l.top))
              for l in net_proto.layer]
    assert layers == [
        ('DummyData1', 'DummyData', [], ['DummyData1', 'DummyData2']),
        ('Convolution1', 'Convolution', ['DummyData1'], ['Convolution1']),
        ('Pooling1', 'Pooling', ['Convolution1'], ['Pooling1']),
        ('Convolution2', 'Convolution', ['Pooling1'], ['Convolution2']),
        ('Pooling2', 'Pooling', ['Convolution2'], ['Pooling2']),
        ('InnerProduct1', 'InnerProduct', ['Pooling2'], ['InnerProduct1']),
        ('ReLU1', 'ReLU', ['InnerProduct1'], ['InnerProduct1']),
        ('InnerProduct2', 'InnerProduct', ['InnerProduct1'],
         ['InnerProduct2']),
        ('SoftmaxWithLoss1', 'SoftmaxWithLoss',
         ['InnerProduct2', 'DummyData2'], ['SoftmaxWithLoss1']),
    ]
    # Apart from names, the same net as the named one.
    named = lenet(50)
    for a, b in zip(net_proto.layer, named.layer):
        assert a.convolution_param == b.convolution_param
        assert a.pooling_param == b.pooling_param
        assert a.inner_product_param == b.inner_product_param


def test_lenet_loads_in_caffe_net(tmp_path):
    net = _load_net(lenet(50), tmp_path)
    assert len(net.layers) == 9
    assert net.blobs['data'].data.shape == (50, 1, 28, 28)
    assert net.blobs['ip2'].data.shape == (50, 10)
    net = _load_net(anon_lenet(50), tmp_path)
    assert len(net.layers) == 9


def silent_net():
    n = NetSpec()
    n.data, n.data2 = L.DummyData(shape=dict(dim=3), ntop=2)
    n.silence_data = L.Silence(n.data, ntop=0)
    n.silence_data2 = L.Silence(n.data2, ntop=0)
    return n.to_proto()


def test_zero_tops(tmp_path):
    net_proto = silent_net()
    assert [(l.name, list(l.top)) for l in net_proto.layer] == [
        ('data', ['data', 'data2']), ('silence_data', []),
        ('silence_data2', [])]
    assert list(net_proto.layer[0].dummy_data_param.shape[0].dim) == [3]
    net = _load_net(net_proto, tmp_path)
    assert len(net.forward()) == 0


def test_function_input_must_be_a_top():
    data = L.DummyData(ntop=2)  # a tuple of two Tops
    assert isinstance(data, tuple) and len(data) == 2
    with pytest.raises(TypeError, match=r"^Silence input 0 is not a Top "
                                        r"\(type is <class 'tuple'>\)$"):
        L.Silence(data, ntop=0)
    fn = L.Silence(*data, ntop=0)  # each element is a Top
    assert fn.ntop == 0 and fn.tops == ()


def test_param_naming_generic_fields_and_enums():
    n = NetSpec()
    n.data = L.Input(shape=dict(dim=[2, 3, 8, 8]))
    n.conv = L.Convolution(n.data, num_output=4, kernel_size=3, pad=[1],
                           param=[dict(name='conv_w', lr_mult=1),
                                  dict(name='conv_b', lr_mult=2,
                                       decay_mult=0)],
                           bias_filler=dict(type='constant', value=0.1),
                           include=dict(phase=caffe.TEST),
                           loss_weight=0.5)
    n['pool'] = L.Pooling(n.conv, pool=P.Pooling.AVE, global_pooling=True)
    proto = n.to_proto()
    assert n['pool'] is n.pool
    data, conv, pool = proto.layer
    assert list(data.input_param.shape[0].dim) == [2, 3, 8, 8]
    assert [p.name for p in conv.param] == ['conv_w', 'conv_b']
    assert [p.lr_mult for p in conv.param] == [1, 2]
    assert conv.param[1].decay_mult == 0 and conv.param[1].HasField(
        'decay_mult')
    assert list(conv.convolution_param.pad) == [1]
    assert conv.convolution_param.bias_filler.value == pytest.approx(0.1)
    assert [r.phase for r in conv.include] == [caffe_pb2.TEST]
    assert list(conv.loss_weight) == [0.5]
    assert pool.pooling_param.pool == caffe_pb2.PoolingParameter.AVE == 1
    assert pool.pooling_param.global_pooling
    assert P.Pooling.MAX == 0 and P.Pooling.STOCHASTIC == 2
    assert P.Eltwise.SUM == caffe_pb2.EltwiseParameter.SUM


def test_param_messages_and_unknown_fields():
    # Deconvolution has no deconvolution_param: as in Caffe, its settings go
    # in convolution_param explicitly; a bare num_output is no field at all.
    x = L.Input(shape=dict(dim=[1, 1, 4, 4]))
    up = L.Deconvolution(x, convolution_param=dict(num_output=2,
                                                   kernel_size=2, stride=2))
    layer = up.to_proto().layer[1]
    assert layer.convolution_param.num_output == 2
    assert list(layer.convolution_param.stride) == [2]
    with pytest.raises(AttributeError):
        L.Deconvolution(x, num_output=2).to_proto()
    with pytest.raises(AttributeError):
        L.Convolution(x, no_such_field=1).to_proto()


def test_module_to_proto_collects_all_tops_once():
    data = L.Input(shape=dict(dim=[1, 2]))
    a = L.ReLU(data)
    b = L.Sigmoid(data)
    proto = to_proto(a, b)
    assert [l.name for l in proto.layer] == ['Input1', 'ReLU1', 'Sigmoid1']
    assert [list(l.bottom) for l in proto.layer] == [[], ['Input1'],
                                                    ['Input1']]
