function write_mean(mean_data, mean_proto_file)
% caffe.io.write_mean(mean_data, mean_proto_file)
%   Writes mean_data ([width height channels] or [width height]) as a
%   1 x C x H x W BlobProto binaryproto, the format read_mean, the
%   transform_param mean_file and pycaffe read.

if ~(isnumeric(mean_data) && isreal(mean_data))
  error('caffe:usage', 'mean_data must be a real numeric array');
end
if ~ischar(mean_proto_file)
  error('caffe:usage', 'mean_proto_file must be a string');
end
caffe_mex = caffe.ensure_mex_();
caffe_mex('write_mean', single(mean_data), mean_proto_file);
end
