// A mean file (.binaryproto, a BlobProto) as data layers load it through
// transform_param.mean_file, then applied to a 3 x 8 x 8 image.
#include <string>

#include "caffe/blob.hpp"
#include "caffe/data_transformer.hpp"
#include "fuzz_target.hpp"

LEANCAFFE_FUZZ_TARGET(mean_binaryproto) {
  const std::string path =
      caffe::fuzz::WriteInput("fuzz_mean.binaryproto", data, size);
  caffe::fuzz::Guard([&] {
    caffe::TransformationParameter param;
    param.set_mean_file(path);
    if (size && (data[0] & 1)) param.set_crop_size(4);
    caffe::DataTransformer<float> transformer(param, caffe::TEST);
    caffe::Datum datum;
    datum.set_channels(3);
    datum.set_height(8);
    datum.set_width(8);
    datum.set_data(std::string(3 * 8 * 8, '\x40'));
    caffe::Blob<float> blob(transformer.InferBlobShape(datum));
    transformer.Transform(datum, &blob);
  });
}
