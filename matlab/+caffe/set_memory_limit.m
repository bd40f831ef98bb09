function set_memory_limit(bytes)
% caffe.set_memory_limit(bytes)
%   Limits the host memory LeanCaffe may allocate (0: no limit, as the
%   CAFFE_MEMORY_LIMIT environment variable does).  A net that cannot fit
%   is refused when it is built, with an error saying what would fit.

caffe.ensure_mex_();
caffe_('set_memory_limit', bytes);
end
