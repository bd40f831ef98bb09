function err = expect_error(fn, identifier, varargin)
% err = caffe.test.expect_error(fn, identifier, substring, ...)  (test helper)
%   Calls fn and fails unless it raises an error whose identifier is
%   identifier (skipped when empty) and whose message contains every
%   substring.  Returns the caught error.

raised = false;
try
  fn();
catch err
  raised = true;
end
if ~raised
  error('caffe:test', 'expected an error (%s) from %s, got none', ...
    identifier, func2str(fn));
end
if ~isempty(identifier) && ~strcmp(err.identifier, identifier)
  error('caffe:test', 'expected error id %s, got %s: %s', identifier, ...
    err.identifier, err.message);
end
for k = 1:numel(varargin)
  if isempty(strfind(err.message, varargin{k}))
    error('caffe:test', 'error message lacks "%s": %s', varargin{k}, ...
      err.message);
  end
end
end
