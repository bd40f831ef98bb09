classdef Blob < handle
  % caffe.Blob: one caffe::Blob (a net's activation or a layer's parameter).
  %
  % Data crosses as single arrays in Caffe 1.0's matcaffe order: a blob of
  % Caffe shape (N, C, H, W) is an array of size [W H C N] (axes reversed,
  % the same memory read column-major).  A blob handed out by net.blobs()
  % belongs to that net: reading its data is refused, with the fix in the
  % message, when mem_param gave its memory to another blob.  Any use after
  % its net was freed (or caffe.reset_all) is an error.

  properties (Access = private)
    hBlob_self
  end
  properties (SetAccess = private)
    name   % the blob's name in its net, or '' for a layer parameter
  end

  methods
    function self = Blob(hBlob_blob, name)
      CHECK(isstruct(hBlob_blob) && isscalar(hBlob_blob), ...
        'invalid Blob handle');
      self.hBlob_self = hBlob_blob;
      if nargin < 2
        name = '';
      end
      self.name = name;
    end
    function shape = shape(self)
      shape = caffe_('blob_get_shape', self.hBlob_self);
    end
    function reshape(self, shape)
      CHECK(isempty(shape) || (isnumeric(shape) && isrow(shape)), ...
        'shape must be an integer row vector');
      caffe_('blob_reshape', self.hBlob_self, double(shape));
    end
    function data = get_data(self)
      data = caffe_('blob_get_data', self.hBlob_self);
    end
    function set_data(self, data)
      caffe_('blob_set_data', self.hBlob_self, self.prepare(data));
    end
    function diff = get_diff(self)
      diff = caffe_('blob_get_diff', self.hBlob_self);
    end
    function set_diff(self, diff)
      caffe_('blob_set_diff', self.hBlob_self, self.prepare(diff));
    end
  end

  methods (Access = private)
    function data = prepare(self, data)
      CHECK(isnumeric(data) || islogical(data), ...
        'data or diff must be a numeric array');
      % Octave and MATLAB arrays have at least 2 axes and drop trailing
      % singleton axes, so compare sizes after padding both with ones.
      target = self.shape();
      target = [target, ones(1, 2 - numel(target))];
      given = size(data);
      n = max(numel(target), numel(given));
      target = [target, ones(1, n - numel(target))];
      given = [given, ones(1, n - numel(given))];
      if ~isequal(target, given)
        if isempty(self.name)
          what = 'target blob';
        else
          what = sprintf('blob ''%s''', self.name);
        end
        error('caffe:shapeMismatch', ...
          'input data/diff size [ %s] does not match %s shape [ %s]', ...
          sprintf('%d ', given), what, sprintf('%d ', target));
      end
      if ~isa(data, 'single')
        data = single(data);
      end
    end
  end
end
