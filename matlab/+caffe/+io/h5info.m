function info = h5info(filename)
% info = caffe.io.h5info(filename)
%   The datasets in an HDF5 file's root group, in name order, as the parts
%   of MATLAB's h5info that scripts for Caffe read: info.Filename and
%   info.Datasets(k).Name, .Dataspace.Size and .Dataspace.MaxSize (Octave's
%   order; Inf for an unlimited dimension).

if nargin ~= 1 || ~ischar(filename)
  error('caffe:usage', 'Usage: caffe.io.h5info(filename)');
end
caffe_mex = caffe.ensure_mex_();
raw = caffe_mex('h5_info', filename);
datasets = struct('Name', {}, 'Dataspace', {});
for k = 1:numel(raw)
  datasets(k).Name = raw(k).Name;
  datasets(k).Dataspace = struct('Size', raw(k).Size, ...
    'MaxSize', raw(k).MaxSize);
end
info = struct('Filename', filename, 'Datasets', datasets);
end
