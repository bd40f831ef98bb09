function root = repo_root()
% root = caffe.test.repo_root()  (test helper)
%   The source tree this package sits in (the parent of matlab/).

here = fileparts(mfilename('fullpath'));   % .../matlab/+caffe/+test
root = fileparts(fileparts(fileparts(here)));
end
