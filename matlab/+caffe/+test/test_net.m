function tests = test_net()
% tests = caffe.test.test_net()
%   caffe.Net, caffe.Layer and caffe.Blob: the Caffe 1.0 matcaffe API, the
%   [W H C N] data layout, net surgery, weight files shared with the C++
%   tool, and errors (bad files, bad shapes, stale handles) arriving as
%   Octave errors.  Returns {name, function handle} rows for run_tests.

tests = {
  'blob_get_set_reshape',          @test_blob
  'layer_params_and_type',         @test_layer
  'forward_backward_prefilled',    @test_forward_backward_prefilled
  'inputs_outputs_names',          @test_inputs_outputs
  'save_and_read',                 @test_save_and_read
  'layout_inner_product',          @test_layout_inner_product
  'layout_convolution',            @test_layout_convolution
  'net_surgery',                   @test_net_surgery
  'reshape_input',                 @test_reshape_input
  'errors_become_octave_errors',   @test_errors
  'stale_handles',                 @test_stale_handles
  'gateway_handle_checks',         @test_gateway_handle_checks
  'mode_device_version',           @test_mode_device_version
  'weights_roundtrip_with_cpp',    @test_weights_roundtrip_with_cpp
  'memory_limit_refuses_net',      @test_memory_limit
};
end

% ------------------------------------------------------------------ models

% Caffe 1.0's matcaffe test net: DummyData (5 x 2 x 3 x 4 data, 5 labels),
% Convolution, InnerProduct, SoftmaxWithLoss.
function file = simple_net_file(dir, num_output)
file = fullfile(dir, 'simple.prototxt');
caffe.test.write_text(file, ...
  'name: "testnet" force_backward: true', ...
  'layer { type: "DummyData" name: "data" top: "data" top: "label"', ...
  '  dummy_data_param { num: 5 channels: 2 height: 3 width: 4', ...
  '    num: 5 channels: 1 height: 1 width: 1', ...
  '    data_filler { type: "gaussian" std: 1 }', ...
  '    data_filler { type: "constant" } } }', ...
  'layer { type: "Convolution" name: "conv" bottom: "data" top: "conv"', ...
  '  convolution_param { num_output: 11 kernel_size: 2 pad: 3', ...
  '    weight_filler { type: "gaussian" std: 1 }', ...
  '    bias_filler { type: "constant" value: 2 } }', ...
  '  param { decay_mult: 1 } param { decay_mult: 0 } }', ...
  'layer { type: "InnerProduct" name: "ip" bottom: "conv" top: "ip"', ...
  sprintf('  inner_product_param { num_output: %d', num_output), ...
  '    weight_filler { type: "gaussian" std: 0.1 }', ...
  '    bias_filler { type: "constant" value: -3 } } }', ...
  'layer { type: "SoftmaxWithLoss" name: "loss" bottom: "ip"', ...
  '  bottom: "label" top: "loss" }');
end

function [net, dir, cleanup] = simple_net(num_output)
dir = caffe.test.make_tmpdir();
cleanup = onCleanup(@() caffe.test.remove_dir(dir));
net = caffe.Net(simple_net_file(dir, num_output), 'train');
% valid labels in 0 .. num_output-1 (the constant filler is not refilled)
net.blobs('label').set_data(randi(num_output, net.blobs('label').shape) - 1);
end

% Input (N=2, C=3, H=4, W=5) -> InnerProduct (6 outputs).
function file = ip_net_file(dir)
file = fullfile(dir, 'ip.prototxt');
caffe.test.write_text(file, ...
  'name: "ipnet" force_backward: true', ...
  'layer { name: "input" type: "Input" top: "data"', ...
  '  input_param { shape { dim: 2 dim: 3 dim: 4 dim: 5 } } }', ...
  'layer { name: "ip" type: "InnerProduct" bottom: "data" top: "ip"', ...
  '  inner_product_param { num_output: 6', ...
  '    weight_filler { type: "gaussian" std: 1 }', ...
  '    bias_filler { type: "gaussian" std: 1 } } }');
end

% Input (1 x 2 x 5 x 5) -> Convolution (3 outputs, 3x3, no bias) [-> ReLU ->
% InnerProduct when ip_outputs > 0].
function file = conv_net_file(dir, name, ip_layer_name, ip_outputs)
file = fullfile(dir, [name '.prototxt']);
lines = {
  sprintf('name: "%s"', name)
  'layer { name: "input" type: "Input" top: "data"'
  '  input_param { shape { dim: 1 dim: 2 dim: 5 dim: 5 } } }'
  'layer { name: "conv" type: "Convolution" bottom: "data" top: "conv"'
  '  convolution_param { num_output: 3 kernel_size: 3 bias_term: false'
  '    weight_filler { type: "gaussian" std: 1 } } }'};
if ip_outputs > 0
  lines = [lines; {
    'layer { name: "relu" type: "ReLU" bottom: "conv" top: "conv" }'
    sprintf('layer { name: "%s" type: "InnerProduct" bottom: "conv"', ...
      ip_layer_name)
    sprintf('  top: "out" inner_product_param { num_output: %d', ip_outputs)
    '    weight_filler { type: "gaussian" std: 1 } } }'}];
end
caffe.test.write_text(file, lines{:});
end

function assert_close(actual, expected, tol, what)
if ~isequal(size(actual), size(expected))
  error('caffe:test', '%s: size [%s] vs expected [%s]', what, ...
    num2str(size(actual)), num2str(size(expected)));
end
err = max(abs(double(actual(:)) - double(expected(:))));
if isempty(err)
  return
end
if ~(err <= tol)
  error('caffe:test', '%s: max abs difference %g > %g', what, err, tol);
end
end

% ------------------------------------------------------------------- tests

function test_blob()
[net, ~, cleanup] = simple_net(13); %#ok<ASGLU>
data = net.blobs('data');
data.set_data(10 * ones(data.shape));
assert(isequal(data.get_data(), 10 * ones(data.shape, 'single')));
assert(isa(data.get_data(), 'single'));
data.set_diff(-2 * ones(data.shape));
assert(isequal(data.get_diff(), -2 * ones(data.shape, 'single')));
original_shape = data.shape;
assert(isequal(original_shape, [4 3 2 5]));   % Caffe's 5 x 2 x 3 x 4
data.reshape([6 5 4 3 2 1]);
assert(isequal(data.shape, [6 5 4 3 2 1]));
x = reshape(single(1:720), [6 5 4 3 2]);
data.set_data(x);
assert(isequal(data.get_data(), x));
data.reshape(original_shape);
assert(isequal(data.shape, original_shape));
net.reshape();
% a 1-axis blob is a column; a row of the same count is refused
label = net.blobs('label');
assert(isequal(label.shape, [1 1 1 5]));
label.reshape(5);
assert(isequal(label.shape, 5));
label.set_data([0; 1; 2; 3; 4]);
assert(isequal(label.get_data(), single([0; 1; 2; 3; 4])));
caffe.test.expect_error(@() label.set_data([0 1 2 3 4]), ...
  'caffe:shapeMismatch', 'blob ''label''');
end

function test_layer()
[net, ~, cleanup] = simple_net(13); %#ok<ASGLU>
assert(isequal(net.params('conv', 1).shape, [2 2 2 11]));
assert(isequal(net.layers('conv').params(2).shape, 11));
assert(strcmp(net.layers('conv').type(), 'Convolution'));
assert(strcmp(net.layers('loss').type(), 'SoftmaxWithLoss'));
assert(isempty(net.layers('loss').params));
assert(numel(net.layers('ip').params) == 2);
% a Layer's params are the net's params: same memory
w = net.params('ip', 1).get_data();
assert(isequal(net.layers('ip').params(1).get_data(), w));
bias = net.params('conv', 2).get_data();
assert(all(bias == 2));   % the constant bias filler
end

function test_forward_backward_prefilled()
[net, ~, cleanup] = simple_net(13); %#ok<ASGLU>
net.forward_prefilled();
loss = net.blobs('loss').get_data();
assert(isscalar(loss) && isfinite(loss) && loss > 0);
net.backward_prefilled();
g = net.params('conv', 1).get_diff();
assert(isequal(size(g), [2 2 2 11]));
assert(sum(abs(g(:))) > 0, 'conv weights got no gradient');
% force_backward: the data blob gets a diff too
d = net.blobs('data').get_diff();
assert(sum(abs(d(:))) > 0, 'data got no gradient');
end

function test_inputs_outputs()
[net, ~, cleanup] = simple_net(13); %#ok<ASGLU>
assert(isequal(net.inputs, cell(0, 1)));
assert(isequal(net.outputs, {'loss'}));
assert(isequal(net.layer_names, {'data'; 'conv'; 'ip'; 'loss'}));
assert(isequal(net.blob_names, {'data'; 'label'; 'conv'; 'ip'; 'loss'}));
assert(numel(net.layer_vec) == 4 && numel(net.blob_vec) == 5);
dir = caffe.test.make_tmpdir();
cleanup2 = onCleanup(@() caffe.test.remove_dir(dir)); %#ok<NASGU>
ipnet = caffe.Net(ip_net_file(dir), 'test');
assert(isequal(ipnet.inputs, {'data'}));
assert(isequal(ipnet.outputs, {'ip'}));
end

function test_save_and_read()
[net, dir, cleanup] = simple_net(13); %#ok<ASGLU>
weights_file = fullfile(dir, 'saved.caffemodel');
net.save(weights_file);
model_file = simple_net_file(dir, 13);
net2 = caffe.Net(model_file, 'train');
net2.copy_from(weights_file);
net3 = caffe.Net(model_file, weights_file, 'train');
net4 = caffe.get_net(model_file, weights_file, 'test');
checked = 0;
for l = 1:numel(net.layer_vec)
  for i = 1:numel(net.layer_vec(l).params)
    p = net.layer_vec(l).params(i).get_data();
    assert(isequal(p, net2.layer_vec(l).params(i).get_data()));
    assert(isequal(p, net3.layer_vec(l).params(i).get_data()));
    assert(isequal(p, net4.layer_vec(l).params(i).get_data()));
    checked = checked + 1;
  end
end
assert(checked == 4);
% a fresh net differs (random fillers), so the copies did something
fresh = caffe.Net(model_file, 'train');
assert(~isequal(fresh.params('ip', 1).get_data(), ...
  net.params('ip', 1).get_data()));
end

% The [W H C N] layout: Octave element (w, h, c, n) is Caffe's
% (n-1, c-1, h-1, w-1), and an InnerProduct weight of Caffe shape (O, K) is
% [K O] here, so the net computes W' * reshape(x, K, N) + b.
function test_layout_inner_product()
dir = caffe.test.make_tmpdir();
cleanup = onCleanup(@() caffe.test.remove_dir(dir)); %#ok<NASGU>
net = caffe.Net(ip_net_file(dir), 'test');
assert(isequal(net.blobs('data').shape, [5 4 3 2]));
assert(isequal(net.params('ip', 1).shape, [60 6]));
assert(isequal(net.params('ip', 2).shape, 6));
x = randn(5, 4, 3, 2, 'single');
W = net.params('ip', 1).get_data();
b = net.params('ip', 2).get_data();
res = net.forward({x});
assert(iscell(res) && numel(res) == 1);
assert(isequal(size(res{1}), [6 2]));
assert_close(res{1}, W' * reshape(x, 60, 2) + b, 1e-4, 'ip forward');

% one-hot weight: output 1 reads Caffe's data[n][c=1][h=2][w=3]
W1 = zeros(60, 6, 'single');
W1(1 + 3 + 5 * (2 + 4 * 1), 1) = 1;
net.params('ip', 1).set_data(W1);
net.params('ip', 2).set_data(zeros(6, 1));
res = net.forward({x});
assert(isequal(res{1}(1, :), squeeze(x(4, 3, 2, :))'));

% backward: the input diff is W * dy, reshaped to the data's layout
net.params('ip', 1).set_data(W);
net.params('ip', 1).set_diff(zeros(60, 6));
net.forward({x});
dy = randn(6, 2, 'single');
dx = net.backward({dy});
assert(iscell(dx) && numel(dx) == 1);
assert_close(dx{1}, reshape(W * dy, [5 4 3 2]), 1e-4, 'ip backward');
assert_close(net.params('ip', 1).get_diff(), reshape(x, 60, 2) * dy', ...
  1e-4, 'ip weight gradient');
end

% Convolution weights are [kw kh C_in C_out]; Caffe's cross-correlation
% out[o][y][x] = sum W[o][c][i][j] in[c][y+i][x+j] reads here as
% out(x+1, y+1, o+1) = sum Wm(j+1, i+1, c+1, o+1) in(x+j+1, y+i+1, c+1).
function test_layout_convolution()
dir = caffe.test.make_tmpdir();
cleanup = onCleanup(@() caffe.test.remove_dir(dir)); %#ok<NASGU>
net = caffe.Net(conv_net_file(dir, 'conv', '', 0), 'test');
assert(isequal(net.params('conv', 1).shape, [3 3 2 3]));
x = randn(5, 5, 2, 'single');
W = zeros(3, 3, 2, 3, 'single');
W(3, 1, 2, 2) = 1;   % j = 2, i = 0, c = 1 -> output channel o = 1
W(1, 2, 1, 3) = -2;  % j = 0, i = 1, c = 0 -> output channel o = 2
net.params('conv', 1).set_data(W);
out = net.forward({x});
out = out{1};
assert(isequal(size(out), [3 3 3]));
assert(all(all(out(:, :, 1) == 0)));
assert(isequal(out(:, :, 2), x(3:5, 1:3, 2)));
assert(isequal(out(:, :, 3), -2 * x(1:3, 2:4, 1)));
end

% Net surgery: parameters copied between two differently built nets that
% share a layer name; edits through set_data change what the net computes.
function test_net_surgery()
dir = caffe.test.make_tmpdir();
cleanup = onCleanup(@() caffe.test.remove_dir(dir)); %#ok<NASGU>
a = caffe.Net(conv_net_file(dir, 'a', 'ip', 4), 'test');
b = caffe.Net(conv_net_file(dir, 'b', 'ip_new', 7), 'test');
x = randn(5, 5, 2, 'single');
a.forward({x});
b.forward({x});
assert(~isequal(a.blobs('conv').get_data(), b.blobs('conv').get_data()));
b.params('conv', 1).set_data(a.params('conv', 1).get_data());
a.forward({x});
b.forward({x});
assert(isequal(a.blobs('conv').get_data(), b.blobs('conv').get_data()));
assert(isequal(size(b.blobs('out').get_data()), [7 1]));
% zero the conv weights: ReLU(conv) is 0, so out is the ip bias (0)
b.params('conv', 1).set_data(zeros(3, 3, 2, 3));
res = b.forward({x});
assert(all(res{1} == 0));
conv = b.blobs('conv').get_data();
assert(all(conv(:) == 0));
% ip weights of a (3*3*3 -> 4) do not fit ip_new (-> 7)
caffe.test.expect_error( ...
  @() b.params('ip_new', 1).set_data(a.params('ip', 1).get_data()), ...
  'caffe:shapeMismatch');
end

% Reshaping an input blob and then the net propagates the new batch size.
function test_reshape_input()
dir = caffe.test.make_tmpdir();
cleanup = onCleanup(@() caffe.test.remove_dir(dir)); %#ok<NASGU>
net = caffe.Net(ip_net_file(dir), 'test');
net.blobs('data').reshape([5 4 3 7]);
net.reshape();
assert(isequal(net.blobs('ip').shape, [6 7]));
x = randn(5, 4, 3, 7, 'single');
res = net.forward({x});
W = net.params('ip', 1).get_data();
b = net.params('ip', 2).get_data();
assert_close(res{1}, W' * reshape(x, 60, 7) + b, 1e-4, 'reshaped forward');
end

function test_errors()
dir = caffe.test.make_tmpdir();
cleanup = onCleanup(@() caffe.test.remove_dir(dir)); %#ok<NASGU>
model = simple_net_file(dir, 5);
missing = fullfile(dir, 'missing.prototxt');
caffe.test.expect_error(@() caffe.Net(missing, 'test'), ...
  'caffe:fileNotFound', 'missing.prototxt');
bad_syntax = fullfile(dir, 'bad_syntax.prototxt');
caffe.test.write_text(bad_syntax, 'name: "x"', ...
  'layer { name: "a" type: "Input" top: "x" bogus_field: 3 }');
caffe.test.expect_error(@() caffe.Net(bad_syntax, 'test'), ...
  'caffe:error', 'bad_syntax.prototxt:2', 'bogus_field');
bad_type = fullfile(dir, 'bad_type.prototxt');
caffe.test.write_text(bad_type, ...
  'layer { name: "odd" type: "NoSuchType" top: "x" }');
caffe.test.expect_error(@() caffe.Net(bad_type, 'test'), ...
  'caffe:error', 'NoSuchType', '"odd"');
bad_bottom = fullfile(dir, 'bad_bottom.prototxt');
caffe.test.write_text(bad_bottom, ...
  'layer { name: "relu" type: "ReLU" bottom: "nowhere" top: "y" }');
caffe.test.expect_error(@() caffe.Net(bad_bottom, 'test'), ...
  'caffe:error', 'nowhere');
caffe.test.expect_error(@() caffe.Net(model, 'validate'), 'caffe:usage', ...
  'phase_name');
caffe.test.expect_error(@() caffe.Net(model, missing, 'test'), ...
  'caffe:fileNotFound', 'missing.prototxt');
% a text file is not a binary NetParameter
caffe.test.expect_error(@() caffe.Net(model, model, 'test'), ...
  'caffe:error', 'simple.prototxt');

net = caffe.Net(model, 'train');
caffe.test.expect_error(@() net.copy_from(missing), 'caffe:fileNotFound');
caffe.test.expect_error(@() net.copy_from(model), 'caffe:error');
caffe.test.expect_error(@() net.blobs('data').set_data(ones(3, 3)), ...
  'caffe:shapeMismatch', 'blob ''data''', '[ 4 3 2 5 ]');
caffe.test.expect_error(@() net.blobs('data').set_data('text'), ...
  'caffe:usage');
caffe.test.expect_error(@() net.blobs('nope'), 'caffe:usage', '''nope''');
caffe.test.expect_error(@() net.layers('nope'), 'caffe:usage', '''nope''');
caffe.test.expect_error(@() net.params('conv', 3), 'caffe:usage', 'conv');
caffe.test.expect_error(@() net.forward({1}), 'caffe:usage', 'input');
caffe.test.expect_error(@() net.blobs('data').reshape([2 -1]), 'caffe:usage');
caffe.test.expect_error(@() net.save(fullfile(dir, 'no', 'such', 'dir', ...
  'w.caffemodel')), 'caffe:error');
% a label out of range is the library's error, not an abort
net.blobs('label').set_data(99 * ones(net.blobs('label').shape));
caffe.test.expect_error(@() net.forward_prefilled(), 'caffe:error');
% and after all that the session still works
net.blobs('label').set_data(zeros(net.blobs('label').shape));
net.forward_prefilled();
assert(isfinite(net.blobs('loss').get_data()));
end

function test_stale_handles()
dir = caffe.test.make_tmpdir();
cleanup = onCleanup(@() caffe.test.remove_dir(dir)); %#ok<NASGU>
model = simple_net_file(dir, 5);
net = caffe.Net(model, 'train');
blob = net.blobs('data');
param = net.params('conv', 1);
layer = net.layers('conv');
caffe.reset_all();
caffe.test.expect_error(@() blob.get_data(), 'caffe:staleHandle', ...
  'reset_all');
caffe.test.expect_error(@() blob.shape(), 'caffe:staleHandle');
caffe.test.expect_error(@() blob.set_data(ones(4, 3, 2, 5)), ...
  'caffe:staleHandle');
caffe.test.expect_error(@() param.get_diff(), 'caffe:staleHandle');
caffe.test.expect_error(@() layer.type(), 'caffe:staleHandle');
caffe.test.expect_error(@() net.forward_prefilled(), 'caffe:staleHandle');
caffe.test.expect_error(@() net.save(fullfile(dir, 'w')), ...
  'caffe:staleHandle');
% deleting a net frees it; what it handed out becomes stale
net2 = caffe.Net(model, 'train');
blob2 = net2.blobs('conv');
param2 = net2.params('ip', 2);
delete(net2);
caffe.test.expect_error(@() blob2.get_data(), 'caffe:staleHandle', 'freed');
caffe.test.expect_error(@() param2.get_data(), 'caffe:staleHandle');
% a net made afterwards may reuse the freed addresses: the old handles
% must still be refused (serial check), and the new net must work
net3 = caffe.Net(model, 'train');
caffe.test.expect_error(@() blob2.get_data(), 'caffe:staleHandle');
net3.forward_prefilled();
assert(isequal(net3.blobs('conv').shape, [9 8 11 5]));
% a net gone out of scope is freed too (Octave calls delete)
blob4 = make_and_drop_net(model);
caffe.test.expect_error(@() blob4.get_data(), 'caffe:staleHandle');
end

% The gateway's own checks, reached directly (under Octave caffe_ is on the
% path once the package has been used): a forged serial, a handle of the
% wrong kind and malformed handles are refused, never dereferenced.
function test_gateway_handle_checks()
dir = caffe.test.make_tmpdir();
cleanup = onCleanup(@() caffe.test.remove_dir(dir)); %#ok<NASGU>
model = simple_net_file(dir, 5);
caffe.set_mode_cpu();   % makes sure caffe_ is reachable
h = caffe_('get_net', model, 'test');
attr = caffe_('net_get_attr', h);
assert(numel(attr.hBlob_blobs) == 5 && numel(attr.hLayer_layers) == 4);
forged = h;
forged.serial = h.serial + 1;
caffe.test.expect_error(@() caffe_('net_get_attr', forged), ...
  'caffe:staleHandle', 'freed');
caffe.test.expect_error(@() caffe_('blob_get_shape', h), ...
  'caffe:invalidHandle', 'Net, not a Blob');
caffe.test.expect_error(@() caffe_('net_forward', attr.hBlob_blobs(1)), ...
  'caffe:invalidHandle', 'Blob, not a Net');
caffe.test.expect_error(@() caffe_('net_forward', 42), 'caffe:invalidHandle');
caffe.test.expect_error(@() caffe_('net_forward', struct('ptr', 1)), ...
  'caffe:invalidHandle');
empty_ptr = h;
empty_ptr.ptr = uint64([]);
caffe.test.expect_error(@() caffe_('net_forward', empty_ptr), ...
  'caffe:invalidHandle');
wrong_key = h;
wrong_key.init_key = h.init_key + 0.5;
caffe.test.expect_error(@() caffe_('net_forward', wrong_key), ...
  'caffe:staleHandle', 'reset_all');
caffe.test.expect_error(@() caffe_('no_such_command'), 'caffe:usage', ...
  'no_such_command');
caffe.test.expect_error(@() caffe_('blob_set_data', attr.hBlob_blobs(1), ...
  ones(2, 2)), 'caffe:usage', 'single');
caffe.test.expect_error(@() caffe_('blob_set_data', attr.hBlob_blobs(1), ...
  single(ones(2, 2))), 'caffe:shapeMismatch', 'blob ''data''');
caffe_('delete_net', h);
caffe.test.expect_error(@() caffe_('net_forward', h), 'caffe:staleHandle');
end

function blob = make_and_drop_net(model)
net = caffe.Net(model, 'test');
blob = net.blobs('data');
end

function test_mode_device_version()
caffe.set_mode_cpu();
caffe.test.expect_error(@() caffe.set_mode_gpu(), 'caffe:noGpu', 'no GPU');
caffe.test.expect_error(@() caffe.set_device(0), 'caffe:noGpu', 'no GPU');
caffe.set_mode_cpu();
v = caffe.version();
assert(ischar(v) && strcmp(v, '1.0.0'));
end

% Weights written by Octave (net.save) are read by the C++ caffe tool, and
% a snapshot written by C++ training is read by Octave; both compared on
% the outputs the tool prints.
function test_weights_roundtrip_with_cpp()
dir = caffe.test.make_tmpdir();
cleanup = onCleanup(@() caffe.test.remove_dir(dir)); %#ok<NASGU>
model = fullfile(dir, 'tool_net.prototxt');
caffe.test.write_text(model, ...
  'name: "toolnet"', ...
  'layer { name: "data" type: "DummyData" top: "data"', ...
  '  dummy_data_param { shape { dim: 2 dim: 2 dim: 4 dim: 4 }', ...
  '    data_filler { type: "constant" value: 0.5 } } }', ...
  'layer { name: "conv" type: "Convolution" bottom: "data" top: "conv"', ...
  '  convolution_param { num_output: 3 kernel_size: 3 pad: 1', ...
  '    weight_filler { type: "gaussian" std: 0.5 }', ...
  '    bias_filler { type: "gaussian" std: 0.5 } } }', ...
  'layer { name: "relu" type: "ReLU" bottom: "conv" top: "conv" }', ...
  'layer { name: "ip" type: "InnerProduct" bottom: "conv" top: "out"', ...
  '  inner_product_param { num_output: 3', ...
  '    weight_filler { type: "gaussian" std: 0.5 }', ...
  '    bias_filler { type: "gaussian" std: 0.5 } } }');

% Octave -> C++
net = caffe.Net(model, 'test');
net.params('conv', 1).set_data(randn(net.params('conv', 1).shape));
net.params('ip', 2).set_data(randn(3, 1));
weights = fullfile(dir, 'from_octave.caffemodel');
net.save(weights);
net.forward_prefilled();
expected = net.blobs('out').get_data();
assert(isequal(size(expected), [3 2]));
printed = tool_test_outputs(model, weights, 6);
% the tool prints the output in Caffe's row-major order, which is the
% column-major order of the [3 2] array here
assert_close(printed, double(expected(:)), ...
  1e-4 * max(1, max(abs(expected(:)))), 'caffe test on Octave weights');

% C++ -> Octave
solver = fullfile(dir, 'solver.prototxt');
caffe.test.write_text(solver, ...
  sprintf('net: "%s"', model), ...
  'base_lr: 0.01 lr_policy: "fixed" max_iter: 1 display: 0', ...
  'random_seed: 7 snapshot_after_train: true', ...
  sprintf('snapshot_prefix: "%s"', fullfile(dir, 'cpp')));
caffe.test.run_tool('caffe', sprintf('train --solver=''%s''', solver));
cpp_weights = fullfile(dir, 'cpp_iter_1.caffemodel');
assert(exist(cpp_weights, 'file') ~= 0, 'caffe train wrote no snapshot');
net2 = caffe.Net(model, cpp_weights, 'test');
assert(~isequal(net2.params('conv', 1).get_data(), ...
  net.params('conv', 1).get_data()));
net2.forward_prefilled();
got = net2.blobs('out').get_data();
printed = tool_test_outputs(model, cpp_weights, 6);
assert_close(printed, double(got(:)), 1e-4 * max(1, max(abs(got(:)))), ...
  'Octave on C++ weights');
end

% The values `caffe test` logs as "Batch 0, out = v", in order.
function values = tool_test_outputs(model, weights, count)
out = caffe.test.run_tool('caffe', sprintf( ...
  'test --model=''%s'' --weights=''%s'' --iterations=1', model, weights));
tok = regexp(out, 'Batch 0, out = (\S+)', 'tokens');
if numel(tok) ~= count
  error('caffe:test', 'expected %d outputs from caffe test, got %d:\n%s', ...
    count, numel(tok), out);
end
values = cellfun(@str2double, [tok{:}])';
end

% Under a lowered limit a net that cannot fit is refused when it is built,
% as an Octave error saying what would fit; Octave lives on, and the same
% net builds once the limit is lifted.
function test_memory_limit()
dir = caffe.test.make_tmpdir();
cleanup = onCleanup(@() caffe.test.remove_dir(dir)); %#ok<NASGU>
model = fullfile(dir, 'big.prototxt');
caffe.test.write_text(model, 'name: "big"', ...
  'layer { name: "data" type: "DummyData" top: "data" top: "label"', ...
  '  dummy_data_param { shape { dim: 64 dim: 8 dim: 64 dim: 64 }', ...
  '    shape { dim: 64 } data_filler { type: "gaussian" std: 1 }', ...
  '    data_filler { type: "constant" value: 1 } } }', ...
  'layer { name: "conv" type: "Convolution" bottom: "data" top: "conv"', ...
  '  convolution_param { num_output: 8 kernel_size: 3 pad: 1', ...
  '    weight_filler { type: "gaussian" std: 0.05 } } }', ...
  'layer { name: "pool" type: "Pooling" bottom: "conv" top: "pool"', ...
  '  pooling_param { pool: AVE global_pooling: true } }', ...
  'layer { name: "fc" type: "InnerProduct" bottom: "pool" top: "fc"', ...
  '  inner_product_param { num_output: 4 } }', ...
  'layer { name: "loss" type: "SoftmaxWithLoss" bottom: "fc"', ...
  '  bottom: "label" top: "loss" }');
caffe.set_memory_limit(8 * 2^20);
lifted = onCleanup(@() caffe.set_memory_limit(0)); %#ok<NASGU>
caffe.test.expect_error(@() caffe.Net(model, 'train'), 'caffe:error', ...
  'big.prototxt', 'does not fit in host memory', 'What would fit:', ...
  'a batch of');
caffe.test.expect_error(@() caffe.set_memory_limit(-1), 'caffe:usage');
caffe.set_memory_limit(0);
net = caffe.Net(model, 'train');
net.forward_prefilled();
assert(numel(net.blobs('loss').get_data()) == 1);
end
