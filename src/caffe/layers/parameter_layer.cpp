#include "caffe/layers/parameter_layer.hpp"

#include <vector>

#include "caffe/util/math_functions.hpp"

namespace caffe {

template <typename Dtype>
void ParameterLayer<Dtype>::LayerSetUp(const vector<Blob<Dtype>*>& bottom,
                                       const vector<Blob<Dtype>*>& top) {
  const BlobShape& shape = this->layer_param_.parameter_param().shape();
  Blob<Dtype> wanted;
  wanted.Reshape(shape);
  if (!this->blobs_.empty()) {
    CAFFE_CHECK_EQ(static_cast<int>(this->blobs_.size()), 1)
        << "Parameter layer " << this->layer_param_.name()
        << " holds exactly one blob";
    CAFFE_CHECK(this->blobs_[0]->shape() == wanted.shape())
        << "Parameter layer " << this->layer_param_.name()
        << ": the loaded blob has shape " << this->blobs_[0]->shape_string()
        << " but parameter_param.shape is " << wanted.shape_string();
  } else {
    this->blobs_.resize(1);
    this->blobs_[0].reset(new Blob<Dtype>(wanted.shape()));
    caffe_set(this->blobs_[0]->count(), Dtype(0),
              this->blobs_[0]->mutable_cpu_data());
  }
  this->param_propagate_down_.resize(1, true);
}

template <typename Dtype>
void ParameterLayer<Dtype>::Reshape(const vector<Blob<Dtype>*>& bottom,
                                    const vector<Blob<Dtype>*>& top) {
  top[0]->ReshapeLike(*this->blobs_[0]);
}

template <typename Dtype>
void ParameterLayer<Dtype>::Forward_cpu(const vector<Blob<Dtype>*>& bottom,
                                        const vector<Blob<Dtype>*>& top) {
  caffe_copy(top[0]->count(), this->blobs_[0]->cpu_data(),
             top[0]->mutable_cpu_data());
}

template <typename Dtype>
void ParameterLayer<Dtype>::Backward_cpu(const vector<Blob<Dtype>*>& top,
                                         const vector<bool>& propagate_down,
                                         const vector<Blob<Dtype>*>& bottom) {
  if (!this->param_propagate_down(0)) return;
  caffe_axpy(top[0]->count(), Dtype(1), top[0]->cpu_diff(),
             this->blobs_[0]->mutable_cpu_diff());
}

INSTANTIATE_CLASS(ParameterLayer);
REGISTER_LAYER_CLASS(Parameter);

}  // namespace caffe
