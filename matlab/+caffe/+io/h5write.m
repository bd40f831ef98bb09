function h5write(filename, dataset, data, start, count)
% caffe.io.h5write(filename, dataset, data[, start, count])
%   Writes single or double data into an HDF5 dataset made by
%   caffe.io.h5create, as MATLAB's h5write: start (1-based) and count in
%   Octave's order, default the whole array from the first element.  A
%   write past the end of an unlimited dimension extends the dataset.

if nargin < 3 || ~ischar(filename) || ~ischar(dataset)
  error('caffe:usage', ['Usage: caffe.io.h5write(filename, dataset, ' ...
    'data, start, count)']);
end
if nargin < 4
  start = ones(1, ndims(data));
end
if nargin < 5
  count = size(data);
end
if dataset(1) ~= '/'
  dataset = ['/' dataset];
end
caffe_mex = caffe.ensure_mex_();
caffe_mex('h5_write', filename, dataset, data, double(start), double(count));
end
