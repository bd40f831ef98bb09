#include "caffe/data_transformer.hpp"

#ifdef USE_OPENCV
#include <opencv2/core/core.hpp>
#endif

#include <cstdint>
#include <string>

#include "caffe/util/image_io.hpp"
#include "caffe/util/io.hpp"
#include "caffe/util/math_functions.hpp"

namespace caffe {

template <typename Dtype>
DataTransformer<Dtype>::DataTransformer(const TransformationParameter& param,
                                        Phase phase)
    : param_(param), phase_(phase), rng_initialized_(false) {
  if (param_.has_mean_file()) {
    CAFFE_CHECK_EQ(param_.mean_value_size(), 0)
        << "Cannot specify mean_file and mean_value at the same time";
    BlobProto blob_proto;
    ReadProtoFromBinaryFileOrDie(param_.mean_file(), &blob_proto);
    data_mean_.FromProto(blob_proto);
    CAFFE_CHECK_GT(data_mean_.count(), 0)
        << "mean_file " << param_.mean_file() << " holds an empty blob";
  }
  for (int c = 0; c < param_.mean_value_size(); ++c)
    mean_values_.push_back(param_.mean_value(c));
}

template <typename Dtype>
void DataTransformer<Dtype>::InitRand() {
  const bool needs_rand =
      param_.mirror() || (phase_ == TRAIN && param_.crop_size());
  if (needs_rand) {
    // Every rank of a data-parallel job builds its nets from one seed;
    // crops and mirrors differ by rank (rank 0 draws a single process's).
    rng_.seed(caffe_rng_rand() +
              static_cast<unsigned int>(Caffe::solver_rank()));
    rng_initialized_ = true;
  }
}

template <typename Dtype>
int DataTransformer<Dtype>::Rand(int n) {
  CAFFE_CHECK_GT(n, 0) << "DataTransformer::Rand needs a positive range";
  // A transformer used without InitRand still gets a reproducible stream
  // drawn from the calling thread's Caffe generator.
  if (!rng_initialized_) {
    rng_.seed(caffe_rng_rand());
    rng_initialized_ = true;
  }
  return static_cast<int>(rng_() % static_cast<unsigned int>(n));
}

template <typename Dtype>
void DataTransformer<Dtype>::CheckNotEncoded(const Datum& datum) const {
  // Encoded datums are decoded before they reach the raw-pixel code.
  CAFFE_CHECK(!datum.encoded()) << "Encoded datum reached raw transform";
}

#ifdef USE_OPENCV
template <typename Dtype>
cv::Mat DataTransformer<Dtype>::DecodeEncoded(const Datum& datum) const {
  CAFFE_CHECK(!(param_.force_color() && param_.force_gray()))
      << "transform_param cannot set both force_color and force_gray";
  if (param_.force_color() || param_.force_gray()) {
    // force_gray decodes as gray; force_color as 3-channel colour.
    return DecodeDatumToCVMat(datum, param_.force_color());
  }
  return DecodeDatumToCVMatNative(datum);
}
#endif  // USE_OPENCV

template <typename Dtype>
void DataTransformer<Dtype>::CheckDatumShape(const Datum& datum) const {
  CheckNotEncoded(datum);
  const int crop_size = param_.crop_size();
  CAFFE_CHECK_GT(datum.channels(), 0) << "Datum without channels";
  CAFFE_CHECK_GT(datum.height(), 0) << "Datum without height";
  CAFFE_CHECK_GT(datum.width(), 0) << "Datum without width";
  CAFFE_CHECK_GE(datum.height(), crop_size)
      << "crop_size is larger than the datum height";
  CAFFE_CHECK_GE(datum.width(), crop_size)
      << "crop_size is larger than the datum width";
}

template <typename Dtype>
void DataTransformer<Dtype>::CheckCropShape(
    const Blob<Dtype>& transformed_blob) const {
  const int crop_size = param_.crop_size();
  CAFFE_CHECK_EQ(crop_size, transformed_blob.height())
      << "transformed blob " << transformed_blob.shape_string()
      << " does not match crop_size";
  CAFFE_CHECK_EQ(crop_size, transformed_blob.width())
      << "transformed blob " << transformed_blob.shape_string()
      << " does not match crop_size";
}

template <typename Dtype>
void DataTransformer<Dtype>::CheckMeanFileShape(int channels, int height,
                                                int width,
                                                const string& input) const {
  if (!param_.has_mean_file()) return;
  CAFFE_CHECK(channels == data_mean_.channels() &&
              height == data_mean_.height() && width == data_mean_.width())
      << "mean_file " << param_.mean_file() << " has shape "
      << data_mean_.shape_string() << " but the input is " << input;
}

template <typename Dtype>
void DataTransformer<Dtype>::CropOffsets(int height, int width, int* h_off,
                                         int* w_off) {
  const int crop_size = param_.crop_size();
  *h_off = 0;
  *w_off = 0;
  if (!crop_size) return;
  if (phase_ == TRAIN) {
    *h_off = Rand(height - crop_size + 1);
    *w_off = Rand(width - crop_size + 1);
  } else {
    *h_off = (height - crop_size) / 2;
    *w_off = (width - crop_size) / 2;
  }
}

template <typename Dtype>
void DataTransformer<Dtype>::Transform(const Datum& datum,
                                       Dtype* transformed_data) {
  CheckDatumShape(datum);
  const int datum_channels = datum.channels();
  const int datum_height = datum.height();
  const int datum_width = datum.width();
  const int crop_size = param_.crop_size();
  const Dtype scale = param_.scale();
  const bool has_mean_file = param_.has_mean_file();
  const bool has_uint8 = datum.data().size() > 0;
  const bool has_mean_values = !mean_values_.empty();

  const int64_t datum_size =
      static_cast<int64_t>(datum_channels) * datum_height * datum_width;
  if (has_uint8) {
    CAFFE_CHECK_EQ(static_cast<int64_t>(datum.data().size()), datum_size)
        << "Datum data holds " << datum.data().size()
        << " bytes but channels x height x width = " << datum_channels
        << " x " << datum_height << " x " << datum_width;
  } else {
    CAFFE_CHECK_EQ(static_cast<int64_t>(datum.float_data_size()), datum_size)
        << "Datum float_data holds " << datum.float_data_size()
        << " values but channels x height x width = " << datum_channels
        << " x " << datum_height << " x " << datum_width;
  }

  CheckMeanFileShape(datum_channels, datum_height, datum_width,
                     "a datum of " + std::to_string(datum_channels) + " x " +
                         std::to_string(datum_height) + " x " +
                         std::to_string(datum_width));
  const Dtype* mean = has_mean_file ? data_mean_.cpu_data() : nullptr;
  if (has_mean_values) {
    CAFFE_CHECK(mean_values_.size() == 1 ||
                static_cast<int>(mean_values_.size()) == datum_channels)
        << "Specify either 1 mean_value or as many as channels ("
        << datum_channels << "); got " << mean_values_.size();
    if (datum_channels > 1 && mean_values_.size() == 1) {
      // Replicate the single mean value for simplicity.
      mean_values_.resize(datum_channels, mean_values_[0]);
    }
  }

  const int height = crop_size ? crop_size : datum_height;
  const int width = crop_size ? crop_size : datum_width;
  int h_off = 0;
  int w_off = 0;
  CropOffsets(datum_height, datum_width, &h_off, &w_off);
  const bool do_mirror = param_.mirror() && Rand(2);

  const string& data = datum.data();
  for (int c = 0; c < datum_channels; ++c) {
    for (int h = 0; h < height; ++h) {
      for (int w = 0; w < width; ++w) {
        const int data_index =
            (c * datum_height + h_off + h) * datum_width + w_off + w;
        const int top_w = do_mirror ? (width - 1 - w) : w;
        const int top_index = (c * height + h) * width + top_w;
        const Dtype element =
            has_uint8 ? static_cast<Dtype>(static_cast<uint8_t>(
                            data[data_index]))
                      : static_cast<Dtype>(datum.float_data(data_index));
        if (has_mean_file) {
          transformed_data[top_index] = (element - mean[data_index]) * scale;
        } else if (has_mean_values) {
          transformed_data[top_index] = (element - mean_values_[c]) * scale;
        } else {
          transformed_data[top_index] = element * scale;
        }
      }
    }
  }
}

template <typename Dtype>
void DataTransformer<Dtype>::Transform(const Datum& datum,
                                       Blob<Dtype>* transformed_blob) {
  if (datum.encoded()) {
#ifdef USE_OPENCV
    Transform(DecodeEncoded(datum), transformed_blob);
    return;
#else
    ThrowOpenCVMissing("decoding an encoded (compressed image) Datum");
#endif
  }
  if (param_.force_color() || param_.force_gray()) {
    LOG_FIRST_N(WARNING, 1)
        << "force_color and force_gray only apply to encoded datums";
  }
  const int crop_size = param_.crop_size();
  const int datum_channels = datum.channels();
  const int datum_height = datum.height();
  const int datum_width = datum.width();
  const int channels = transformed_blob->channels();
  const int height = transformed_blob->height();
  const int width = transformed_blob->width();
  const int num = transformed_blob->num();

  CAFFE_CHECK_EQ(channels, datum_channels)
      << "transformed blob " << transformed_blob->shape_string()
      << " does not fit a datum of " << datum_channels << " x "
      << datum_height << " x " << datum_width;
  CAFFE_CHECK_LE(height, datum_height)
      << "transformed blob " << transformed_blob->shape_string();
  CAFFE_CHECK_LE(width, datum_width)
      << "transformed blob " << transformed_blob->shape_string();
  CAFFE_CHECK_GE(num, 1) << "transformed blob "
                         << transformed_blob->shape_string();
  if (crop_size) {
    CheckCropShape(*transformed_blob);
  } else {
    CAFFE_CHECK_EQ(datum_height, height)
        << "transformed blob " << transformed_blob->shape_string()
        << " does not match the datum height";
    CAFFE_CHECK_EQ(datum_width, width)
        << "transformed blob " << transformed_blob->shape_string()
        << " does not match the datum width";
  }
  Transform(datum, transformed_blob->mutable_cpu_data());
}

template <typename Dtype>
void DataTransformer<Dtype>::Transform(const vector<Datum>& datum_vector,
                                       Blob<Dtype>* transformed_blob) {
  const int datum_num = static_cast<int>(datum_vector.size());
  const int num = transformed_blob->num();
  CAFFE_CHECK_GT(datum_num, 0) << "There is no datum to add";
  CAFFE_CHECK_LE(datum_num, num)
      << "The size of datum_vector must be no greater than "
         "transformed_blob->num()";
  Blob<Dtype> uni_blob(1, transformed_blob->channels(),
                       transformed_blob->height(), transformed_blob->width());
  for (int item_id = 0; item_id < datum_num; ++item_id) {
    const int64_t offset = transformed_blob->offset(item_id);
    uni_blob.set_cpu_data(transformed_blob->mutable_cpu_data() + offset);
    Transform(datum_vector[item_id], &uni_blob);
  }
}

template <typename Dtype>
void DataTransformer<Dtype>::Transform(Blob<Dtype>* input_blob,
                                       Blob<Dtype>* transformed_blob) {
  CAFFE_CHECK(input_blob != transformed_blob)
      << "DataTransformer cannot transform a blob in place";
  const int crop_size = param_.crop_size();
  const int input_num = input_blob->num();
  const int input_channels = input_blob->channels();
  const int input_height = input_blob->height();
  const int input_width = input_blob->width();

  if (transformed_blob->count() == 0) {
    if (crop_size) {
      transformed_blob->Reshape(input_num, input_channels, crop_size,
                                crop_size);
    } else {
      transformed_blob->Reshape(input_num, input_channels, input_height,
                                input_width);
    }
  }
  const int num = transformed_blob->num();
  const int channels = transformed_blob->channels();
  const int height = transformed_blob->height();
  const int width = transformed_blob->width();
  CAFFE_CHECK_LE(input_num, num)
      << "input " << input_blob->shape_string() << " vs transformed "
      << transformed_blob->shape_string();
  CAFFE_CHECK_EQ(input_channels, channels)
      << "input " << input_blob->shape_string() << " vs transformed "
      << transformed_blob->shape_string();
  CAFFE_CHECK_GE(input_height, height)
      << "input " << input_blob->shape_string() << " vs transformed "
      << transformed_blob->shape_string();
  CAFFE_CHECK_GE(input_width, width)
      << "input " << input_blob->shape_string() << " vs transformed "
      << transformed_blob->shape_string();

  if (crop_size) {
    CheckCropShape(*transformed_blob);
  } else {
    CAFFE_CHECK_EQ(input_height, height)
        << "input " << input_blob->shape_string() << " vs transformed "
        << transformed_blob->shape_string();
    CAFFE_CHECK_EQ(input_width, width)
        << "input " << input_blob->shape_string() << " vs transformed "
        << transformed_blob->shape_string();
  }
  int h_off = 0;
  int w_off = 0;
  CropOffsets(input_height, input_width, &h_off, &w_off);
  // One mirror decision for the whole blob, as Caffe does.
  const bool do_mirror = param_.mirror() && Rand(2);

  const bool has_mean_file = param_.has_mean_file();
  const bool has_mean_values = !mean_values_.empty();
  CheckMeanFileShape(input_channels, input_height, input_width,
                     input_blob->shape_string());
  const Dtype* mean = has_mean_file ? data_mean_.cpu_data() : nullptr;
  if (has_mean_values) {
    CAFFE_CHECK(mean_values_.size() == 1 ||
                static_cast<int>(mean_values_.size()) == input_channels)
        << "Specify either 1 mean_value or as many as channels ("
        << input_channels << "); got " << mean_values_.size();
  }

  const Dtype scale = param_.scale();
  const Dtype* input_data = input_blob->cpu_data();
  Dtype* transformed_data = transformed_blob->mutable_cpu_data();
  for (int n = 0; n < input_num; ++n) {
    for (int c = 0; c < channels; ++c) {
      const Dtype mean_value =
          has_mean_values
              ? mean_values_[mean_values_.size() == 1 ? 0 : c]
              : Dtype(0);
      for (int h = 0; h < height; ++h) {
        for (int w = 0; w < width; ++w) {
          const int in_index =
              ((n * input_channels + c) * input_height + h_off + h) *
                  input_width + w_off + w;
          const int top_w = do_mirror ? (width - 1 - w) : w;
          const int out_index = ((n * channels + c) * height + h) * width +
                                top_w;
          Dtype value = input_data[in_index];
          if (has_mean_file) {
            value -= mean[(c * input_height + h_off + h) * input_width +
                          w_off + w];
          } else {
            value -= mean_value;
          }
          transformed_data[out_index] = value * scale;
        }
      }
    }
  }
}

template <typename Dtype>
vector<int> DataTransformer<Dtype>::InferBlobShape(const Datum& datum) {
  if (datum.encoded()) {
#ifdef USE_OPENCV
    return InferBlobShape(DecodeEncoded(datum));
#else
    ThrowOpenCVMissing("decoding an encoded (compressed image) Datum");
#endif
  }
  CheckDatumShape(datum);
  const int crop_size = param_.crop_size();
  const int datum_channels = datum.channels();
  const int datum_height = datum.height();
  const int datum_width = datum.width();
  return {1, datum_channels, crop_size ? crop_size : datum_height,
          crop_size ? crop_size : datum_width};
}

template <typename Dtype>
vector<int> DataTransformer<Dtype>::InferBlobShape(
    const vector<Datum>& datum_vector) {
  CAFFE_CHECK_GT(datum_vector.size(), 0u) << "There is no datum to add";
  vector<int> shape = InferBlobShape(datum_vector[0]);
  shape[0] = static_cast<int>(datum_vector.size());
  return shape;
}

#ifdef USE_OPENCV
template <typename Dtype>
void DataTransformer<Dtype>::Transform(const cv::Mat& cv_img,
                                       Blob<Dtype>* transformed_blob) {
  const int crop_size = param_.crop_size();
  const int img_channels = cv_img.channels();
  const int img_height = cv_img.rows;
  const int img_width = cv_img.cols;
  const int channels = transformed_blob->channels();
  const int height = transformed_blob->height();
  const int width = transformed_blob->width();
  const int num = transformed_blob->num();
  const string image_shape = std::to_string(img_height) + " x " +
                             std::to_string(img_width) + " x " +
                             std::to_string(img_channels) + " image";

  CAFFE_CHECK(cv_img.data) << "DataTransformer got an empty image";
  CAFFE_CHECK(cv_img.depth() == CV_8U)
      << "Image data type must be unsigned byte (OpenCV depth "
      << cv_img.depth() << ")";
  CAFFE_CHECK_EQ(channels, img_channels)
      << "transformed blob " << transformed_blob->shape_string()
      << " does not fit a " << image_shape;
  CAFFE_CHECK_LE(height, img_height)
      << "transformed blob " << transformed_blob->shape_string()
      << " is larger than a " << image_shape;
  CAFFE_CHECK_LE(width, img_width)
      << "transformed blob " << transformed_blob->shape_string()
      << " is larger than a " << image_shape;
  CAFFE_CHECK_GE(num, 1) << "transformed blob "
                         << transformed_blob->shape_string();
  if (crop_size) {
    CAFFE_CHECK_GE(img_height, crop_size)
        << "crop_size is larger than the " << image_shape;
    CAFFE_CHECK_GE(img_width, crop_size)
        << "crop_size is larger than the " << image_shape;
    CheckCropShape(*transformed_blob);
  } else {
    CAFFE_CHECK(height == img_height && width == img_width)
        << "transformed blob " << transformed_blob->shape_string()
        << " does not match a " << image_shape;
  }
  CheckMeanFileShape(img_channels, img_height, img_width, "a " + image_shape);
  const bool has_mean_file = param_.has_mean_file();
  const bool has_mean_values = !mean_values_.empty();
  if (has_mean_values) {
    CAFFE_CHECK(mean_values_.size() == 1 ||
                static_cast<int>(mean_values_.size()) == img_channels)
        << "Specify either 1 mean_value or as many as channels ("
        << img_channels << "); got " << mean_values_.size();
  }
  const Dtype* mean = has_mean_file ? data_mean_.cpu_data() : nullptr;
  const Dtype scale = param_.scale();

  int h_off = 0;
  int w_off = 0;
  CropOffsets(img_height, img_width, &h_off, &w_off);
  const bool do_mirror = param_.mirror() && Rand(2);

  Dtype* transformed_data = transformed_blob->mutable_cpu_data();
  for (int h = 0; h < height; ++h) {
    const uchar* row = cv_img.ptr<uchar>(h + h_off);
    for (int w = 0; w < width; ++w) {
      const uchar* pixel = row + (w + w_off) * img_channels;
      const int top_w = do_mirror ? (width - 1 - w) : w;
      for (int c = 0; c < img_channels; ++c) {
        const int top_index = (c * height + h) * width + top_w;
        const Dtype value = static_cast<Dtype>(pixel[c]);
        if (has_mean_file) {
          const int mean_index =
              (c * img_height + h_off + h) * img_width + w_off + w;
          transformed_data[top_index] = (value - mean[mean_index]) * scale;
        } else if (has_mean_values) {
          const Dtype m = mean_values_[mean_values_.size() == 1 ? 0 : c];
          transformed_data[top_index] = (value - m) * scale;
        } else {
          transformed_data[top_index] = value * scale;
        }
      }
    }
  }
}

template <typename Dtype>
void DataTransformer<Dtype>::Transform(const vector<cv::Mat>& mat_vector,
                                       Blob<Dtype>* transformed_blob) {
  const int mat_num = static_cast<int>(mat_vector.size());
  const int num = transformed_blob->num();
  CAFFE_CHECK_GT(mat_num, 0) << "There is no MAT to add";
  CAFFE_CHECK_EQ(mat_num, num)
      << "The size of mat_vector must be equal to transformed_blob->num() ("
      << transformed_blob->shape_string() << ")";
  Blob<Dtype> uni_blob(1, transformed_blob->channels(),
                       transformed_blob->height(), transformed_blob->width());
  for (int item_id = 0; item_id < mat_num; ++item_id) {
    const int64_t offset = transformed_blob->offset(item_id);
    uni_blob.set_cpu_data(transformed_blob->mutable_cpu_data() + offset);
    Transform(mat_vector[item_id], &uni_blob);
  }
}

template <typename Dtype>
vector<int> DataTransformer<Dtype>::InferBlobShape(const cv::Mat& cv_img) {
  const int crop_size = param_.crop_size();
  CAFFE_CHECK(cv_img.data) << "Cannot infer a shape from an empty image";
  CAFFE_CHECK_GE(cv_img.rows, crop_size)
      << "crop_size is larger than the image height";
  CAFFE_CHECK_GE(cv_img.cols, crop_size)
      << "crop_size is larger than the image width";
  return {1, cv_img.channels(), crop_size ? crop_size : cv_img.rows,
          crop_size ? crop_size : cv_img.cols};
}

template <typename Dtype>
vector<int> DataTransformer<Dtype>::InferBlobShape(
    const vector<cv::Mat>& mat_vector) {
  CAFFE_CHECK_GT(mat_vector.size(), 0u) << "There is no cv_img to add";
  vector<int> shape = InferBlobShape(mat_vector[0]);
  shape[0] = static_cast<int>(mat_vector.size());
  return shape;
}
#endif  // USE_OPENCV

INSTANTIATE_CLASS(DataTransformer);

}  // namespace caffe
