function tests = test_solver()
% tests = caffe.test.test_solver()
%   caffe.Solver: step/solve/iter/max_iter, the training loss going down,
%   snapshot + restore resuming bit for bit, test nets, solver errors and
%   handles going stale with the solver.  Returns {name, handle} rows.

tests = {
  'step_solve_loss_decreases',  @test_solve
  'snapshot_and_restore',       @test_snapshot_restore
  'solver_errors',              @test_solver_errors
  'solver_nets_go_stale',       @test_solver_nets_go_stale
};
end

% Input (8 x 4) and labels -> ip1 (16) -> ReLU -> ip2 (3) -> softmax loss.
% The Input layer keeps what set_data put in, so the solver trains on one
% fixed batch, which it can fit.
function [solver_file, dir, cleanup] = write_solver(extra)
dir = caffe.test.make_tmpdir();
cleanup = onCleanup(@() caffe.test.remove_dir(dir));
model = fullfile(dir, 'train_net.prototxt');
caffe.test.write_text(model, ...
  'name: "mlp"', ...
  'layer { name: "input" type: "Input" top: "data" top: "label"', ...
  '  input_param { shape { dim: 8 dim: 4 } shape { dim: 8 } } }', ...
  'layer { name: "ip1" type: "InnerProduct" bottom: "data" top: "ip1"', ...
  '  inner_product_param { num_output: 16', ...
  '    weight_filler { type: "xavier" } } }', ...
  'layer { name: "relu1" type: "ReLU" bottom: "ip1" top: "ip1" }', ...
  'layer { name: "ip2" type: "InnerProduct" bottom: "ip1" top: "ip2"', ...
  '  inner_product_param { num_output: 3', ...
  '    weight_filler { type: "xavier" } } }', ...
  'layer { name: "loss" type: "SoftmaxWithLoss" bottom: "ip2"', ...
  '  bottom: "label" top: "loss" }');
solver_file = fullfile(dir, 'solver.prototxt');
caffe.test.write_text(solver_file, ...
  sprintf('net: "%s"', model), ...
  'base_lr: 0.1 momentum: 0.9 weight_decay: 0.0005 lr_policy: "fixed"', ...
  'test_iter: 1 test_interval: 1000 test_initialization: false', ...
  'display: 0 max_iter: 100 random_seed: 3', ...
  sprintf('snapshot_prefix: "%s"', fullfile(dir, 'snap')), extra);
end

function fill_batch(net)
data = single(reshape(mod(0:31, 7), 4, 8)) / 7 - 0.4;
net.blobs('data').set_data(data);
net.blobs('label').set_data(single(mod(0:7, 3))');
end

function loss = current_loss(net)
net.forward_prefilled();
loss = net.blobs('loss').get_data();
end

function test_solve()
[solver_file, ~, cleanup] = write_solver('snapshot_after_train: false'); %#ok<ASGLU>
solver = caffe.Solver(solver_file);
also = caffe.get_solver(solver_file); %#ok<NASGU>  (get_solver runs too)
assert(isa(solver.net, 'caffe.Net'));
assert(numel(solver.test_nets) == 1 && isa(solver.test_nets(1), 'caffe.Net'));
assert(isequal(solver.test_nets(1).blobs('data').shape, [4 8]));
assert(solver.iter() == 0);
assert(solver.max_iter() == 100);
fill_batch(solver.net);
fill_batch(solver.test_nets(1));
loss0 = current_loss(solver.net);
solver.step(30);
assert(solver.iter() == 30);
loss30 = current_loss(solver.net);
solver.solve();
assert(solver.iter() == 100);
loss100 = current_loss(solver.net);
assert(loss30 < loss0, sprintf('loss %g -> %g after 30 steps', loss0, loss30));
assert(loss100 < loss30 && loss100 < 0.5 * loss0, ...
  sprintf('loss %g -> %g -> %g', loss0, loss30, loss100));
% the net's parameters are what the solver trained
w = solver.net.params('ip2', 1).get_data();
solver.step(1);
assert(~isequal(w, solver.net.params('ip2', 1).get_data()));
caffe.test.expect_error(@() solver.step(0), 'caffe:usage');
end

function test_snapshot_restore()
[solver_file, dir, cleanup] = write_solver('snapshot: 10'); %#ok<ASGLU>
a = caffe.Solver(solver_file);
fill_batch(a.net);
a.step(10);
state = fullfile(dir, 'snap_iter_10.solverstate');
assert(exist(state, 'file') ~= 0, 'no snapshot written at iteration 10');
assert(exist(fullfile(dir, 'snap_iter_10.caffemodel'), 'file') ~= 0);
b = caffe.Solver(solver_file);
fill_batch(b.net);
% same random_seed: b starts where a started, not where a is now
assert(~isequal(a.net.params('ip1', 1).get_data(), ...
  b.net.params('ip1', 1).get_data()));
b.restore(state);
assert(b.iter() == 10);
assert(isequal(a.net.params('ip1', 1).get_data(), ...
  b.net.params('ip1', 1).get_data()));
% momentum history came back too: both continue identically
a.step(5);
b.step(5);
assert(isequal(a.net.params('ip2', 1).get_data(), ...
  b.net.params('ip2', 1).get_data()));
assert(isequal(a.net.params('ip1', 2).get_data(), ...
  b.net.params('ip1', 2).get_data()));
caffe.test.expect_error(@() b.restore(fullfile(dir, 'none.solverstate')), ...
  'caffe:fileNotFound', 'none.solverstate');
end

function test_solver_errors()
[solver_file, dir, cleanup] = write_solver(''); %#ok<ASGLU>
caffe.test.expect_error(@() caffe.Solver(fullfile(dir, 'missing.prototxt')), ...
  'caffe:fileNotFound', 'missing.prototxt');
no_net = fullfile(dir, 'no_net.prototxt');
caffe.test.write_text(no_net, ...
  sprintf('net: "%s"', fullfile(dir, 'absent_net.prototxt')), ...
  'base_lr: 0.1 lr_policy: "fixed" max_iter: 1');
caffe.test.expect_error(@() caffe.Solver(no_net), 'caffe:error', ...
  'absent_net.prototxt');
bad_type = fullfile(dir, 'bad_type.prototxt');
text = fileread(solver_file);
caffe.test.write_text(bad_type, text, 'type: "Telepathy"');
caffe.test.expect_error(@() caffe.Solver(bad_type), 'caffe:error', ...
  'Telepathy', 'SGD');
caffe.test.expect_error(@() caffe.Solver(42), 'caffe:usage');
% the session is still usable
s = caffe.Solver(solver_file);
assert(s.iter() == 0);
end

function test_solver_nets_go_stale()
[solver_file, ~, cleanup] = write_solver(''); %#ok<ASGLU>
s = caffe.Solver(solver_file);
blob = s.test_nets(1).blobs('ip2');
assert(isequal(blob.shape, [3 8]));
delete(s);
caffe.test.expect_error(@() blob.get_data(), 'caffe:staleHandle');
s2 = caffe.Solver(solver_file);
net2 = s2.net;
caffe.reset_all();
caffe.test.expect_error(@() s2.iter(), 'caffe:staleHandle');
caffe.test.expect_error(@() s2.step(1), 'caffe:staleHandle');
caffe.test.expect_error(@() net2.forward_prefilled(), 'caffe:staleHandle');
end
