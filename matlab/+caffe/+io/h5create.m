function h5create(filename, dataset, size, varargin)
% caffe.io.h5create(filename, dataset, size, 'Datatype', t, 'ChunkSize', c)
%   Creates a floating-point dataset in an HDF5 file (the file too, when it
%   does not exist), as MATLAB's h5create does for what Caffe's HDF5Data
%   layer reads.  size is in Octave's order ([W H C N] becomes the HDF5
%   dataset N x C x H x W); Inf makes a dimension unlimited, which needs a
%   ChunkSize.  Datatype: 'double' (default, as MATLAB) or 'single'.
%   GNU Octave has no h5create; matlab/hdf5creation uses this one there.

if nargin < 3 || ~ischar(filename) || ~ischar(dataset)
  error('caffe:usage', ['Usage: caffe.io.h5create(filename, dataset, ' ...
    'size, ''Datatype'', t, ''ChunkSize'', c)']);
end
datatype = 'double';
chunk = [];
if mod(numel(varargin), 2) ~= 0
  error('caffe:usage', 'options come in name, value pairs');
end
for k = 1:2:numel(varargin)
  switch lower(varargin{k})
    case 'datatype'
      datatype = varargin{k + 1};
    case 'chunksize'
      chunk = double(varargin{k + 1});
    otherwise
      error('caffe:usage', ['unknown option ''%s'' (Datatype and ' ...
        'ChunkSize are supported)'], varargin{k});
  end
end
if dataset(1) ~= '/'
  dataset = ['/' dataset];
end
caffe_mex = caffe.ensure_mex_();
caffe_mex('h5_create', filename, dataset, double(size), chunk, datatype);
end
