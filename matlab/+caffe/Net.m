classdef Net < handle
  % caffe.Net: a caffe::Net seen from Octave/MATLAB (Caffe 1.0's matcaffe).
  %
  %   net = caffe.Net(model_file, phase)                 % phase 'train'/'test'
  %   net = caffe.Net(model_file, weights_file, phase)
  %
  % Blobs are exchanged as single arrays of size [W H C N] (Caffe's row-major
  % N x C x H x W with the axes reversed).  inputs/outputs are the names of
  % the net's input and output blobs.  A stand-alone net is freed when this
  % object is deleted (or by caffe.reset_all); a net that belongs to a
  % solver lives as long as the solver.  Every error raised by the library
  % (bad file, bad prototxt, wrong shape) arrives as an Octave error.

  properties (Access = private)
    hNet_self
    attributes
  end
  properties (SetAccess = private)
    layer_vec
    blob_vec
    inputs
    outputs
    name2layer_index
    name2blob_index
    layer_names
    blob_names
  end

  methods
    function self = Net(varargin)
      caffe.ensure_mex_();
      if nargin == 1 && isstruct(varargin{1})
        hNet = varargin{1};   % a handle from caffe_ (solver nets)
      else
        hNet = caffe.Net.open(varargin{:});
      end
      self.hNet_self = hNet;
      self.attributes = caffe_('net_get_attr', hNet);
      attr = self.attributes;

      self.layer_vec = caffe.Net.objects(@(n) caffe.Layer( ...
        attr.hLayer_layers(n)), numel(attr.hLayer_layers));
      self.blob_vec = caffe.Net.objects(@(n) caffe.Blob( ...
        attr.hBlob_blobs(n), attr.blob_names{n}), numel(attr.hBlob_blobs));

      % C++ indices are 0-based.
      self.inputs = attr.blob_names(attr.input_blob_indices + 1);
      self.outputs = attr.blob_names(attr.output_blob_indices + 1);
      self.name2layer_index = caffe.Net.index_map(attr.layer_names);
      self.name2blob_index = caffe.Net.index_map(attr.blob_names);
      self.layer_names = attr.layer_names;
      self.blob_names = attr.blob_names;
    end
    function delete(self)
      % Only stand-alone nets are freed; a stale handle (after reset_all)
      % has nothing left to free.
      if isempty(self.hNet_self)
        return
      end
      try
        caffe_('delete_net', self.hNet_self);
      catch
      end
    end
    function layer = layers(self, layer_name)
      CHECK(ischar(layer_name), 'layer_name must be a string');
      CHECK(isKey(self.name2layer_index, layer_name), ...
        sprintf('unknown layer name ''%s''', layer_name));
      layer = self.layer_vec(self.name2layer_index(layer_name));
    end
    function blob = blobs(self, blob_name)
      CHECK(ischar(blob_name), 'blob_name must be a string');
      CHECK(isKey(self.name2blob_index, blob_name), ...
        sprintf('unknown blob name ''%s''', blob_name));
      blob = self.blob_vec(self.name2blob_index(blob_name));
    end
    function blob = params(self, layer_name, blob_index)
      CHECK(isscalar(blob_index), 'blob_index must be a scalar');
      layer_params = self.layers(layer_name).params;
      CHECK(blob_index >= 1 && blob_index <= numel(layer_params), ...
        sprintf('layer ''%s'' has %d parameter blob(s), not %g', ...
        layer_name, numel(layer_params), blob_index));
      blob = layer_params(blob_index);
    end
    function forward_prefilled(self)
      caffe_('net_forward', self.hNet_self);
    end
    function backward_prefilled(self)
      caffe_('net_backward', self.hNet_self);
    end
    function res = forward(self, input_data)
      CHECK(iscell(input_data), 'input_data must be a cell array');
      CHECK(numel(input_data) == numel(self.inputs), ...
        'input data cell length must match input blob number');
      for n = 1:numel(self.inputs)
        self.blobs(self.inputs{n}).set_data(input_data{n});
      end
      self.forward_prefilled();
      res = cell(numel(self.outputs), 1);
      for n = 1:numel(self.outputs)
        res{n} = self.blobs(self.outputs{n}).get_data();
      end
    end
    function res = backward(self, output_diff)
      CHECK(iscell(output_diff), 'output_diff must be a cell array');
      CHECK(numel(output_diff) == numel(self.outputs), ...
        'output diff cell length must match output blob number');
      for n = 1:numel(self.outputs)
        self.blobs(self.outputs{n}).set_diff(output_diff{n});
      end
      self.backward_prefilled();
      res = cell(numel(self.inputs), 1);
      for n = 1:numel(self.inputs)
        res{n} = self.blobs(self.inputs{n}).get_diff();
      end
    end
    function keep(self, blob_names)
      % net.keep({'fc7', ...}): under mem_param, these blobs' data and
      % diffs stay readable after every later pass, as exclude_blob keeps
      % them; the memory is planned again (values computed so far are lost).
      if ischar(blob_names)
        blob_names = {blob_names};
      end
      CHECK(iscellstr(blob_names), 'blob_names must be a cell array of strings');
      caffe_('net_keep', self.hNet_self, blob_names);
    end
    function names = kept_blobs(self)
      names = caffe_('net_kept_blobs', self.hNet_self);
    end
    function copy_from(self, weights_file)
      CHECK(ischar(weights_file), 'weights_file must be a string');
      caffe_('net_copy_from', self.hNet_self, weights_file);
    end
    function reshape(self)
      caffe_('net_reshape', self.hNet_self);
    end
    function save(self, weights_file)
      CHECK(ischar(weights_file), 'weights_file must be a string');
      caffe_('net_save', self.hNet_self, weights_file);
    end
  end

  methods (Static, Access = private)
    function hNet = open(varargin)
      CHECK(nargin == 2 || nargin == 3, ['usage: ' ...
        'net = caffe.Net(model_file, phase_name) or ' ...
        'net = caffe.Net(model_file, weights_file, phase_name)']);
      model_file = varargin{1};
      phase_name = varargin{end};
      CHECK(ischar(model_file), 'model_file must be a string');
      CHECK(ischar(phase_name), 'phase_name must be a string');
      CHECK(strcmp(phase_name, 'train') || strcmp(phase_name, 'test'), ...
        'phase_name can only be ''train'' or ''test''');
      if nargin == 3
        CHECK(ischar(varargin{2}), 'weights_file must be a string');
        hNet = caffe_('get_net', model_file, phase_name, varargin{2});
      else
        hNet = caffe_('get_net', model_file, phase_name);
      end
    end
    function objs = objects(make, count)
      % An object array built in a local (see Layer.m); [] when empty.
      objs = [];
      for n = 1:count
        if n == 1
          objs = make(n);
        else
          objs(n) = make(n);
        end
      end
    end
    function m = index_map(names)
      if isempty(names)
        m = containers.Map('KeyType', 'char', 'ValueType', 'double');
      else
        m = containers.Map(names, num2cell(1:numel(names)));
      end
    end
  end
end
