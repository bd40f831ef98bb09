function net = get_net(varargin)
% net = caffe.get_net(model_file, phase_name) or
% net = caffe.get_net(model_file, weights_file, phase_name)
%   Builds a net from model_file for phase 'train' or 'test' and, when
%   given, loads weights_file (.caffemodel or .caffemodel.h5).

net = caffe.Net(varargin{:});
end
