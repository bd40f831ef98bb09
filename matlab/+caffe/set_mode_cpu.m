function set_mode_cpu()
% caffe.set_mode_cpu()
%   Runs nets on the CPU (the only mode of this build).

caffe.ensure_mex_();
caffe_('set_mode_cpu');
end
