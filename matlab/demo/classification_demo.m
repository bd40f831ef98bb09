function [scores, maxlabel] = classification_demo(im, use_gpu)
% [scores, maxlabel] = classification_demo(im, use_gpu)
%   Classifies an image with CaffeNet (models/bvlc_reference_caffenet):
%   the image is resized to 256 x 256, the mean is subtracted, and the
%   net scores ten 227 x 227 crops (four corners and the center, each also
%   mirrored); the scores returned are their average.
%
%   im       an image as imread returns it (H x W x 3, RGB, uint8);
%            default: examples/images/cat.jpg when it exists
%   use_gpu  1 to run on GPU 0 (default 0: CPU)
%   scores   1000 x 1 class probabilities (averaged over the crops)
%   maxlabel index of the largest score (1-based; ImageNet's class
%            maxlabel - 1 in data/ilsvrc12/synset_words.txt)
%
% Needs the weights bvlc_reference_caffenet.caffemodel (from the Model
% Zoo) next to the model's deploy.prototxt.  The mean is, first found:
% matlab/+caffe/imagenet/ilsvrc_2012_mean.mat (variable mean_data, as
% Caffe ships it), data/ilsvrc12/imagenet_mean.binaryproto, or else
% ImageNet's per-channel BGR mean.
%
% Usage from Octave or MATLAB, with matlab/ on the path:
%   im = imread('cat.jpg');
%   [scores, maxlabel] = classification_demo(im, 0);
% Layout: matcaffe hands Caffe's N x C x H x W blobs over as W x H x C x N
% arrays, so images are turned to width first and BGR (see prepare_image).

if nargin < 2 || isempty(use_gpu)
  use_gpu = 0;
end
% This file is <root>/matlab/demo/classification_demo.m.
root = fileparts(fileparts(fileparts(mfilename('fullpath'))));
if exist(fullfile(root, 'matlab', '+caffe'), 'dir')
  addpath(fullfile(root, 'matlab'));   % matcaffe
end
if use_gpu
  caffe.set_mode_gpu();
  caffe.set_device(0);
else
  caffe.set_mode_cpu();
end

model_dir = fullfile(root, 'models', 'bvlc_reference_caffenet');
net_model = fullfile(model_dir, 'deploy.prototxt');
net_weights = fullfile(model_dir, 'bvlc_reference_caffenet.caffemodel');
if ~exist(net_weights, 'file')
  error('classification_demo:noWeights', ['Please download CaffeNet ' ...
    '(bvlc_reference_caffenet.caffemodel) from the Model Zoo into %s ' ...
    'before you run this demo'], model_dir);
end
net = caffe.Net(net_model, net_weights, 'test');

if nargin < 1 || isempty(im)
  image_file = fullfile(root, 'examples', 'images', 'cat.jpg');
  if ~exist(image_file, 'file')
    error('classification_demo:noImage', ['%s is not there: pass an ' ...
      'image, classification_demo(imread(''your.jpg''))'], image_file);
  end
  im = imread(image_file);
end

tic;
input_data = {prepare_image(im, root)};
fprintf('prepared the crops in %.3f s\n', toc);
tic;
scores = net.forward(input_data);
fprintf('ran the net in %.3f s\n', toc);
scores = mean(scores{1}, 2);      % 1000 x 10 -> the average over the crops
[~, maxlabel] = max(scores);
caffe.reset_all();
end

function crops_data = prepare_image(im, root)
% Ten 227 x 227 crops of the image, in Caffe's layout (W x H x C x N, BGR,
% mean subtracted).
IMAGE_DIM = 256;
CROPPED_DIM = 227;
mean_data = load_mean(root, IMAGE_DIM);
if size(im, 3) == 1
  im = repmat(im, [1 1 3]);      % gray: the same value in each channel
end
im_data = im(:, :, [3, 2, 1]);   % RGB -> BGR
im_data = permute(im_data, [2, 1, 3]);  % H x W -> W x H
im_data = single(im_data);
im_data = resize_bilinear(im_data, IMAGE_DIM);
im_data = im_data - mean_data;

crops_data = zeros(CROPPED_DIM, CROPPED_DIM, 3, 10, 'single');
last = IMAGE_DIM - CROPPED_DIM + 1;
corners = [1 1; 1 last; last 1; last last];
n = 1;
for k = 1:4
  x = corners(k, 1);
  y = corners(k, 2);
  crops_data(:, :, :, n) = im_data(x:x + CROPPED_DIM - 1, ...
                                   y:y + CROPPED_DIM - 1, :);
  n = n + 1;
end
center = floor((IMAGE_DIM - CROPPED_DIM) / 2) + 1;
crops_data(:, :, :, n) = im_data(center:center + CROPPED_DIM - 1, ...
                                 center:center + CROPPED_DIM - 1, :);
% The mirrored five: flipped along the width (the first axis here).
crops_data(:, :, :, 6:10) = flip(crops_data(:, :, :, 1:5), 1);
end

function mean_data = load_mean(root, image_dim)
mat_file = fullfile(root, 'matlab', '+caffe', 'imagenet', ...
                    'ilsvrc_2012_mean.mat');
proto_file = fullfile(root, 'data', 'ilsvrc12', 'imagenet_mean.binaryproto');
if exist(mat_file, 'file')
  d = load(mat_file);
  mean_data = single(d.mean_data);
elseif exist(proto_file, 'file')
  mean_data = caffe.io.read_mean(proto_file);
else
  % ImageNet's mean per channel, B, G, R (as Caffe's Python examples use).
  bgr = single([104.00698793, 116.66876762, 122.67891434]);
  mean_data = repmat(reshape(bgr, 1, 1, 3), [image_dim, image_dim, 1]);
end
if size(mean_data, 1) ~= image_dim || size(mean_data, 2) ~= image_dim
  mean_data = resize_bilinear(mean_data, image_dim);
end
end

function out = resize_bilinear(im, dim)
% im (W x H x C) resized to dim x dim, bilinear: imresize when it is there
% (MATLAB; the image package under Octave), else interpolation between
% pixel centers as imresize does (without its antialiasing).
if exist('imresize')
  out = imresize(im, [dim dim], 'bilinear');
  return
end
[w, h, c] = size(im);
% Pixel centers of the output mapped onto the input's, as imresize does.
xi = ((1:dim) - 0.5) * w / dim + 0.5;
yi = ((1:dim) - 0.5) * h / dim + 0.5;
xi = min(max(xi, 1), w);
yi = min(max(yi, 1), h);
[Y, X] = meshgrid(yi, xi);
out = zeros(dim, dim, c, 'single');
for k = 1:c
  out(:, :, k) = interp2(double(im(:, :, k)), Y, X, 'linear');
end
end
