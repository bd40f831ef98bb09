function [curr_dat_sz, curr_lab_sz] = store2hdf5(filename, data, labels, create, startloc, chunksz)
% [curr_dat_sz, curr_lab_sz] = store2hdf5(filename, data, labels, create, startloc, chunksz)
%   Writes samples into an HDF5 file that Caffe's HDF5Data layer reads:
%   datasets /data (single, [W H C N] here, N x C x H x W in the file) and
%   /label (single, [D N] here, N x D in the file), both unlimited in N.
%
%   data     W x H x C x N array (any numeric type; stored as single)
%   labels   D x N array, one column per sample
%   create   true (default): make a new file (an existing one is replaced);
%            false: append to the file's datasets
%   startloc struct with fields dat and lab: where the block starts
%            (1-based).  Default: the first sample when creating, after
%            the last stored sample when appending.
%   chunksz  samples per HDF5 chunk when creating (default 1000)
%   Returns the datasets' sizes after the write.
%
% Under GNU Octave, which has no h5create/h5write/h5info, the stand-ins
% in matlab/hdf5creation/octave (matcaffe's caffe.io.h5*) are used; put
% both matlab/ and matlab/hdf5creation/octave on the path (demo.m does).

dat_dims = size(data);
lab_dims = size(labels);
% A single sample (or a 1-D label) drops trailing singletons: restore them.
if ndims(data) < 4
  dat_dims(end + 1:4) = 1;
end
num_samples = dat_dims(end);
if lab_dims(end) ~= num_samples
  error('store2hdf5: data has %d samples but labels has %d columns', ...
        num_samples, lab_dims(end));
end
if nargin < 4 || isempty(create)
  create = true;
end

if create
  if nargin < 6 || isempty(chunksz)
    chunksz = 1000;
  end
  if exist(filename, 'file')
    fprintf('store2hdf5: replacing %s\n', filename);
    delete(filename);
  end
  h5create(filename, '/data', [dat_dims(1:end - 1) Inf], ...
           'Datatype', 'single', 'ChunkSize', [dat_dims(1:end - 1) chunksz]);
  h5create(filename, '/label', [lab_dims(1:end - 1) Inf], ...
           'Datatype', 'single', 'ChunkSize', [lab_dims(1:end - 1) chunksz]);
  if nargin < 5 || isempty(startloc)
    startloc.dat = ones(1, numel(dat_dims));
    startloc.lab = ones(1, numel(lab_dims));
  end
elseif nargin < 5 || isempty(startloc)
  % Append after what is there; the sample shape must match.
  [stored_dat, stored_lab] = stored_sizes(filename);
  if ~isequal(stored_dat(1:end - 1), dat_dims(1:end - 1))
    error('store2hdf5: data samples are %s, the file holds %s', ...
          mat2str(dat_dims(1:end - 1)), mat2str(stored_dat(1:end - 1)));
  end
  if ~isequal(stored_lab(1:end - 1), lab_dims(1:end - 1))
    error('store2hdf5: label samples are %s, the file holds %s', ...
          mat2str(lab_dims(1:end - 1)), mat2str(stored_lab(1:end - 1)));
  end
  startloc.dat = [ones(1, numel(dat_dims) - 1), stored_dat(end) + 1];
  startloc.lab = [ones(1, numel(lab_dims) - 1), stored_lab(end) + 1];
end

if num_samples > 0
  h5write(filename, '/data', single(data), startloc.dat, dat_dims);
  h5write(filename, '/label', single(labels), startloc.lab, lab_dims);
end
if nargout
  [curr_dat_sz, curr_lab_sz] = stored_sizes(filename);
end
end

function [dat_sz, lab_sz] = stored_sizes(filename)
info = h5info(filename);
names = {info.Datasets.Name};
dat_sz = info.Datasets(strcmp(names, 'data')).Dataspace.Size;
lab_sz = info.Datasets(strcmp(names, 'label')).Dataspace.Size;
end
