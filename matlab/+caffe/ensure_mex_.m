function mex_fn = ensure_mex_()
% mex_fn = ensure_mex_()  (internal)
%   Makes the MEX gateway caffe_ (in +caffe/private) callable and returns a
%   handle to it.  MATLAB finds a package's private functions by itself;
%   Octave (7.x, bug #54658) does not look in a package's private folder,
%   so under Octave that folder is put on the path once.  Every entry point
%   of the package calls this; methods of the objects they made rely on it
%   having run.  Code outside +caffe itself (+caffe/+io) cannot see
%   +caffe/private in MATLAB, so it calls the gateway through mex_fn.

persistent done;
if isempty(done)
  if exist('OCTAVE_VERSION', 'builtin') && exist('caffe_') ~= 3
    private_dir = fullfile(fileparts(mfilename('fullpath')), 'private');
    if isempty(dir(fullfile(private_dir, ['caffe_.' mexext()])))
      error('caffe:noMex', ['matcaffe: the MEX gateway caffe_ is not ' ...
        'built (looked in %s); build it with CMake (target matcaffe) or ' ...
        'mkoctfile --mex'], private_dir);
    end
    addpath(private_dir);
  end
  done = true;
end
if nargout > 0
  mex_fn = @caffe_;
end
end
