function reset_all()
% caffe.reset_all()
%   Frees every solver and stand-alone net.  Objects made before keep their
%   handles, but any use of them is an error (stale handle), not a crash.

caffe.ensure_mex_();
caffe_('reset');
end
