function results = run_tests(filter)
% results = caffe.run_tests()  or  caffe.run_tests(filter)
%   Runs the matcaffe test suites in +caffe/+test (test_net, test_solver,
%   test_io, test_extraction_guard, test_demos) on the CPU and prints one
%   line per test and a summary.  filter, when given, keeps only tests whose
%   'suite/test' name contains it.  Returns a struct array with fields
%   name, passed, message and seconds.  Every test starts from
%   caffe.reset_all(), so a failing test cannot leave nets to the next.

if nargin < 1
  filter = '';
end
suites = {'test_net', 'test_solver', 'test_io', 'test_extraction_guard', ...
          'test_demos'};
caffe.set_mode_cpu();
caffe.reset_all();
results = struct('name', {}, 'passed', {}, 'message', {}, 'seconds', {});
for s = 1:numel(suites)
  tests = feval(['caffe.test.' suites{s}]);
  for t = 1:size(tests, 1)
    name = [suites{s} '/' tests{t, 1}];
    if ~isempty(filter) && isempty(strfind(name, filter))
      continue
    end
    started = tic();
    try
      tests{t, 2}();
      passed = true;
      message = '';
    catch err
      passed = false;
      message = describe(err);
    end
    caffe.reset_all();
    results(end + 1) = struct('name', name, 'passed', passed, ...
      'message', message, 'seconds', toc(started)); %#ok<AGROW>
    if passed
      fprintf('[ PASS ] %s (%.2f s)\n', name, results(end).seconds);
    else
      fprintf('[ FAIL ] %s\n%s\n', name, message);
    end
  end
end
failed = sum(~[results.passed]);
fprintf('%d tests, %d passed, %d failed\n', numel(results), ...
  numel(results) - failed, failed);
end

function text = describe(err)
text = sprintf('  %s: %s', err.identifier, err.message);
for k = 1:numel(err.stack)
  text = sprintf('%s\n    at %s line %d', text, err.stack(k).name, ...
    err.stack(k).line);
end
end
