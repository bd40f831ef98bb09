function set_mode_gpu()
% caffe.set_mode_gpu()
%   Always an error in this CPU-only build (identifier caffe:noGpu): a
%   script written for a GPU learns so at once instead of silently running
%   on the CPU.

caffe.ensure_mex_();
caffe_('set_mode_gpu');
end
