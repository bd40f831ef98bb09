#include "caffe/layers/image_data_layer.hpp"

#ifdef USE_OPENCV
#include <opencv2/core/core.hpp>
#endif

#include <algorithm>

namespace caffe {

template <typename Dtype>
ImageDataLayer<Dtype>::~ImageDataLayer() {
  // load_batch reads lines_: stop the thread before members go away.
  this->StopInternalThread();
}

#ifdef USE_OPENCV

template <typename Dtype>
void ImageDataLayer<Dtype>::DataLayerSetUp(const vector<Blob<Dtype>*>& bottom,
                                           const vector<Blob<Dtype>*>& top) {
  const ImageDataParameter& param = this->layer_param_.image_data_param();
  const string& name = this->layer_param_.name();
  const int new_height = param.new_height();
  const int new_width = param.new_width();
  CAFFE_CHECK((new_height == 0 && new_width == 0) ||
              (new_height > 0 && new_width > 0))
      << "ImageData layer '" << name
      << "': new_height and new_width must be set together (got "
      << new_height << " x " << new_width << ")";
  CAFFE_CHECK(param.has_source() && !param.source().empty())
      << "ImageData layer '" << name << "' needs image_data_param.source";
  const int batch_size = static_cast<int>(param.batch_size());
  CAFFE_CHECK_GT(batch_size, 0)
      << "ImageData layer '" << name
      << "': image_data_param.batch_size must be > 0";

  LOG(INFO) << "Opening file " << param.source();
  lines_ = ReadImageList(param.source());
  CAFFE_CHECK(!lines_.empty())
      << "ImageData layer '" << name << "': list file " << param.source()
      << " names no images";

  if (param.shuffle()) {
    LOG(INFO) << "Shuffling data";
    shuffle_rng_.seed(caffe_rng_rand());
    ShuffleImages();
  }
  LOG(INFO) << "A total of " << lines_.size() << " images.";

  lines_id_ = 0;
  if (param.rand_skip()) {
    const unsigned int skip = caffe_rng_rand() % param.rand_skip();
    LOG(INFO) << "Skipping first " << skip << " data points.";
    CAFFE_CHECK_GT(lines_.size(), skip)
        << "ImageData layer '" << name << "': not enough images ("
        << lines_.size() << ") to skip " << skip;
    lines_id_ = skip;
  }
  // Data-parallel: where this rank's first batch starts.
  SkipLines(static_cast<uint64_t>(Caffe::solver_rank()) * batch_size);

  // The first image fixes the initial shape; batches reshape to their own
  // first image.
  const cv::Mat cv_img = ReadCurrentImage();
  vector<int> top_shape = this->data_transformer_->InferBlobShape(cv_img);
  this->transformed_data_.Reshape(top_shape);
  top_shape[0] = batch_size;
  top[0]->Reshape(top_shape);
  for (auto& batch : this->prefetch_) batch->data_.Reshape(top_shape);
  LOG(INFO) << "output data size: " << top[0]->shape_string();
  const vector<int> label_shape(1, batch_size);
  top[1]->Reshape(label_shape);
  for (auto& batch : this->prefetch_) batch->label_.Reshape(label_shape);
}

template <typename Dtype>
void ImageDataLayer<Dtype>::ShuffleImages() {
  std::shuffle(lines_.begin(), lines_.end(), shuffle_rng_);
}

template <typename Dtype>
cv::Mat ImageDataLayer<Dtype>::ReadCurrentImage() {
  const ImageDataParameter& param = this->layer_param_.image_data_param();
  const ImageListEntry& entry = lines_[lines_id_];
  try {
    return ReadImageToCVMat(param.root_folder() + entry.path,
                            param.new_height(), param.new_width(),
                            param.is_color());
  } catch (const Error& e) {
    throw Error("ImageData layer '" + this->layer_param_.name() + "': " +
                param.source() + ":" + std::to_string(entry.line) +
                ": image '" + entry.path + "': " + e.what());
  }
}

template <typename Dtype>
void ImageDataLayer<Dtype>::load_batch(Batch<Dtype>* batch) {
  const ImageDataParameter& param = this->layer_param_.image_data_param();
  const int batch_size = static_cast<int>(param.batch_size());
  Dtype* label_data = batch->label_.mutable_cpu_data();
  for (int item_id = 0; item_id < batch_size; ++item_id) {
    const cv::Mat cv_img = ReadCurrentImage();
    if (item_id == 0) {
      vector<int> top_shape = this->data_transformer_->InferBlobShape(cv_img);
      this->transformed_data_.Reshape(top_shape);
      top_shape[0] = batch_size;
      batch->data_.Reshape(top_shape);
    }
    Dtype* top_data = batch->data_.mutable_cpu_data();
    this->transformed_data_.set_cpu_data(top_data +
                                         batch->data_.offset(item_id));
    try {
      this->data_transformer_->Transform(cv_img, &this->transformed_data_);
    } catch (const Error& e) {
      const ImageListEntry& entry = lines_[lines_id_];
      throw Error(param.source() + ":" + std::to_string(entry.line) +
                  ": image '" + entry.path + "': " + e.what());
    }
    label_data[item_id] = lines_[lines_id_].label;
    NextLine();
  }
  // The other ranks' shares of this step of the image stream.
  SkipLines(static_cast<uint64_t>(Caffe::solver_count() - 1) * batch_size);
}

template <typename Dtype>
void ImageDataLayer<Dtype>::NextLine() {
  if (++lines_id_ >= lines_.size()) {
    DLOG(INFO) << "Restarting data prefetching from start.";
    lines_id_ = 0;
    if (this->layer_param_.image_data_param().shuffle()) ShuffleImages();
  }
}

template <typename Dtype>
void ImageDataLayer<Dtype>::SkipLines(uint64_t n) {
  for (uint64_t i = 0; i < n; ++i) NextLine();
}
#else   // !USE_OPENCV
// Registered all the same, so that a net naming the type learns why it
// cannot run rather than that the type is unknown.
template <typename Dtype>
void ImageDataLayer<Dtype>::DataLayerSetUp(const vector<Blob<Dtype>*>& bottom,
                                           const vector<Blob<Dtype>*>& top) {
  ThrowOpenCVMissing("ImageData layer '" + this->layer_param_.name() +
                     "': the ImageData layer type (reading image files)");
}

// Not reached: the prefetch thread starts only after a successful setup.
template <typename Dtype>
void ImageDataLayer<Dtype>::load_batch(Batch<Dtype>* batch) {
  ThrowOpenCVMissing("the ImageData layer type");
}
#endif  // USE_OPENCV

INSTANTIATE_CLASS(ImageDataLayer);
REGISTER_LAYER_CLASS(ImageData);

}  // namespace caffe
