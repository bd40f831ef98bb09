function tests = test_demos()
% tests = caffe.test.test_demos()
%   The demos outside +caffe, run as a user runs them: matlab/hdf5creation
%   (demo.m and store2hdf5 through the caffe.io.h5* stand-ins for MATLAB's
%   h5create, h5write, h5read, h5info) and what an HDF5Data layer then
%   reads from its files; matlab/demo/classification_demo on CaffeNet's
%   deploy net with weights of its fillers.  Returns {name, handle} rows.

tests = {
  'h5_functions_roundtrip_and_errors', @test_h5_functions
  'hdf5creation_demo_feeds_hdf5data',  @test_hdf5creation_demo
  'store2hdf5_appends',                @test_store2hdf5_append
  'classification_demo_caffenet',      @test_classification_demo
};
end

function test_h5_functions()
dir = caffe.test.make_tmpdir();
cleanup = onCleanup(@() caffe.test.remove_dir(dir)); %#ok<NASGU>
file = fullfile(dir, 'a.h5');
caffe.io.h5create(file, '/x', [3 4 Inf], 'Datatype', 'single', ...
                  'ChunkSize', [3 4 2]);
caffe.io.h5create(file, 'fixed', [2 5]);           % double, fixed size
block = single(reshape(1:24, 3, 4, 2));
caffe.io.h5write(file, '/x', block, [1 1 1], [3 4 2]);
caffe.io.h5write(file, '/x', block + 100, [1 1 3], [3 4 2]);  % grows
info = caffe.io.h5info(file);
assert(isequal({info.Datasets.Name}, {'fixed', 'x'}));   % by name
assert(isequal(info.Datasets(2).Dataspace.Size, [3 4 4]));
assert(isequal(info.Datasets(2).Dataspace.MaxSize, [3 4 Inf]));
assert(isequal(info.Datasets(1).Dataspace.MaxSize, [2 5]));
all_x = caffe.io.h5read(file, '/x');
assert(isa(all_x, 'single'));
assert(isequal(all_x, cat(3, block, block + 100)));
part = caffe.io.h5read(file, '/x', [2 1 3], [2 4 1]);
assert(isequal(part, block(2:3, :, 1) + 100));
d = rand(2, 5);
caffe.io.h5write(file, 'fixed', d);
assert(isequal(caffe.io.h5read(file, 'fixed'), d));
% Errors name the file and dataset.
caffe.test.expect_error(@() caffe.io.h5create(file, '/x', [1 1]), ...
  'caffe:error', file, '/x', 'already exists');
caffe.test.expect_error(@() caffe.io.h5write(file, 'fixed', d, [1 2], ...
  [2 5]), 'caffe:error', 'fixed', 'past the dataset''s fixed size');
caffe.test.expect_error(@() caffe.io.h5read(file, '/none'), ...
  'caffe:error', '/none', 'no such dataset');
caffe.test.expect_error(@() caffe.io.h5create(file, '/y', [2 Inf]), ...
  'caffe:error', 'needs a ChunkSize');
caffe.test.expect_error(@() caffe.io.h5create(file, '/y', [2 2], ...
  'Datatype', 'int8'), 'caffe:usage', 'single'' or ''double');
caffe.test.expect_error(@() caffe.io.h5info(fullfile(dir, 'no.h5')), ...
  'caffe:error', 'no.h5', 'cannot open');
caffe.test.expect_error(@() caffe.io.h5write(file, 'fixed', d, [1 1], ...
  [2 4]), 'caffe:usage', 'multiply out');
end

function test_hdf5creation_demo()
% run() executes a script from its own folder, where the demo writes its
% files: run a copy of matlab/hdf5creation in a temporary folder.
tmp = caffe.test.make_tmpdir();
dir = fullfile(tmp, 'hdf5creation');
previous = pwd();
cleanup = onCleanup(@() leave(tmp, previous, dir, ...
                              fullfile(dir, 'octave'))); %#ok<NASGU>
copyfile(fullfile(source_root(), 'matlab', 'hdf5creation'), dir);
evalc('run(fullfile(dir, ''demo.m''))');
cd(dir);   % run() went back; the list names files from here
h5 = fullfile(dir, 'trial_dataset.h5');
assert(exist(h5, 'file') == 2);
listed = strtrim(fileread(fullfile(dir, 'list.txt')));
assert(strcmp(listed, fullfile(dir, 'trial_dataset.h5')));
info = caffe.io.h5info(h5);
assert(isequal(info.Datasets(1).Dataspace.Size, [5 5 3 10000]));
assert(isequal(info.Datasets(2).Dataspace.Size, [1 10000]));
% An HDF5Data layer reads the files the demo wrote: its first batch is
% the first 100 samples, labels as one value each.
caffe.test.write_text(fullfile(dir, 'net.prototxt'), ...
  'name: "hdf5_demo"', ...
  'layer { name: "d" type: "HDF5Data" top: "data" top: "label"', ...
  '  hdf5_data_param { source: "list.txt" batch_size: 100 } }');
net = caffe.Net(fullfile(dir, 'net.prototxt'), 'test');
net.forward({});
data = net.blobs('data').get_data();
labels = net.blobs('label').get_data();
assert(isequal(size(data), [5 5 3 100]));
assert(isequal(data, caffe.io.h5read(h5, '/data', [1 1 1 1], [5 5 3 100])));
stored = caffe.io.h5read(h5, '/label', [1 1], [1 100]);
assert(isequal(labels(:), stored(:)));
end

function test_store2hdf5_append()
dir = caffe.test.make_tmpdir();
scripts = fullfile(source_root(), 'matlab', 'hdf5creation');
previous = pwd();
cleanup = onCleanup(@() leave(dir, previous, scripts, ...
                              fullfile(scripts, 'octave'))); %#ok<NASGU>
% Its demo.m shadows Octave's demo function while on the path: expected.
state = warning('off', 'Octave:shadowed-function');
addpath(scripts, fullfile(scripts, 'octave'));
warning(state);
file = fullfile(dir, 's.h5');
a = rand(4, 3, 2, 6);
b = rand(4, 3, 2, 1);             % one sample: ndims 3
store2hdf5(file, a, 1:6, true, [], 4);
[dat_sz, lab_sz] = store2hdf5(file, b, 7, false);   % appends after 6
assert(isequal(dat_sz, [4 3 2 7]));
assert(isequal(lab_sz, [1 7]));
assert(isequal(h5read(file, '/data'), single(cat(4, a, b))));
assert(isequal(h5read(file, '/label'), single(1:7)));
caffe.test.expect_error(@() store2hdf5(file, rand(4, 4, 2, 1), 8, false), ...
  '', 'data samples are [4 4 2]');
end

function test_classification_demo()
% A Caffe root of our own: the demo, CaffeNet's deploy net and weights
% that are the fillers' values (the Model Zoo's are not downloadable here).
root = caffe.test.make_tmpdir();
previous = pwd();
cleanup = onCleanup(@() leave(root, previous, ...
                              fullfile(root, 'matlab', 'demo'))); %#ok<NASGU>
repo = source_root();
mkdir(fullfile(root, 'matlab', 'demo'));
copyfile(fullfile(repo, 'matlab', 'demo', 'classification_demo.m'), ...
         fullfile(root, 'matlab', 'demo'));
model_dir = fullfile(root, 'models', 'bvlc_reference_caffenet');
mkdir(model_dir);
copyfile(fullfile(repo, 'models', 'bvlc_reference_caffenet', ...
                  'deploy.prototxt'), model_dir);
addpath(fullfile(root, 'matlab', 'demo'));
im = uint8(255 * rand(120, 160, 3));
caffe.test.expect_error(@() classification_demo(im, 0), ...
  'classification_demo:noWeights', 'Model Zoo', model_dir);
net = caffe.Net(fullfile(model_dir, 'deploy.prototxt'), 'test');
net.save(fullfile(model_dir, 'bvlc_reference_caffenet.caffemodel'));
caffe.reset_all();
evalc('[scores, maxlabel] = classification_demo(im, 0);');
assert(isequal(size(scores), [1000 1]));
assert(abs(sum(scores) - 1) < 1e-4);        % a mean of softmax outputs
[~, best] = max(scores);
assert(maxlabel == best);
% A uniform image: every crop is the image's color less the mean, in
% BGR order, so the average is the net's output on one such crop.
rgb = [200 100 50];
uniform = repmat(reshape(uint8(rgb), 1, 1, 3), [90 70 1]);
evalc('flat = classification_demo(uniform, 0);');
bgr_mean = [104.00698793, 116.66876762, 122.67891434];
crop = repmat(reshape(single(rgb([3 2 1])) - single(bgr_mean), 1, 1, 3), ...
              [227 227 1]);
net = caffe.Net(fullfile(model_dir, 'deploy.prototxt'), ...
                fullfile(model_dir, 'bvlc_reference_caffenet.caffemodel'), ...
                'test');
out = net.forward({repmat(crop, [1 1 1 10])});
assert(max(abs(flat - out{1}(:, 1))) < 1e-7);   % BGR swapped: 1e-4
% A different image scores differently.
evalc('other = classification_demo(255 - im, 0);');
assert(max(abs(other - scores)) > 1e-6);
end

function leave(tmp, previous, varargin)
% Ends a test: back to the folder it started in, its folders off the path
% (quietly, gone ones too), then its temporary folder removed.
cd(previous);
state = warning('off', 'all');
for k = 1:numel(varargin)
  rmpath(varargin{k});
end
warning(state);
caffe.test.remove_dir(tmp);
end

function root = source_root()
% The source tree: a sanitized build runs this suite from an overlay in
% its build folder whose +test links here, so follow the link (Octave).
here = fileparts(mfilename('fullpath'));
if exist('canonicalize_file_name')
  [resolved, status] = canonicalize_file_name(here);
  if status == 0
    here = resolved;
  end
end
root = fileparts(fileparts(fileparts(here)));
end
