"""caffe.Classifier (Caffe 1.0): a caffe.Net in TEST phase that classifies
H x W x K images (RGB in [0, 1], as caffe.io.load_image gives).

predict() resizes the images to image_dims, takes the centre crop, or the ten
corner/centre/mirror crops (oversample, the default) of the net input's size,
pre-processes them with a caffe.io.Transformer (transpose to K x H x W,
channel swap, raw scale, mean, input scale), runs the net and returns the
first output blob, N x classes (averaged over the ten crops).
"""

import numpy as np

import caffe


class Classifier(caffe.Net):
    """Take
    model_file, pretrained_file: the deploy prototxt and its .caffemodel.
    image_dims: (height, width) images are resized to before cropping;
        default: the net input's size.
    mean, input_scale, raw_scale, channel_swap: see caffe.io.Transformer.
    """

    def __init__(self, model_file, pretrained_file, image_dims=None,
                 mean=None, input_scale=None, raw_scale=None,
                 channel_swap=None):
        caffe.Net.__init__(self, model_file, pretrained_file, caffe.TEST)

        in_ = self.inputs[0]
        self.transformer = caffe.io.input_transformer(
            in_, self.blobs[in_].data.shape, mean, input_scale, raw_scale,
            channel_swap)

        self.crop_dims = np.array(self.blobs[in_].data.shape[2:])
        if image_dims is None or len(image_dims) == 0:
            image_dims = self.crop_dims
        self.image_dims = image_dims

    def predict(self, inputs, oversample=True):
        """Classify a list (or N x H x W x K array) of images.

        oversample: average over the ten crops of each image (True), or
            use the centre crop only (False).
        Returns an N x C array of class scores (the net's first output).
        """
        input_ = np.zeros((len(inputs), self.image_dims[0],
                           self.image_dims[1], inputs[0].shape[2]),
                          dtype=np.float32)
        for ix, in_ in enumerate(inputs):
            input_[ix] = caffe.io.resize_image(in_, self.image_dims)

        if oversample:
            input_ = caffe.io.oversample(input_, self.crop_dims)
        else:
            center = np.array(self.image_dims) / 2.0
            crop = np.tile(center, (1, 2))[0] + np.concatenate([
                -self.crop_dims / 2.0, self.crop_dims / 2.0])
            crop = crop.astype(int)
            input_ = input_[:, crop[0]:crop[2], crop[1]:crop[3], :]

        caffe_in = np.zeros(np.array(input_.shape)[[0, 3, 1, 2]],
                            dtype=np.float32)
        for ix, in_ in enumerate(input_):
            caffe_in[ix] = self.transformer.preprocess(self.inputs[0], in_)
        out = self.forward_all(**{self.inputs[0]: caffe_in})
        predictions = out[self.outputs[0]]

        if oversample:
            predictions = predictions.reshape((len(predictions) // 10, 10, -1))
            predictions = predictions.mean(1)
        return predictions
