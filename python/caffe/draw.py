"""Draw a NetParameter as a graph (Caffe 1.0's caffe.draw), with pydot and
Graphviz's `dot`.

Layers are boxes (coloured by type; in-place layers green), blobs octagons;
an edge from a layer to its top is labelled with the batch size (Data) or
num_output (Convolution, Deconvolution, InnerProduct). rankdir is Graphviz's
('LR', 'TB', 'BT', 'RL'); phase (caffe_pb2.TRAIN / TEST, or None for all)
keeps only the layers whose include/exclude rules admit that phase.
"""

import pydot

from caffe.proto import caffe_pb2

LAYER_STYLE_DEFAULT = {'shape': 'record', 'fillcolor': '#6495ED',
                       'style': 'filled'}
NEURON_LAYER_STYLE = {'shape': 'record', 'fillcolor': '#90EE90',
                      'style': 'filled'}
BLOB_STYLE = {'shape': 'octagon', 'fillcolor': '#E0E0E0',
              'style': 'filled'}


def get_pooling_types_dict():
    """Map PoolingParameter.PoolMethod numbers to their names."""
    desc = caffe_pb2.PoolingParameter.PoolMethod.DESCRIPTOR
    return {v.number: name for name, v in desc.values_by_name.items()}


def get_edge_label(layer):
    """Label for the edges from a layer to its tops."""
    if layer.type == 'Data':
        return 'Batch ' + str(layer.data_param.batch_size)
    if layer.type in ('Convolution', 'Deconvolution'):
        return str(layer.convolution_param.num_output)
    if layer.type == 'InnerProduct':
        return str(layer.inner_product_param.num_output)
    return '""'


def _first_or(values, default):
    return values[0] if len(values) else default


# Layer types whose parameters get a learning rate multiplier each.
_LEARNING_LAYERS = ('Convolution', 'Deconvolution', 'InnerProduct')


def get_layer_lr_mult(layer):
    """The (weight, bias) lr_mult of a Convolution, Deconvolution or
    InnerProduct layer, 1.0 where not given (Caffe's default); ValueError
    for other layer types and for more than two param entries."""
    if layer.type not in _LEARNING_LAYERS:
        raise ValueError('%s layers have no learning rate multiplier to show'
                         % layer.type)
    if len(layer.param) > 2:
        raise ValueError('layer %s has %d param entries; at most 2 (weights '
                         'and bias) expected' % (layer.name, len(layer.param)))
    mults = [p.lr_mult if p.HasField('lr_mult') else 1.0 for p in layer.param]
    mults += [1.0] * (2 - len(mults))
    return mults[0], mults[1]


def get_layer_label(layer, rankdir, display_lrm=False):
    """The node label of a layer: name, type and, for convolution and
    pooling, kernel size, stride and pad; with display_lrm, the lr_mult of
    layers that learn."""
    # Vertical graphs have room across, horizontal ones down.
    separator = ' ' if rankdir in ('TB', 'BT') else '\\n'
    if layer.type in ('Convolution', 'Deconvolution'):
        cp = layer.convolution_param
        label = '%s%s(%s)%skernel size: %d%sstride: %d%spad: %d' % (
            layer.name, separator, layer.type, separator,
            _first_or(cp.kernel_size, 1), separator,
            _first_or(cp.stride, 1), separator, _first_or(cp.pad, 0))
    elif layer.type == 'Pooling':
        # Master's order, "(Pooling MAX)"; Caffe 1.0 wrote "(MAX Pooling)".
        pp = layer.pooling_param
        label = '%s%s(%s %s)%skernel size: %d%sstride: %d%spad: %d' % (
            layer.name, separator, layer.type,
            get_pooling_types_dict()[pp.pool], separator, pp.kernel_size,
            separator, pp.stride, separator, pp.pad)
    else:
        label = '%s%s(%s)' % (layer.name, separator, layer.type)
    if display_lrm and layer.type in _LEARNING_LAYERS:
        mults = get_layer_lr_mult(layer)
        if any(mults):  # a frozen layer (both 0) shows none, as in master
            label += '%slr mult: %.1f, %.1f' % ((separator,) + mults)
    # The outer quotes keep dot from reading ':' as a port separator.
    return '"%s"' % label


def choose_color_by_layertype(layertype):
    """Fill colour of a (not in-place) layer node."""
    if layertype in ('Convolution', 'Deconvolution'):
        return '#FF5050'
    if layertype == 'Pooling':
        return '#FF9900'
    if layertype == 'InnerProduct':
        return '#CC33FF'
    return '#6495ED'


def _in_phase(layer, phase):
    """Whether a layer is in the net built for `phase` (stages and levels
    are ignored, as in Caffe 1.0's drawing)."""
    if len(layer.include) > 0 and len(layer.exclude) > 0:
        raise ValueError('layer ' + layer.name + ' has both include '
                         'and exclude specified.')

    def matches(rule):
        return not rule.HasField('phase') or rule.phase == phase

    if len(layer.include) > 0:
        return any(matches(rule) for rule in layer.include)
    return not any(matches(rule) for rule in layer.exclude)


def _quoted(name):
    return '"%s"' % name.replace('"', '\\"')


def get_pydot_graph(caffe_net, rankdir, label_edges=True, phase=None,
                    display_lrm=False):
    """Build the pydot.Dot graph of a NetParameter."""
    if phase is not None:
        phase = int(phase)  # caffe.TRAIN may be an enum object, not an int
    pydot_graph = pydot.Dot(caffe_net.name if caffe_net.name else 'Net',
                            graph_type='digraph', rankdir=rankdir)
    pydot_nodes = {}
    pydot_edges = []
    for layer in caffe_net.layer:
        if phase is not None and not _in_phase(layer, phase):
            continue
        node_label = get_layer_label(layer, rankdir, display_lrm)
        node_name = '%s_%s' % (layer.name, layer.type)
        if (len(layer.bottom) == 1 and len(layer.top) == 1 and
                layer.bottom[0] == layer.top[0]):
            pydot_nodes[node_name] = pydot.Node(node_label,
                                                **NEURON_LAYER_STYLE)
        else:
            style = dict(LAYER_STYLE_DEFAULT)
            style['fillcolor'] = choose_color_by_layertype(layer.type)
            pydot_nodes[node_name] = pydot.Node(node_label, **style)
        for bottom_blob in layer.bottom:
            pydot_nodes[bottom_blob + '_blob'] = pydot.Node(
                _quoted(bottom_blob), **BLOB_STYLE)
            pydot_edges.append((bottom_blob + '_blob', node_name, '""'))
        for top_blob in layer.top:
            pydot_nodes[top_blob + '_blob'] = pydot.Node(
                _quoted(top_blob), **BLOB_STYLE)
            label = get_edge_label(layer) if label_edges else '""'
            pydot_edges.append((node_name, top_blob + '_blob', label))
    for node in pydot_nodes.values():
        pydot_graph.add_node(node)
    for src, dst, label in pydot_edges:
        pydot_graph.add_edge(pydot.Edge(pydot_nodes[src], pydot_nodes[dst],
                                        label=label))
    return pydot_graph


def draw_net(caffe_net, rankdir, ext='png', phase=None, display_lrm=False):
    """Draw a NetParameter and return the image as bytes in format `ext`
    (any Graphviz output format; 'raw' gives the dot source)."""
    graph = get_pydot_graph(caffe_net, rankdir, phase=phase,
                            display_lrm=display_lrm)
    if ext == 'raw':
        return graph.to_string().encode('utf-8')
    return graph.create(format=ext)


def draw_net_to_file(caffe_net, filename, rankdir='LR', phase=None,
                     display_lrm=False):
    """Draw a NetParameter to a file whose extension names the format
    ('.png', '.svg', '.pdf', ..., '.raw' for the dot source)."""
    ext = filename[filename.rfind('.') + 1:]
    image = draw_net(caffe_net, rankdir, ext, phase, display_lrm)
    with open(filename, 'wb') as fid:
        fid.write(image)
