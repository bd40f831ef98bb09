function mean_data = read_mean(mean_proto_file)
% mean_data = caffe.io.read_mean(mean_proto_file)
%   Reads a mean binaryproto (as written by compute_image_mean) into a
%   single array [width height channels], channels in the file's (BGR)
%   order.

if ~ischar(mean_proto_file)
  error('caffe:usage', 'mean_proto_file must be a string');
end
if exist(mean_proto_file, 'file') == 0
  error('caffe:fileNotFound', 'Could not open file %s', mean_proto_file);
end
caffe_mex = caffe.ensure_mex_();
mean_data = caffe_mex('read_mean', mean_proto_file);
end
