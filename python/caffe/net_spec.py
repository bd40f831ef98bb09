"""Write nets in Python (Caffe 1.0's caffe.net_spec).

    n = NetSpec()
    n.data, n.label = L.Data(source='db', batch_size=64, ntop=2)
    n.conv1 = L.Convolution(n.data, kernel_size=5, num_output=20)
    n.relu1 = L.ReLU(n.conv1, in_place=True)
    net_param = n.to_proto()          # a caffe_pb2.NetParameter

`layers.<Type>(*bottoms, **kwargs)` makes a layer of that type. Keyword
arguments go into the layer's <type>_param message when it has such a field,
else onto LayerParameter itself (name, loss_weight, include, param, ...);
arguments ending in 'param' always go onto LayerParameter. Dicts become
messages, lists repeated fields (a scalar for a repeated field becomes a
one-element list). Two keywords are not params: ntop (number of tops, default
1; 0 returns the Function itself) and in_place (tops = bottoms).

Names: a NetSpec names each assigned top (and its layer) after the attribute;
other tops and layers get <Type><count> (e.g. Convolution1), counted per
type, as do nets built with the module-level to_proto(). A layer is named
after its first top. `params.<Type>.<CONST>` reads enum constants, e.g.
params.Pooling.MAX.
"""

from collections import Counter, OrderedDict

from .proto import caffe_pb2


def param_name_dict():
    """Map layer type names to their parameter field stems, e.g.
    'Convolution' -> 'convolution', 'InnerProduct' -> 'inner_product',
    read from LayerParameter's <stem>_param fields of type <Type>Parameter."""
    mapping = {}
    for field in caffe_pb2.LayerParameter.DESCRIPTOR.fields:
        if not field.name.endswith('_param') or field.message_type is None:
            continue
        type_name = field.message_type.name
        if type_name.endswith('Parameter'):
            mapping[type_name[:-len('Parameter')]] = \
                field.name[:-len('_param')]
    return mapping


def to_proto(*tops):
    """A NetParameter with every layer needed to compute the given tops,
    with generated names."""
    layers = OrderedDict()
    autonames = Counter()
    for top in tops:
        top.fn._to_proto(layers, {}, autonames)
    net = caffe_pb2.NetParameter()
    net.layer.extend(layers.values())
    return net


def assign_proto(proto, name, val):
    """Set field `name` of message `proto` from a Python value: lists fill
    repeated fields (lists of dicts add messages), dicts fill a message field
    recursively, anything else is assigned."""
    is_repeated_field = hasattr(getattr(proto, name), 'extend')
    if is_repeated_field and not isinstance(val, list):
        val = [val]
    if isinstance(val, list):
        if val and isinstance(val[0], dict):
            for item in val:
                proto_item = getattr(proto, name).add()
                for k, v in item.items():
                    assign_proto(proto_item, k, v)
        else:
            getattr(proto, name).extend(val)
    elif isinstance(val, dict):
        for k, v in val.items():
            assign_proto(getattr(proto, name), k, v)
    else:
        try:
            setattr(proto, name, val)
        except TypeError:
            # Enum objects such as caffe.TRAIN need not be ints themselves.
            if not hasattr(val, '__int__') or isinstance(val, (str, bytes)):
                raise
            setattr(proto, name, int(val))


class Top(object):
    """One output blob of a layer: the n-th top of Function fn."""

    def __init__(self, fn, n):
        self.fn = fn
        self.n = n

    def to_proto(self):
        """A NetParameter with every layer needed to compute this top."""
        return to_proto(self)

    def _to_proto(self, layers, names, autonames):
        return self.fn._to_proto(layers, names, autonames)


class Function(object):
    """A layer: its type, its bottoms (Tops of other layers) and its
    parameters."""

    def __init__(self, type_name, inputs, params):
        self.type_name = type_name
        for index, input in enumerate(inputs):
            if not isinstance(input, Top):
                raise TypeError('%s input %d is not a Top (type is %s)' %
                                (type_name, index, type(input)))
        self.inputs = inputs
        self.params = params
        # ntop and in_place shape the Function; they are not layer params.
        self.ntop = self.params.pop('ntop', 1)
        self.in_place = self.params.pop('in_place', False)
        self.tops = tuple(Top(self, n) for n in range(self.ntop))

    def _get_name(self, names, autonames):
        if self not in names and self.ntop > 0:
            names[self] = self._get_top_name(self.tops[0], names, autonames)
        elif self not in names:
            autonames[self.type_name] += 1
            names[self] = self.type_name + str(autonames[self.type_name])
        return names[self]

    def _get_top_name(self, top, names, autonames):
        if top not in names:
            autonames[top.fn.type_name] += 1
            names[top] = top.fn.type_name + str(autonames[top.fn.type_name])
        return names[top]

    def _to_proto(self, layers, names, autonames):
        if self in layers:
            return
        bottom_names = []
        for inp in self.inputs:
            inp._to_proto(layers, names, autonames)
            bottom_names.append(layers[inp.fn].top[inp.n])
        layer = caffe_pb2.LayerParameter()
        layer.type = self.type_name
        layer.bottom.extend(bottom_names)

        if self.in_place:
            layer.top.extend(layer.bottom)
        else:
            for top in self.tops:
                layer.top.append(self._get_top_name(top, names, autonames))
        layer.name = self._get_name(names, autonames)

        for k, v in self.params.items():
            if k.endswith('param'):
                # Generic messages: transform_param, loss_param, param, ...
                assign_proto(layer, k, v)
            else:
                try:
                    assign_proto(getattr(
                        layer, _param_names[self.type_name] + '_param'), k, v)
                except (AttributeError, KeyError):
                    # Not a field of <type>_param (or no such message):
                    # a LayerParameter field such as loss_weight or include.
                    assign_proto(layer, k, v)

        layers[self] = layer


class NetSpec(object):
    """A set of named Tops, assigned as attributes (or items); to_proto()
    gives the NetParameter computing all of them, named after the
    attributes."""

    def __init__(self):
        super(NetSpec, self).__setattr__('tops', OrderedDict())

    def __setattr__(self, name, value):
        self.tops[name] = value

    def __getattr__(self, name):
        return self.tops[name]

    def __setitem__(self, key, value):
        self.__setattr__(key, value)

    def __getitem__(self, item):
        return self.__getattr__(item)

    def to_proto(self):
        names = {v: k for k, v in self.tops.items()}
        autonames = Counter()
        layers = OrderedDict()
        for name, top in self.tops.items():
            top._to_proto(layers, names, autonames)
        net = caffe_pb2.NetParameter()
        net.layer.extend(layers.values())
        return net


class Layers(object):
    """Pseudo-module: layers.<Type>(*bottoms, **params) gives the layer's
    Top, a tuple of Tops (ntop > 1) or the Function itself (ntop=0)."""

    def __getattr__(self, name):
        def layer_fn(*args, **kwargs):
            fn = Function(name, args, kwargs)
            if fn.ntop == 0:
                return fn
            elif fn.ntop == 1:
                return fn.tops[0]
            return fn.tops
        return layer_fn


class Parameters(object):
    """Pseudo-module: params.<Type>.<CONST> is the enum constant CONST of
    caffe_pb2.<Type>Parameter, e.g. params.Pooling.MAX."""

    def __getattr__(self, name):
        class Param:
            def __getattr__(self, param_name):
                return getattr(getattr(caffe_pb2, name + 'Parameter'),
                               param_name)
        return Param()


_param_names = param_name_dict()
layers = Layers()
params = Parameters()
