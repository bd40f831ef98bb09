function h5create(varargin)
% GNU Octave has no h5create: matcaffe's (caffe.io.h5create) stands in, so
% the MATLAB scripts in matlab/hdf5creation run unchanged.
caffe.io.h5create(varargin{:});
end
