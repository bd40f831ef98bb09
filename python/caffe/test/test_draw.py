"""Tests of caffe.draw and python/draw_net.py: graph structure (nodes,
edges, labels, styles), phase filtering, rankdir, and rendering through
Graphviz's dot to PNG, SVG and dot source."""

import os
import subprocess
import sys

import pytest
from google.protobuf import text_format

import caffe.draw
from caffe.proto import caffe_pb2

NET_TEXT = """
name: "LeNetish"
layer { name: "mnist" type: "Data" top: "data" top: "label"
  include { phase: TRAIN } data_param { source: "x" batch_size: 64 } }
layer { name: "mnist_test" type: "Data" top: "data" top: "label"
  include { phase: TEST } data_param { source: "y" batch_size: 100 } }
layer { name: "conv1" type: "Convolution" bottom: "data" top: "conv1"
  convolution_param { num_output: 20 kernel_size: 5 stride: 2 pad: 1 } }
layer { name: "pool1" type: "Pooling" bottom: "conv1" top: "pool1"
  pooling_param { pool: MAX kernel_size: 2 stride: 2 } }
layer { name: "ip1" type: "InnerProduct" bottom: "pool1" top: "ip1"
  inner_product_param { num_output: 10 } }
layer { name: "relu1" type: "ReLU" bottom: "ip1" top: "ip1" }
layer { name: "accuracy" type: "Accuracy" bottom: "ip1" bottom: "label"
  top: "accuracy" include { phase: TEST } }
layer { name: "loss" type: "SoftmaxWithLoss" bottom: "ip1" bottom: "label"
  top: "loss" exclude { phase: TEST } }
"""

PYTHON_DIR = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))


def _net(text=NET_TEXT):
    net = caffe_pb2.NetParameter()
    text_format.Merge(text, net)
    return net


def _nodes(graph):
    return {n.get_name(): n for n in graph.get_nodes()}


def _edges(graph):
    return [(e.get_source(), e.get_destination(), e.get('label'))
            for e in graph.get_edges()]


def test_graph_of_all_phases():
    graph = caffe.draw.get_pydot_graph(_net(), 'LR')
    nodes = _nodes(graph)
    layer_nodes = [n for n in nodes if '(' in n]
    blob_nodes = [n for n in nodes if '(' not in n]
    assert len(layer_nodes) == 8
    assert sorted(blob_nodes) == sorted('"%s"' % b for b in (
        'data', 'label', 'conv1', 'pool1', 'ip1', 'accuracy', 'loss'))
    # One edge per bottom and per top.
    assert len(graph.get_edges()) == 2 + 2 + 2 + 2 + 2 + 2 + 3 + 3

    conv = '"conv1\\n(Convolution)\\nkernel size: 5\\nstride: 2\\npad: 1"'
    pool = '"pool1\\n(Pooling MAX)\\nkernel size: 2\\nstride: 2\\npad: 0"'
    assert conv in nodes and pool in nodes
    assert nodes[conv].get('fillcolor') == '#FF5050'
    assert nodes[pool].get('fillcolor') == '#FF9900'
    assert nodes['"ip1\\n(InnerProduct)"'].get('fillcolor') == '#CC33FF'
    assert nodes['"loss\\n(SoftmaxWithLoss)"'].get('fillcolor') == '#6495ED'
    assert nodes['"relu1\\n(ReLU)"'].get('fillcolor') == '#90EE90'
    assert nodes['"data"'].get('shape') == 'octagon'
    assert nodes['"loss"'].get('shape') == 'octagon'

    edges = _edges(graph)
    assert (conv, '"conv1"', '20') in edges
    assert ('"data"', conv, '""') in edges
    assert ('"mnist\\n(Data)"', '"data"', 'Batch 64') in edges
    assert ('"ip1\\n(InnerProduct)"', '"ip1"', '10') in edges
    # The in-place ReLU reads and writes the same blob node.
    assert ('"ip1"', '"relu1\\n(ReLU)"', '""') in edges
    assert ('"relu1\\n(ReLU)"', '"ip1"', '""') in edges
    assert graph.get_name() == 'LeNetish'
    assert graph.get('rankdir') == 'LR'


def test_phase_filtering():
    train = _nodes(caffe.draw.get_pydot_graph(_net(), 'LR',
                                              phase=caffe_pb2.TRAIN))
    test = _nodes(caffe.draw.get_pydot_graph(_net(), 'LR',
                                             phase=caffe_pb2.TEST))
    assert '"mnist\\n(Data)"' in train and '"mnist\\n(Data)"' not in test
    assert '"mnist_test\\n(Data)"' in test
    assert '"mnist_test\\n(Data)"' not in train
    assert '"accuracy\\n(Accuracy)"' in test
    assert '"accuracy\\n(Accuracy)"' not in train
    assert '"loss\\n(SoftmaxWithLoss)"' in train
    assert '"loss\\n(SoftmaxWithLoss)"' not in test
    assert len([n for n in train if "(" in n]) == 6
    assert len([n for n in test if '(' in n]) == 6

    bad = _net('layer { name: "x" type: "ReLU" bottom: "a" top: "a" '
               'include { phase: TRAIN } exclude { phase: TEST } }')
    with pytest.raises(ValueError, match='layer x has both include and '
                                         'exclude specified'):
        caffe.draw.get_pydot_graph(bad, 'LR', phase=caffe_pb2.TRAIN)


def test_vertical_rankdir_uses_spaces_and_unlabelled_edges():
    graph = caffe.draw.get_pydot_graph(_net(), 'TB', label_edges=False)
    nodes = _nodes(graph)
    assert '"conv1 (Convolution) kernel size: 5 stride: 2 pad: 1"' in nodes
    assert all(label == '""' for _, _, label in _edges(graph))
    assert graph.get('rankdir') == 'TB'


def test_draw_to_png_svg_and_raw(tmp_path):
    net = _net()
    png = caffe.draw.draw_net(net, 'LR', 'png')
    assert png[:8] == b'\x89PNG\r\n\x1a\n' and len(png) > 1000

    svg_path = tmp_path / 'net.svg'
    caffe.draw.draw_net_to_file(net, str(svg_path), 'BT',
                                phase=caffe_pb2.TEST)
    svg = svg_path.read_text()
    assert svg.lstrip().startswith('<?xml') and '<svg' in svg
    assert 'mnist_test' in svg and 'accuracy' in svg
    assert '>mnist<' not in svg.replace(' ', '')  # the TRAIN data layer

    raw_path = tmp_path / 'net.raw'
    caffe.draw.draw_net_to_file(net, str(raw_path))
    raw = raw_path.read_text()
    assert raw.startswith('digraph LeNetish {') and 'rankdir=LR' in raw


def test_draw_net_script(tmp_path):
    proto = tmp_path / 'net.prototxt'
    proto.write_text(NET_TEXT)
    out = tmp_path / 'net.png'
    env = dict(os.environ)
    env['PYTHONPATH'] = PYTHON_DIR + os.pathsep + env.get('PYTHONPATH', '')
    run = subprocess.run(
        [sys.executable, os.path.join(PYTHON_DIR, 'draw_net.py'), str(proto),
         str(out), '--rankdir', 'TB', '--phase', 'TRAIN'],
        env=env, capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    assert 'Drawing net to %s' % out in run.stdout
    assert out.read_bytes()[:8] == b'\x89PNG\r\n\x1a\n'

    run = subprocess.run(
        [sys.executable, os.path.join(PYTHON_DIR, 'draw_net.py'), str(proto),
         str(out), '--phase', 'VAL'],
        env=env, capture_output=True, text=True, timeout=60)
    assert run.returncode != 0 and 'Unknown phase: VAL' in run.stderr


def test_display_lrm_shows_learning_rate_multipliers(tmp_path):
    net = _net(NET_TEXT.replace(
        'inner_product_param { num_output: 10 }',
        'param { lr_mult: 3 } param { lr_mult: 6 } '
        'inner_product_param { num_output: 10 }'))
    layers = {l.name: l for l in net.layer}
    assert caffe.draw.get_layer_lr_mult(layers['ip1']) == (3.0, 6.0)
    assert caffe.draw.get_layer_lr_mult(layers['conv1']) == (1.0, 1.0)
    with pytest.raises(ValueError):
        caffe.draw.get_layer_lr_mult(layers['pool1'])
    label = caffe.draw.get_layer_label(layers['ip1'], 'LR', display_lrm=True)
    assert label.endswith('\\nlr mult: 3.0, 6.0"'), label
    assert 'lr mult' not in caffe.draw.get_layer_label(layers['ip1'], 'LR')
    assert 'lr mult' not in caffe.draw.get_layer_label(layers['pool1'], 'LR',
                                                       display_lrm=True)
    frozen = _net(NET_TEXT.replace(
        'inner_product_param { num_output: 10 }',
        'param { lr_mult: 0 } param { lr_mult: 0 } '
        'inner_product_param { num_output: 10 }'))
    ip = [l for l in frozen.layer if l.name == 'ip1'][0]
    assert 'lr mult' not in caffe.draw.get_layer_label(ip, 'LR', True)
    # Positional, as Caffe master's draw_net(net, rankdir, ext, phase, lrm).
    dot = caffe.draw.draw_net(net, 'LR', 'raw', None, True).decode()
    assert 'lr mult: 3.0, 6.0' in dot
    proto = tmp_path / 'net.prototxt'
    proto.write_text(str(net))
    out = tmp_path / 'net.svg'
    env = dict(os.environ)
    env['PYTHONPATH'] = PYTHON_DIR + os.pathsep + env.get('PYTHONPATH', '')
    run = subprocess.run(
        [sys.executable, os.path.join(PYTHON_DIR, 'draw_net.py'), str(proto),
         str(out), '--display_lrm'],
        env=env, capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    assert 'lr mult: 3.0, 6.0' in out.read_text()
