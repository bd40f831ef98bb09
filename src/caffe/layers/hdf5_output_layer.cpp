#include "caffe/layers/hdf5_output_layer.hpp"

namespace caffe {

namespace {

// Caffe 1.0 stores blobs as N x C x H x W; keep that for up to 4 axes.
template <typename Dtype>
void CopyForStorage(const Blob<Dtype>& source, Blob<Dtype>* target) {
  if (source.num_axes() <= 4) {
    target->Reshape(source.num(), source.channels(), source.height(),
                    source.width());
  } else {
    target->ReshapeLike(source);
  }
  caffe_copy(source.count(), source.cpu_data(), target->mutable_cpu_data());
}

}  // namespace

template <typename Dtype>
void HDF5OutputLayer<Dtype>::LayerSetUp(const vector<Blob<Dtype>*>& bottom,
                                        const vector<Blob<Dtype>*>& top) {
  if (file_opened_) {
    H5Fclose(file_id_);
    file_opened_ = false;
  }
  file_name_ = this->layer_param_.hdf5_output_param().file_name();
  CAFFE_CHECK(!file_name_.empty())
      << "HDF5Output layer '" << this->layer_param_.name()
      << "' needs hdf5_output_param.file_name";
  hdf5_silence_errors();
  file_id_ = H5Fcreate(file_name_.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT,
                       H5P_DEFAULT);
  CAFFE_CHECK_GE(file_id_, 0) << "HDF5Output layer '"
                              << this->layer_param_.name()
                              << "': failed to create HDF5 file '"
                              << file_name_ << "'";
  file_opened_ = true;
}

template <typename Dtype>
HDF5OutputLayer<Dtype>::~HDF5OutputLayer() {
  if (file_opened_) {
    if (H5Fclose(file_id_) < 0)
      LOG(ERROR) << "Failed to close HDF5 file " << file_name_;
  }
}

template <typename Dtype>
void HDF5OutputLayer<Dtype>::SaveBlobs() {
  hdf5_append_nd_dataset(file_id_, HDF5_DATA_DATASET_NAME, data_blob_);
  hdf5_append_nd_dataset(file_id_, HDF5_DATA_LABEL_NAME, label_blob_);
  H5Fflush(file_id_, H5F_SCOPE_LOCAL);
  LOG(INFO) << "Successfully saved " << data_blob_.shape(0) << " rows to "
            << file_name_;
}

template <typename Dtype>
void HDF5OutputLayer<Dtype>::Forward_cpu(const vector<Blob<Dtype>*>& bottom,
                                         const vector<Blob<Dtype>*>& top) {
  CAFFE_CHECK(file_opened_) << "HDF5Output layer '"
                            << this->layer_param_.name()
                            << "' runs Forward before SetUp";
  CAFFE_CHECK_GE(bottom[0]->num_axes(), 1)
      << "HDF5Output layer '" << this->layer_param_.name()
      << "': data must have a num axis";
  CAFFE_CHECK_GE(bottom[1]->num_axes(), 1)
      << "HDF5Output layer '" << this->layer_param_.name()
      << "': label must have a num axis";
  CAFFE_CHECK_EQ(bottom[0]->shape(0), bottom[1]->shape(0))
      << "HDF5Output layer '" << this->layer_param_.name()
      << "': data " << bottom[0]->shape_string() << " and label "
      << bottom[1]->shape_string() << " differ in num";
  CopyForStorage(*bottom[0], &data_blob_);
  CopyForStorage(*bottom[1], &label_blob_);
  SaveBlobs();
}

template <typename Dtype>
void HDF5OutputLayer<Dtype>::Backward_cpu(const vector<Blob<Dtype>*>& top,
                                          const vector<bool>& propagate_down,
                                          const vector<Blob<Dtype>*>& bottom) {
  for (size_t i = 0; i < bottom.size() && i < propagate_down.size(); ++i) {
    if (propagate_down[i])
      caffe_set(bottom[i]->count(), Dtype(0), bottom[i]->mutable_cpu_diff());
  }
}

INSTANTIATE_CLASS(HDF5OutputLayer);
REGISTER_LAYER_CLASS(HDF5Output);

}  // namespace caffe
