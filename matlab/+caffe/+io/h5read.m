function data = h5read(filename, dataset, start, count)
% data = caffe.io.h5read(filename, dataset[, start, count])
%   Reads a floating-point HDF5 dataset (single or double, as stored), all
%   of it or the block at start (1-based) of size count, both in Octave's
%   order, as MATLAB's h5read.

if nargin ~= 2 && nargin ~= 4
  error('caffe:usage', ['Usage: caffe.io.h5read(filename, dataset[, ' ...
    'start, count])']);
end
if ~ischar(filename) || ~ischar(dataset)
  error('caffe:usage', 'filename and dataset must be strings');
end
if dataset(1) ~= '/'
  dataset = ['/' dataset];
end
caffe_mex = caffe.ensure_mex_();
if nargin == 2
  data = caffe_mex('h5_read', filename, dataset);
else
  data = caffe_mex('h5_read', filename, dataset, double(start), ...
    double(count));
end
end
