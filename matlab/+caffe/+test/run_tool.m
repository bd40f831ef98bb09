function output = run_tool(name, args)
% output = caffe.test.run_tool(name, args)  (test helper)
%   Runs a LeanCaffe command-line tool (caffe, compute_image_mean, ...) from
%   $CAFFE_TOOLS_DIR (default: <repo>/build/tools) with its INFO log on, and
%   returns stdout and stderr together; fails when the tool fails.

tools = getenv('CAFFE_TOOLS_DIR');
if isempty(tools)
  tools = fullfile(caffe.test.repo_root(), 'build', 'tools');
end
tool = fullfile(tools, name);
if exist(tool, 'file') == 0
  error('caffe:test', ['tool %s not found (set CAFFE_TOOLS_DIR to the ' ...
    'build''s tools directory)'], tool);
end
% The suite may run with GLOG_minloglevel=2; the tests read INFO lines.
cmd = sprintf('GLOG_minloglevel=0 GLOG_logtostderr=1 ''%s'' %s 2>&1', ...
  tool, args);
[status, output] = system(cmd);
if status ~= 0
  error('caffe:test', '%s failed (exit %d):\n%s', cmd, status, output);
end
end
