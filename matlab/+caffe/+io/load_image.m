function im_data = load_image(im_file)
% im_data = caffe.io.load_image(im_file)
%   Reads an image in Caffe's layout: single, [width height channels], BGR
%   channel order for colour images (one channel for grayscale), values as
%   stored in the file (0..255 for 8-bit images), not scaled.

if ~ischar(im_file)
  error('caffe:usage', 'im_file must be a string');
end
if exist(im_file, 'file') == 0
  error('caffe:fileNotFound', 'Could not open file %s', im_file);
end
im_data = imread(im_file);
if size(im_data, 3) == 3
  im_data = im_data(:, :, [3, 2, 1]);   % RGB -> BGR
end
% imread gives [height width channels]; Caffe's width is the fastest axis.
im_data = single(permute(im_data, [2, 1, 3]));
end
