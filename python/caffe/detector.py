"""caffe.Detector (Caffe 1.0): a caffe.Net in TEST phase that scores windows
of images, R-CNN style.

detect_windows() crops each window (ymin, xmin, ymax, xmax; optionally with
context padding: the window is enlarged so that, once warped to the net
input, context_pad pixels of surrounding image border it, and parts that
fall outside the image are filled with the mean), warps it to the net input
size, pre-processes it with a caffe.io.Transformer and returns, per window,
{'window', 'prediction' (the net's first output), 'filename'}.

detect_selective_search() needs the selective_search_ijcv_with_python
package (MATLAB-based, not in Debian); without it, it raises
NotImplementedError.
"""

import os

import numpy as np

import caffe


class Detector(caffe.Net):
    """Take
    model_file, pretrained_file: the deploy prototxt and its .caffemodel.
    mean, input_scale, raw_scale, channel_swap: see caffe.io.Transformer.
    context_pad: pixels of context around each window in the net input.
    """

    def __init__(self, model_file, pretrained_file, mean=None,
                 input_scale=None, raw_scale=None, channel_swap=None,
                 context_pad=None):
        caffe.Net.__init__(self, model_file, pretrained_file, caffe.TEST)

        in_ = self.inputs[0]
        self.transformer = caffe.io.input_transformer(
            in_, self.blobs[in_].data.shape, mean, input_scale, raw_scale,
            channel_swap)

        self.configure_crop(context_pad)

    def detect_windows(self, images_windows):
        """Score windows of images.

        images_windows: iterable of (image filename, list of windows), each
            window (ymin, xmin, ymax, xmax) in pixels.
        Returns a list of dicts {'window', 'prediction', 'filename'}, in the
        order given.
        """
        images_windows = [(fname, list(windows))
                          for fname, windows in images_windows]
        window_inputs = []
        for image_fname, windows in images_windows:
            image = caffe.io.load_image(image_fname).astype(np.float32)
            for window in windows:
                window_inputs.append(self.crop(image, window))

        in_ = self.inputs[0]
        caffe_in = np.zeros((len(window_inputs), window_inputs[0].shape[2]) +
                            tuple(self.blobs[in_].data.shape[2:]),
                            dtype=np.float32)
        for ix, window_in in enumerate(window_inputs):
            caffe_in[ix] = self.transformer.preprocess(in_, window_in)
        out = self.forward_all(**{in_: caffe_in})
        predictions = out[self.outputs[0]]

        detections = []
        ix = 0
        for image_fname, windows in images_windows:
            for window in windows:
                detections.append({'window': window,
                                   'prediction': predictions[ix],
                                   'filename': image_fname})
                ix += 1
        return detections

    def detect_selective_search(self, image_fnames):
        """Score the selective-search proposals of each image (needs the
        selective_search_ijcv_with_python package and MATLAB)."""
        try:
            import selective_search_ijcv_with_python as selective_search
        except ImportError:
            raise NotImplementedError(
                'Detector.detect_selective_search needs the '
                'selective_search_ijcv_with_python package (and MATLAB), '
                'which is not installed; compute the windows elsewhere and '
                'call detect_windows([(filename, windows), ...]) instead.')
        image_fnames = [os.path.abspath(f) for f in image_fnames]
        windows_list = selective_search.get_windows(
            image_fnames, cmd='selective_search_rcnn')
        return self.detect_windows(zip(image_fnames, windows_list))

    def crop(self, im, window):
        """Crop window (ymin, xmin, ymax, xmax) out of the H x W x K image
        im; with context_pad, return a crop_dims array holding the window
        plus context, mean-filled where it leaves the image."""
        window = np.asarray(window)
        crop = im[int(window[0]):int(window[2]), int(window[1]):int(window[3])]

        if self.context_pad:
            box = window.astype(float)
            crop_size = self.blobs[self.inputs[0]].data.shape[-1]  # square
            scale = crop_size / (1. * crop_size - self.context_pad * 2)
            # Grow the box about its centre so that, warped to crop_size,
            # context_pad pixels of context surround the window.
            half_h = (box[2] - box[0] + 1) / 2.
            half_w = (box[3] - box[1] + 1) / 2.
            center = (box[0] + half_h, box[1] + half_w)
            scaled_dims = scale * np.array((-half_h, -half_w, half_h, half_w))
            box = np.round(np.tile(center, 2) + scaled_dims)
            full_h = box[2] - box[0] + 1
            full_w = box[3] - box[1] + 1
            scale_h = crop_size / full_h
            scale_w = crop_size / full_w
            # Where the grown box leaves the image (top/left), the crop
            # starts that far into the mean-filled input.
            pad_y = int(round(max(0, -box[0]) * scale_h))
            pad_x = int(round(max(0, -box[1]) * scale_w))

            im_h, im_w = im.shape[:2]
            box = np.clip(box, 0., [im_h, im_w, im_h, im_w])
            clip_h = box[2] - box[0] + 1
            clip_w = box[3] - box[1] + 1
            if not (clip_h > 0 and clip_w > 0):
                raise ValueError('window %s lies outside the %dx%d image' %
                                 (list(window), im_h, im_w))
            crop_h = int(round(clip_h * scale_h))
            crop_w = int(round(clip_w * scale_w))
            if pad_y + crop_h > crop_size:
                crop_h = crop_size - pad_y
            if pad_x + crop_w > crop_size:
                crop_w = crop_size - pad_x

            box = box.astype(int)
            context_crop = im[box[0]:box[2], box[1]:box[3]]
            context_crop = caffe.io.resize_image(context_crop,
                                                 (crop_h, crop_w))
            crop = np.ones(self.crop_dims, dtype=np.float32) * self.crop_mean
            crop[pad_y:(pad_y + crop_h), pad_x:(pad_x + crop_w)] = context_crop

        return crop

    def configure_crop(self, context_pad):
        """Set crop_dims (H x W x K of the net input) and, for context
        padding, crop_mean: the mean in unprocessed image space."""
        in_ = self.inputs[0]
        tpose = self.transformer.transpose[in_]
        inv_tpose = np.argsort(tpose)
        self.crop_dims = np.array(self.blobs[in_].data.shape[1:])[inv_tpose]
        self.context_pad = context_pad
        if self.context_pad:
            channel_order = self.transformer.channel_swap.get(in_)
            raw_scale = self.transformer.raw_scale.get(in_)
            # Padding happens before pre-processing, so the mean is mapped
            # back through the transpose, channel swap and raw scale.
            mean = self.transformer.mean.get(in_)
            if mean is not None:
                crop_mean = np.array(mean, dtype=np.float32)
                if crop_mean.ndim == 2:  # an H x W mean, for every channel
                    crop_mean = crop_mean[np.newaxis]
                crop_mean = crop_mean.transpose(inv_tpose)
                if channel_order is not None:
                    crop_mean = crop_mean[:, :, np.argsort(channel_order)]
                if raw_scale is not None:
                    crop_mean /= raw_scale
                self.crop_mean = crop_mean
            else:
                self.crop_mean = np.zeros(self.crop_dims, dtype=np.float32)
