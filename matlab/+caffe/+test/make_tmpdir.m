function d = make_tmpdir()
% d = caffe.test.make_tmpdir()  (test helper)
%   A fresh empty directory for one test's files; remove it with
%   caffe.test.remove_dir (usually through onCleanup).

d = tempname();
[ok, msg] = mkdir(d);
if ~ok
  error('caffe:test', 'cannot create %s: %s', d, msg);
end
end
