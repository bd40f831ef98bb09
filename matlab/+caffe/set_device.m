function set_device(device_id)
% caffe.set_device(device_id)
%   Always an error in this CPU-only build (identifier caffe:noGpu).

caffe.ensure_mex_();
CHECK(isscalar(device_id) && device_id >= 0, ...
  'device_id must be a non-negative integer');
caffe_('set_device', double(device_id));
end
