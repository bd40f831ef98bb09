#include "caffe/layers/memory_data_layer.hpp"

#ifdef USE_OPENCV
#include <opencv2/core/core.hpp>
#endif

namespace caffe {

template <typename Dtype>
void MemoryDataLayer<Dtype>::DataLayerSetUp(
    const vector<Blob<Dtype>*>& bottom, const vector<Blob<Dtype>*>& top) {
  const MemoryDataParameter& param = this->layer_param_.memory_data_param();
  batch_size_ = static_cast<int>(param.batch_size());
  channels_ = static_cast<int>(param.channels());
  height_ = static_cast<int>(param.height());
  width_ = static_cast<int>(param.width());
  CAFFE_CHECK(batch_size_ > 0 && channels_ > 0 && height_ > 0 && width_ > 0)
      << "MemoryData layer '" << this->layer_param_.name()
      << "': batch_size, channels, height and width must be specified and "
         "positive in memory_data_param (got "
      << batch_size_ << ", " << channels_ << ", " << height_ << ", "
      << width_ << ")";
  size_ = channels_ * height_ * width_;
  top[0]->Reshape(batch_size_, channels_, height_, width_);
  top[1]->Reshape(vector<int>(1, batch_size_));
  added_data_.Reshape(batch_size_, channels_, height_, width_);
  added_label_.Reshape(vector<int>(1, batch_size_));
  data_ = nullptr;
  labels_ = nullptr;
  n_ = 0;
  pos_ = 0;
  has_new_data_ = false;
}

template <typename Dtype>
void MemoryDataLayer<Dtype>::PrepareAdded(int num, const char* what) {
  CAFFE_CHECK(!has_new_data_)
      << "MemoryData layer '" << this->layer_param_.name()
      << "': can't add data until the current data has been consumed";
  CAFFE_CHECK_GT(num, 0) << "MemoryData layer '" << this->layer_param_.name()
                         << "': there is no " << what << " to add";
  CAFFE_CHECK_EQ(num % batch_size_, 0)
      << "MemoryData layer '" << this->layer_param_.name()
      << "': the added data must be a multiple of the batch size "
      << batch_size_;
  added_data_.Reshape(num, channels_, height_, width_);
  added_label_.Reshape(vector<int>(1, num));
}

template <typename Dtype>
void MemoryDataLayer<Dtype>::ServeAdded(int num) {
  Reset(added_data_.mutable_cpu_data(), added_label_.mutable_cpu_data(), num);
  has_new_data_ = true;
}

template <typename Dtype>
void MemoryDataLayer<Dtype>::AddDatumVector(const vector<Datum>& datum_vector) {
  const int num = static_cast<int>(datum_vector.size());
  PrepareAdded(num, "datum");
  this->data_transformer_->Transform(datum_vector, &added_data_);
  Dtype* label_data = added_label_.mutable_cpu_data();
  for (int i = 0; i < num; ++i) label_data[i] = datum_vector[i].label();
  ServeAdded(num);
}

#ifdef USE_OPENCV
template <typename Dtype>
void MemoryDataLayer<Dtype>::AddMatVector(const vector<cv::Mat>& mat_vector,
                                          const vector<int>& labels) {
  const int num = static_cast<int>(mat_vector.size());
  CAFFE_CHECK_EQ(num, static_cast<int>(labels.size()))
      << "MemoryData layer '" << this->layer_param_.name()
      << "': vector of images and vector of labels differ in size";
  PrepareAdded(num, "image");
  this->data_transformer_->Transform(mat_vector, &added_data_);
  Dtype* label_data = added_label_.mutable_cpu_data();
  for (int i = 0; i < num; ++i) label_data[i] = labels[i];
  ServeAdded(num);
}
#endif  // USE_OPENCV

template <typename Dtype>
void MemoryDataLayer<Dtype>::Reset(Dtype* data, Dtype* labels, int n) {
  CAFFE_CHECK(data) << "MemoryData layer '" << this->layer_param_.name()
                    << "': Reset needs data";
  CAFFE_CHECK(labels) << "MemoryData layer '" << this->layer_param_.name()
                      << "': Reset needs labels";
  CAFFE_CHECK(n > 0 && n % batch_size_ == 0)
      << "MemoryData layer '" << this->layer_param_.name() << "': n (" << n
      << ") must be a positive multiple of the batch size " << batch_size_;
  // The arrays are meant to be generic; transform_param applies only to
  // Add*Vector.
  if (this->layer_param_.has_transform_param()) {
    LOG(WARNING) << this->type() << " does not transform array data on Reset()";
  }
  data_ = data;
  labels_ = labels;
  n_ = n;
  pos_ = 0;
}

template <typename Dtype>
void MemoryDataLayer<Dtype>::set_batch_size(int new_size) {
  CAFFE_CHECK(!has_new_data_)
      << "MemoryData layer '" << this->layer_param_.name()
      << "': can't change batch_size until the current data has been "
         "consumed";
  CAFFE_CHECK_GT(new_size, 0) << "MemoryData layer '"
                              << this->layer_param_.name()
                              << "': batch_size must be positive";
  batch_size_ = new_size;
  added_data_.Reshape(batch_size_, channels_, height_, width_);
  added_label_.Reshape(vector<int>(1, batch_size_));
}

template <typename Dtype>
void MemoryDataLayer<Dtype>::Forward_cpu(const vector<Blob<Dtype>*>& bottom,
                                         const vector<Blob<Dtype>*>& top) {
  CAFFE_CHECK(data_) << "MemoryData layer '" << this->layer_param_.name()
                     << "' needs to be initialized by calling Reset (or "
                        "AddDatumVector / AddMatVector) before Forward";
  CAFFE_CHECK_EQ(n_ % batch_size_, 0)
      << "MemoryData layer '" << this->layer_param_.name() << "': "
      << n_ << " items do not divide into batches of " << batch_size_;
  top[0]->Reshape(batch_size_, channels_, height_, width_);
  top[1]->Reshape(vector<int>(1, batch_size_));
  caffe_copy(batch_size_ * size_, data_ + static_cast<size_t>(pos_) * size_,
             top[0]->mutable_cpu_data());
  caffe_copy(batch_size_, labels_ + pos_, top[1]->mutable_cpu_data());
  pos_ = (pos_ + batch_size_) % n_;
  if (pos_ == 0) has_new_data_ = false;
}

INSTANTIATE_CLASS(MemoryDataLayer);
REGISTER_LAYER_CLASS(MemoryData);

}  // namespace caffe
