"""The Pythonic layer over _caffe's Net and solvers (Caffe 1.0's pycaffe).

Methods and properties are attached to the compiled classes themselves
rather than to subclasses, so nets a solver creates (solver.net,
solver.test_nets) have the same interface as nets built from Python.

Net(network_file, phase, level=0, stages=None, weights=None) builds a net;
network_file is a prototxt path or a caffe_pb2.NetParameter (for instance
from NetSpec.to_proto(), or a parsed prototxt whose mem_param was set in
Python).  Net.from_string(text, phase, ...) takes prototxt text.  The legacy
Net(network_file, weights_file, phase) still works.

The dict-like properties (blobs, params, layer_dict, blob_loss_weights) are
built once per Python Net object and cached on it, as in Caffe 1.0.
"""

from collections import OrderedDict
from itertools import zip_longest

import numpy as np

from ._caffe import Net, SGDSolver, NesterovSolver, AdaGradSolver, \
    RMSPropSolver, AdaDeltaSolver, AdamSolver, NCCL, Timer, Solver
from .proto import caffe_pb2


@property
def _Net_blobs(self):
    """An OrderedDict (bottom to top, i.e., input to output) of network
    blobs indexed by name.  With mem_param, reading .data/.diff of a blob
    whose memory another blob reuses raises caffe.BlobNotReadableError."""
    if not hasattr(self, '_blobs_dict'):
        self._blobs_dict = OrderedDict(zip(self._blob_names, self._blobs))
    return self._blobs_dict


@property
def _Net_blob_loss_weights(self):
    """An OrderedDict (bottom to top) of the loss weight of each blob,
    indexed by name."""
    if not hasattr(self, '_blob_loss_weights_dict'):
        self._blob_loss_weights_dict = OrderedDict(
            zip(self._blob_names, self._blob_loss_weights))
    return self._blob_loss_weights_dict


@property
def _Net_layer_dict(self):
    """An OrderedDict (bottom to top) of the layers, indexed by name."""
    if not hasattr(self, '_layer_dict'):
        self._layer_dict = OrderedDict(zip(self._layer_names, self.layers))
    return self._layer_dict


@property
def _Net_params(self):
    """An OrderedDict (bottom to top) of the parameters of each layer that
    has any, indexed by layer name; each is a list of blobs (e.g. weights
    and biases)."""
    if not hasattr(self, '_params_dict'):
        self._params_dict = OrderedDict(
            [(name, lr.blobs)
             for name, lr in zip(self._layer_names, self.layers)
             if len(lr.blobs) > 0])
    return self._params_dict


@property
def _Net_inputs(self):
    if not hasattr(self, '_input_list'):
        keys = list(self.blobs.keys())
        self._input_list = [keys[i] for i in self._inputs]
    return self._input_list


@property
def _Net_outputs(self):
    if not hasattr(self, '_output_list'):
        keys = list(self.blobs.keys())
        self._output_list = [keys[i] for i in self._outputs]
    return self._output_list


@property
def _Net_mem_param(self):
    """The MemoryOptimizationParameter the net was optimized with (from
    the prototxt's mem_param), or None when the net is not optimized."""
    raw = self._mem_param
    if raw is None:
        return None
    param = caffe_pb2.MemoryOptimizationParameter()
    param.ParseFromString(raw)
    return param


def _layer_index(net, name):
    names = list(net._layer_names)
    if name not in names:
        raise KeyError('no layer named {!r} in net {!r}'.format(
            name, net.name))
    return names.index(name)


def _Net_forward(self, blobs=None, start=None, end=None, **kwargs):
    """Forward pass: prepare inputs and run the net forward.

    blobs: list of blobs to return in addition to output blobs; with
           mem_param they stay readable (net.blobs[b].data) afterwards.
    kwargs: keys are input blob names and values are blob ndarrays;
            without them, input is taken from the net's data layers.
    start: optional name of the layer at which to begin the forward pass.
    end: optional name of the layer at which to finish it (inclusive).

    Returns {blob name: blob ndarray}.
    """
    if blobs is None:
        blobs = []

    if start is not None:
        start_ind = _layer_index(self, start)
    else:
        start_ind = 0

    if end is not None:
        end_ind = _layer_index(self, end)
        outputs = set(self.top_names[end] + blobs)
    else:
        end_ind = len(self.layers) - 1
        outputs = set(self.outputs + blobs)

    # Under mem_param the blobs asked for get memory of their own, so they
    # hold this pass's values afterwards (Net.RequestBlobs).
    self._request_blobs(sorted(outputs), False)

    if kwargs:
        if set(kwargs.keys()) != set(self.inputs):
            raise Exception('Input blob arguments do not match net inputs.')
        # Set the inputs in place: the blobs keep their defined shapes, and
        # numpy converts to float32.
        for in_, blob in kwargs.items():
            if blob.shape[0] != self.blobs[in_].shape[0]:
                raise Exception('Input is not batch sized')
            self.blobs[in_].data[...] = blob

    self._forward(start_ind, end_ind)

    # Unpack blobs to extract
    return {out: self.blobs[out].data for out in outputs}


def _Net_backward(self, diffs=None, start=None, end=None, **kwargs):
    """Backward pass: prepare diffs and run the net backward.

    diffs: list of diffs to return in addition to bottom diffs; with
           mem_param they stay readable (net.blobs[b].diff) afterwards.
    kwargs: keys are output blob names and values are diff ndarrays;
            without them, top diffs come from the forward loss.
    start: optional name of the layer at which to begin the backward pass.
    end: optional name of the layer at which to finish it (inclusive).

    Returns {blob name: diff ndarray}.
    """
    if diffs is None:
        diffs = []

    if start is not None:
        start_ind = _layer_index(self, start)
    else:
        start_ind = len(self.layers) - 1

    if end is not None:
        end_ind = _layer_index(self, end)
        outputs = set(self.bottom_names[end] + diffs)
    else:
        end_ind = 0
        outputs = set(self.inputs + diffs)

    self._request_blobs(sorted(outputs), True)  # as in forward()

    if kwargs:
        if set(kwargs.keys()) != set(self.outputs):
            raise Exception('Top diff arguments do not match net outputs.')
        for top, diff in kwargs.items():
            if diff.shape[0] != self.blobs[top].shape[0]:
                raise Exception('Diff is not batch sized')
            self.blobs[top].diff[...] = diff

    self._backward(start_ind, end_ind)

    # Unpack diffs to extract
    return {out: self.blobs[out].diff for out in outputs}


def _Net_forward_all(self, blobs=None, **kwargs):
    """Run the net forward in batches.

    blobs: list of blobs to extract as in forward().
    kwargs: keys are input blob names and values are blob ndarrays of any
            length; refer to forward().

    Returns {blob name: ndarray of all batches' values}.
    """
    # Collect outputs from batches
    all_outs = {out: [] for out in set(self.outputs + (blobs or []))}
    for batch in self._batch(kwargs):
        outs = self.forward(blobs=blobs, **batch)
        for out, out_blob in outs.items():
            all_outs[out].extend(out_blob.copy())
    # Package in ndarray.
    for out in all_outs:
        all_outs[out] = np.asarray(all_outs[out])
    # Discard padding.
    pad = len(next(iter(all_outs.values()))) - \
        len(next(iter(kwargs.values())))
    if pad:
        for out in all_outs:
            all_outs[out] = all_outs[out][:-pad]
    return all_outs


def _Net_forward_backward_all(self, blobs=None, diffs=None, **kwargs):
    """Run the net forward and backward in batches.

    blobs: list of blobs to extract as in forward().
    diffs: list of diffs to extract as in backward().
    kwargs: keys are input (for forward) and output (for backward) blob
            names and values are ndarrays; refer to forward() and
            backward().  Without inputs or outputs, the net's own are used.

    Returns ({blob name: blob ndarray}, {blob name: diff ndarray}).
    """
    # Batch blobs and diffs.
    all_outs = {out: [] for out in set(self.outputs + (blobs or []))}
    all_diffs = {diff: [] for diff in set(self.inputs + (diffs or []))}
    forward_batches = self._batch({in_: kwargs[in_]
                                   for in_ in self.inputs if in_ in kwargs})
    backward_batches = self._batch({out: kwargs[out]
                                    for out in self.outputs if out in kwargs})
    # Collect outputs from batches (and heed lack of forward/backward batches).
    for fb, bb in zip_longest(forward_batches, backward_batches, fillvalue={}):
        batch_blobs = self.forward(blobs=blobs, **fb)
        batch_diffs = self.backward(diffs=diffs, **bb)
        for out, out_blobs in batch_blobs.items():
            all_outs[out].extend(out_blobs.copy())
        for diff, out_diffs in batch_diffs.items():
            all_diffs[diff].extend(out_diffs.copy())
    # Package in ndarray.
    for out in all_outs:
        all_outs[out] = np.asarray(all_outs[out])
    for diff in all_diffs:
        all_diffs[diff] = np.asarray(all_diffs[diff])
    # Discard padding at the end and package in ndarray.
    pad = len(next(iter(all_outs.values()))) - \
        len(next(iter(kwargs.values())))
    if pad:
        for out in all_outs:
            all_outs[out] = all_outs[out][:-pad]
        for diff in all_diffs:
            all_diffs[diff] = all_diffs[diff][:-pad]
    return all_outs, all_diffs


def _Net_set_input_arrays(self, data, labels):
    """Set the arrays the net's first layer, a MemoryData layer, serves.
    data: N x C x H x W float32, labels: N float32 (or N x 1 x 1 x 1), both
    C-contiguous, N a multiple of the batch size.  The arrays are used in
    place (not copied) and kept referenced while the layer lives."""
    if labels.ndim == 1:
        labels = np.ascontiguousarray(labels[:, np.newaxis, np.newaxis,
                                             np.newaxis])
    return self._set_input_arrays(data, labels)


def _Net_batch(self, blobs):
    """Batch blob lists according to the net's batch size.

    blobs: keys are blob names and values are lists of blobs (of any
           length); all the lists should have the same length.

    Yields {blob name: list of blobs} for one batch at a time; the last
    batch is padded with zeros.
    """
    num = len(next(iter(blobs.values())))
    batch_size = next(iter(self.blobs.values())).shape[0]
    remainder = num % batch_size
    num_batches = num // batch_size

    # Yield full batches.
    for b in range(num_batches):
        i = b * batch_size
        yield {name: blobs[name][i:i + batch_size] for name in blobs}

    # Yield last padded batch, if any.
    if remainder > 0:
        padded_batch = {}
        for name in blobs:
            padding = np.zeros((batch_size - remainder,)
                               + blobs[name].shape[1:])
            padded_batch[name] = np.concatenate([blobs[name][-remainder:],
                                                 padding])
        yield padded_batch


def _Net_get_id_name(func, field):
    """A cached OrderedDict (bottom to top) from each layer's name to the
    names of its top (or bottom) blobs, built with func (_top_ids or
    _bottom_ids), as Caffe 1.0's top_names and bottom_names."""
    @property
    def get_id_name(self):
        if not hasattr(self, field):
            id_to_name = list(self.blobs)
            setattr(self, field, OrderedDict(
                (name, [id_to_name[j] for j in func(self, i)])
                for i, name in enumerate(self._layer_names)))
        return getattr(self, field)
    return get_id_name


class SolverParameterView(object):
    """solver.param: the solver's SolverParameter, live.

    Reading a field reads the solver's current setting (every field of
    caffe_pb2.SolverParameter, and its methods, on a fresh copy).  As in
    Caffe master, base_lr can be set on a running solver and the next
    update uses it; other fields are fixed once the solver is built."""
    __slots__ = ('_solver',)

    def __init__(self, solver):
        object.__setattr__(self, '_solver', solver)

    def _message(self):
        param = caffe_pb2.SolverParameter()
        param.ParseFromString(self._solver._param)
        return param

    def __getattr__(self, name):
        return getattr(self._message(), name)

    def __setattr__(self, name, value):
        if name == 'base_lr':
            self._solver._set_base_lr(float(value))
            return
        raise AttributeError(
            'solver.param.{} cannot be changed on a built solver; only '
            'base_lr can (edit the solver file for the rest)'.format(name))

    def __repr__(self):
        return str(self._message())


@property
def _Solver_param(self):
    """The solver's SolverParameter, live (SolverParameterView)."""
    return SolverParameterView(self)


# Attach methods to Net.
Net.blobs = _Net_blobs
Net.blob_loss_weights = _Net_blob_loss_weights
Net.layer_dict = _Net_layer_dict
Net.params = _Net_params
Net.forward = _Net_forward
Net.backward = _Net_backward
Net.forward_all = _Net_forward_all
Net.forward_backward_all = _Net_forward_backward_all
Net.set_input_arrays = _Net_set_input_arrays
Net._batch = _Net_batch
Net.inputs = _Net_inputs
Net.outputs = _Net_outputs
Net.mem_param = _Net_mem_param
Net.top_names = _Net_get_id_name(Net._top_ids, '_top_names')
Net.bottom_names = _Net_get_id_name(Net._bottom_ids, '_bottom_names')
Solver.param = _Solver_param
