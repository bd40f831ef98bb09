// A Datum as the Data layer reads it from LMDB or LevelDB: parse, infer the
// top shape, transform (decoding encoded images through OpenCV; a build
// without it, USE_OPENCV=OFF, refuses them with caffe::Error).  The
// first bytes choose the transformation (crop, mirror, scale, mean values,
// force_color/force_gray, phase); the rest is the serialized Datum.
#include <string>

#include "caffe/blob.hpp"
#include "caffe/data_transformer.hpp"
#include "fuzz_target.hpp"

LEANCAFFE_FUZZ_TARGET(datum) {
  caffe::fuzz::Bytes choice(data, size < 4 ? size : 4);
  caffe::TransformationParameter param;
  const int crop = choice.Byte() % 9;
  if (crop) param.set_crop_size(crop);
  const int flags = choice.Byte();
  param.set_mirror(flags & 1);
  param.set_force_color(flags & 2);
  param.set_force_gray(flags & 4);
  if (flags & 8) param.set_scale(1.0f / 255);
  for (int c = 0; c < ((flags >> 4) & 3); ++c) param.add_mean_value(100 + c);
  const caffe::Phase phase = choice.Byte() & 1 ? caffe::TRAIN : caffe::TEST;
  if (size < 4) return;
  const std::string bytes(reinterpret_cast<const char*>(data) + 4, size - 4);
  caffe::fuzz::Guard([&] {
    caffe::Datum datum;
    if (!datum.ParseFromString(bytes)) return;  // the layer's own error
    caffe::DataTransformer<float> transformer(param, phase);
    transformer.InitRand();
    caffe::Blob<float> blob(transformer.InferBlobShape(datum));
    transformer.Transform(datum, &blob);
  });
}
