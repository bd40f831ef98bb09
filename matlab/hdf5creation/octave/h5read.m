function data = h5read(varargin)
% GNU Octave has no h5read: matcaffe's (caffe.io.h5read) stands in.
data = caffe.io.h5read(varargin{:});
end
