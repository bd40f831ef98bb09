function info = h5info(varargin)
% GNU Octave has no h5info: matcaffe's (caffe.io.h5info) stands in.
info = caffe.io.h5info(varargin{:});
end
