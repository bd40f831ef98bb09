function remove_dir(d)
% caffe.test.remove_dir(d)  (test helper)
%   Deletes d and everything in it, without asking.

if exist(d, 'dir')
  if exist('OCTAVE_VERSION', 'builtin')
    confirm_recursive_rmdir(false, 'local');
  end
  rmdir(d, 's');
end
end
