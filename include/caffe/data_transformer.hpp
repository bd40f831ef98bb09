// data_transformer.hpp: the per-example preprocessing of data layers.
//
// Contract (Caffe 1.0 TransformationParameter): each value becomes
// (x - mean) * scale, where mean is the mean_file BlobProto (same C x H x W
// as the datum, indexed before cropping) or mean_value (one value for all
// channels or one per channel), or 0.  crop_size takes a random window in
// TRAIN and the centre window in TEST; mirror flips the width axis with
// probability 1/2.  Random choices come from the transformer's own
// std::mt19937, seeded from caffe_rng_rand() by InitRand(), so a fixed
// random_seed reproduces them and a prefetch thread does not share a stream
// with the solver.  Encoded (compressed JPEG/PNG) datums are decoded with
// OpenCV, keeping their own channel count unless force_color (3 channels)
// or force_gray (1 channel) is set; both at once, or an undecodable datum,
// throw caffe::Error.  cv::Mat inputs are 8-bit H x W x C (BGR) images as
// OpenCV reads them; mean_file is indexed in the uncropped input, as for
// datums.  In a build without OpenCV (USE_OPENCV=OFF) the cv::Mat overloads
// do not exist and an encoded datum throws caffe::Error naming
// USE_OPENCV=OFF (image_io.hpp ThrowOpenCVMissing); raw datums and blobs
// are transformed as in any build.
#ifndef CAFFE_DATA_TRANSFORMER_HPP_
#define CAFFE_DATA_TRANSFORMER_HPP_

#include <random>
#include <string>
#include <vector>

#include "caffe/blob.hpp"
#include "caffe/common.hpp"
#include "caffe/proto/caffe.pb.h"

#ifdef USE_OPENCV
// Only references to cv::Mat appear here, so users of this header do not
// need OpenCV's headers.
namespace cv {
class Mat;
}  // namespace cv
#endif

namespace caffe {

template <typename Dtype>
class DataTransformer {
 public:
  DataTransformer(const TransformationParameter& param, Phase phase);
  virtual ~DataTransformer() {}

  // Seeds the generator when the parameters need random choices.
  void InitRand();

  // Transforms one datum into transformed_blob (1 x C x H' x W', or the
  // blob's first item when num > 1).
  void Transform(const Datum& datum, Blob<Dtype>* transformed_blob);
  // Transforms a list of datums into consecutive items of transformed_blob.
  void Transform(const vector<Datum>& datum_vector,
                 Blob<Dtype>* transformed_blob);
#ifdef USE_OPENCV
  // Transforms one 8-bit image (H x W x C) into transformed_blob.
  void Transform(const cv::Mat& cv_img, Blob<Dtype>* transformed_blob);
  // Transforms images into consecutive items of transformed_blob.
  void Transform(const vector<cv::Mat>& mat_vector,
                 Blob<Dtype>* transformed_blob);
#endif
  // Transforms a N x C x H x W blob (crop, mirror, mean, scale per item).
  // transformed_blob must not be input_blob.
  void Transform(Blob<Dtype>* input_blob, Blob<Dtype>* transformed_blob);

  // The shape Transform produces for one datum: {1, C, H', W'}.
  vector<int> InferBlobShape(const Datum& datum);
  // {N, C, H', W'} for N datums of one shape.
  vector<int> InferBlobShape(const vector<Datum>& datum_vector);
#ifdef USE_OPENCV
  // The same for images.
  vector<int> InferBlobShape(const cv::Mat& cv_img);
  vector<int> InferBlobShape(const vector<cv::Mat>& mat_vector);
#endif

  const TransformationParameter& param() const { return param_; }

 protected:
  // A uniform integer in [0, n).
  virtual int Rand(int n);
  // Writes the transformed datum into C x H' x W' values at transformed_data.
  void Transform(const Datum& datum, Dtype* transformed_data);
  void CheckNotEncoded(const Datum& datum) const;
#ifdef USE_OPENCV
  // Decodes an encoded datum as force_color / force_gray ask.
  cv::Mat DecodeEncoded(const Datum& datum) const;
#endif
  // Checks that the datum is raw, has a shape and holds a crop_size window.
  void CheckDatumShape(const Datum& datum) const;
  // Checks that the output blob is crop_size x crop_size.
  void CheckCropShape(const Blob<Dtype>& transformed_blob) const;
  // Checks the mean_file blob (when given) against an input of channels x
  // height x width, described as `input` in messages.
  void CheckMeanFileShape(int channels, int height, int width,
                          const string& input) const;
  // Where the crop_size window starts in an input of height x width: random
  // in TRAIN, centred otherwise; 0, 0 without crop_size.
  void CropOffsets(int height, int width, int* h_off, int* w_off);

  TransformationParameter param_;
  Phase phase_;
  Blob<Dtype> data_mean_;
  vector<Dtype> mean_values_;
  std::mt19937 rng_;
  bool rng_initialized_;
};

}  // namespace caffe

#endif  // CAFFE_DATA_TRANSFORMER_HPP_
