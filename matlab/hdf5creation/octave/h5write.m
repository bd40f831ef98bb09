function h5write(varargin)
% GNU Octave has no h5write: matcaffe's (caffe.io.h5write) stands in.
caffe.io.h5write(varargin{:});
end
