classdef Layer < handle
  % caffe.Layer: one layer of a caffe.Net.
  %
  % params holds the layer's learnable blobs (weights first, then bias) as
  % caffe.Blob objects, [] for a layer without parameters; type() is the
  % layer's type name ('Convolution', ...).

  properties (Access = private)
    hLayer_self
    attributes
  end
  properties (SetAccess = private)
    params
  end

  methods
    function self = Layer(hLayer_layer)
      CHECK(isstruct(hLayer_layer) && isscalar(hLayer_layer), ...
        'invalid Layer handle');
      self.hLayer_self = hLayer_layer;
      self.attributes = caffe_('layer_get_attr', self.hLayer_self);
      % Built in a local: Octave 7 has no Blob.empty() and cannot grow an
      % object array held in a property from [].
      params = [];
      for n = 1:numel(self.attributes.hBlob_blobs)
        blob = caffe.Blob(self.attributes.hBlob_blobs(n));
        if n == 1
          params = blob;
        else
          params(n) = blob;
        end
      end
      self.params = params;
    end
    function layer_type = type(self)
      layer_type = caffe_('layer_get_type', self.hLayer_self);
    end
  end
end
