% demo.m: writes a small dataset for Caffe's HDF5Data layer with
% store2hdf5, in batches, then reads it back and checks every value.
% Run it from the directory that should receive the files:
%   trial_dataset.h5  /data (single, N x C x H x W) and /label (N x 1)
%   list.txt          the HDF5 file's name, the `source` of an HDF5Data layer
% Under GNU Octave the h5* stand-ins in ./octave and matcaffe are put on
% the path first (MATLAB has its own h5create, h5write, h5read, h5info).

here = fileparts(mfilename('fullpath'));
if exist('OCTAVE_VERSION', 'builtin')
  if exist(fullfile(here, '..', '+caffe'), 'dir')
    addpath(fullfile(here, '..'));      % matcaffe (+caffe)
  end
  addpath(fullfile(here, 'octave'));    % h5create and friends
end
addpath(here);                          % store2hdf5

filename = 'trial_dataset.h5';
num_total_samples = 10000;
% Images 5 x 5 with 3 channels; one label per image.
data_disk = rand(5, 5, 3, num_total_samples);
label_disk = floor(10 * rand(1, num_total_samples));

chunksz = 100;
created = false;
totalct = 0;
for batchno = 1:num_total_samples / chunksz
  fprintf('batch no. %d\n', batchno);
  last_read = (batchno - 1) * chunksz;
  % As if read from disk one batch at a time.
  batchdata = data_disk(:, :, :, last_read + 1:last_read + chunksz);
  batchlabs = label_disk(:, last_read + 1:last_read + chunksz);
  startloc = struct('dat', [1, 1, 1, totalct + 1], 'lab', [1, totalct + 1]);
  [curr_dat_sz, curr_lab_sz] = store2hdf5(filename, batchdata, batchlabs, ...
                                          ~created, startloc, chunksz);
  created = true;
  totalct = curr_dat_sz(end);
end

% Read it back: every value, as single, where it was written.
stored_data = h5read(filename, '/data');
stored_labels = h5read(filename, '/label');
fprintf('stored %s data and %s labels\n', mat2str(size(stored_data)), ...
        mat2str(size(stored_labels)));
assert(isequal(size(stored_data), size(data_disk)));
assert(isequal(stored_data, single(data_disk)));
assert(isequal(stored_labels, single(label_disk)));

% The list of files an HDF5Data layer reads (its `source`).
fid = fopen('list.txt', 'w');
fprintf(fid, '%s\n', fullfile(pwd, filename));
fclose(fid);
fprintf(['wrote %s and list.txt: point an HDF5Data layer''s source at ' ...
         'list.txt\n'], filename);
