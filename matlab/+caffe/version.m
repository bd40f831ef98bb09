function version_str = version()
% version_str = caffe.version()
%   The Caffe version this build is compatible with, e.g. '1.0.0'.

caffe.ensure_mex_();
version_str = caffe_('version');
end
