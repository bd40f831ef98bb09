function tests = test_extraction_guard()
% tests = caffe.test.test_extraction_guard()
%   Safe extraction under mem_param: reading the data of a blob whose
%   memory the optimizer gave to a later blob is refused with an error that
%   names the blob and the fix (exclude_blob), while inputs, outputs and
%   excluded blobs read the same values as an unoptimized net.  Returns
%   {name, handle} rows.

tests = {
  'reused_blob_is_refused_with_fix',  @test_refused
  'inputs_outputs_read_correctly',    @test_inputs_outputs
  'excluded_blob_reads_correctly',    @test_excluded
  'reused_diff_is_refused',           @test_diff_refused
  'every_read_equals_or_refuses',     @test_every_read
  'keep_makes_blobs_readable',        @test_keep
};
end

% x (2 x 8) -> ip1 -> h1 -> TanH -> a1 -> ip2 -> h2 -> TanH -> a2 -> ip3 -> out.
% h1 dies once a1 is made, so a later blob (h2 or a2) takes its memory.
function file = chain_file(dir, name, mem_param)
file = fullfile(dir, [name '.prototxt']);
caffe.test.write_text(file, ...
  sprintf('name: "%s"', name), mem_param, ...
  'layer { name: "in" type: "Input" top: "x"', ...
  '  input_param { shape { dim: 2 dim: 8 } } }', ...
  'layer { name: "ip1" type: "InnerProduct" bottom: "x" top: "h1"', ...
  '  inner_product_param { num_output: 8 weight_filler { type: "gaussian" } } }', ...
  'layer { name: "t1" type: "TanH" bottom: "h1" top: "a1" }', ...
  'layer { name: "ip2" type: "InnerProduct" bottom: "a1" top: "h2"', ...
  '  inner_product_param { num_output: 8 weight_filler { type: "gaussian" } } }', ...
  'layer { name: "t2" type: "TanH" bottom: "h2" top: "a2" }', ...
  'layer { name: "ip3" type: "InnerProduct" bottom: "a2" top: "out"', ...
  '  inner_product_param { num_output: 3 weight_filler { type: "gaussian" } } }');
end

% The optimized net (with mem_param) and a plain one with the same weights.
function [opt, plain, x, cleanup] = nets(mem_param)
dir = caffe.test.make_tmpdir();
cleanup = onCleanup(@() caffe.test.remove_dir(dir));
plain = caffe.Net(chain_file(dir, 'plain', ''), 'test');
weights = fullfile(dir, 'chain.caffemodel');
plain.save(weights);
opt = caffe.Net(chain_file(dir, 'opt', mem_param), weights, 'test');
x = randn(8, 2, 'single');
end

function test_refused()
[opt, plain, x, cleanup] = nets('mem_param { optimize_test: true }'); %#ok<ASGLU>
opt.forward({x});
plain.forward({x});
err = caffe.test.expect_error(@() opt.blobs('h1').get_data(), ...
  'caffe:blobNotReadable', '''h1''', 'mem_param', 'exclude_blob: "h1"');
assert(~isempty(strfind(err.message, 'reused')), err.message);
% the unoptimized net reads h1 fine
assert(isequal(size(plain.blobs('h1').get_data()), [8 2]));
% what is refused is reading: the shape and parameters stay available
assert(isequal(opt.blobs('h1').shape, [8 2]));
assert(isequal(opt.params('ip1', 1).get_data(), ...
  plain.params('ip1', 1).get_data()));
end

function test_inputs_outputs()
[opt, plain, x, cleanup] = nets('mem_param { optimize_test: true }'); %#ok<ASGLU>
res = opt.forward({x});
expected = plain.forward({x});
assert(isequal(res{1}, expected{1}));
assert(isequal(opt.blobs('out').get_data(), expected{1}));
assert(isequal(opt.blobs('x').get_data(), x));
% a second pass with other data still gives the plain net's answer
x2 = randn(8, 2, 'single');
res = opt.forward({x2});
expected = plain.forward({x2});
assert(isequal(res{1}, expected{1}));
end

function test_excluded()
[opt, plain, x, cleanup] = nets( ...
  'mem_param { optimize_test: true exclude_blob: "h1" }'); %#ok<ASGLU>
opt.forward({x});
plain.forward({x});
assert(isequal(opt.blobs('h1').get_data(), plain.blobs('h1').get_data()));
assert(isequal(opt.blobs('out').get_data(), plain.blobs('out').get_data()));
end

% After backward in a TRAIN net, a gradient whose memory a later gradient
% took is refused the same way; the output's gradient stays readable.
function test_diff_refused()
dir = caffe.test.make_tmpdir();
cleanup = onCleanup(@() caffe.test.remove_dir(dir)); %#ok<NASGU>
file = chain_file(dir, 'opt', ...
  'force_backward: true mem_param { optimize_train: true }');
net = caffe.Net(file, 'train');
net.forward({randn(8, 2, 'single')});
net.backward({ones(3, 2, 'single')});
refused = {};
names = net.blob_names;
for i = 1:numel(names)
  try
    net.blobs(names{i}).get_diff();
  catch err
    assert(strcmp(err.identifier, 'caffe:blobNotReadable'), err.message);
    assert(~isempty(strfind(err.message, 'diff')), err.message);
    assert(~isempty(strfind(err.message, 'exclude_blob')), err.message);
    refused{end + 1} = names{i}; %#ok<AGROW>
  end
end
assert(~isempty(refused), 'no gradient was refused');
assert(isequal(net.blobs('out').get_diff(), ones(3, 2, 'single')));
end

% Every blob's data after forward: the plain net's bytes, or refused.
function test_every_read()
for level = 0:2
  for release = {'STATIC', 'DYNAMIC'}
    mem = sprintf('mem_param { optimize_test: true level: %d release: %s }', ...
                  level, release{1});
    [opt, plain, x, cleanup] = nets(mem); %#ok<ASGLU>
    opt.forward({x});
    plain.forward({x});
    refused = 0;
    for n = 1:numel(plain.blob_names)
      name = plain.blob_names{n};
      try
        got = opt.blobs(name).get_data();
      catch err
        assert(strcmp(err.identifier, 'caffe:blobNotReadable'), err.message);
        refused = refused + 1;
        continue;
      end
      assert(isequal(got, plain.blobs(name).get_data()), name);
    end
    assert(refused > 0, 'the plan reused nothing');
  end
end
end

function test_keep()
[opt, plain, x, cleanup] = nets('mem_param { optimize_test: true }'); %#ok<ASGLU>
opt.keep({'h1'});
assert(isequal(opt.kept_blobs(), {'h1'}));
opt.forward({x});
plain.forward({x});
assert(isequal(opt.blobs('h1').get_data(), plain.blobs('h1').get_data()));
caffe.test.expect_error(@() opt.keep({'nope'}), '', 'nope');
end
