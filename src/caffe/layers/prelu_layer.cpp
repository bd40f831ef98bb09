#include <algorithm>
#include <memory>
#include <vector>

#include "caffe/filler.hpp"
#include "caffe/layers/prelu_layer.hpp"
#include "caffe/util/elementwise.hpp"
#include "prelu_compute.hpp"

namespace caffe {

template <typename Dtype>
void PReLULayer<Dtype>::LayerSetUp(const vector<Blob<Dtype>*>& bottom,
                                   const vector<Blob<Dtype>*>& top) {
  CAFFE_CHECK_GE(bottom[0]->num_axes(), 2)
      << "PReLU layer " << this->layer_param_.name()
      << " needs a bottom with at least 2 axes, got "
      << bottom[0]->shape_string();
  const PReLUParameter& param = this->layer_param_.prelu_param();
  channel_shared_ = param.channel_shared();
  const int channels = bottom[0]->shape(1);
  if (this->blobs_.empty()) {
    this->blobs_.resize(1);
    this->blobs_[0].reset(channel_shared_
                              ? new Blob<Dtype>(vector<int>())
                              : new Blob<Dtype>(vector<int>(1, channels)));
    FillerParameter filler_param;
    if (param.has_filler()) {
      filler_param = param.filler();
    } else {
      filler_param.set_type("constant");
      filler_param.set_value(0.25f);
    }
    std::unique_ptr<Filler<Dtype> > filler(GetFiller<Dtype>(filler_param));
    filler->Fill(this->blobs_[0].get());
  }
  if (channel_shared_) {
    CAFFE_CHECK_EQ(this->blobs_[0]->count(), 1)
        << "PReLU layer " << this->layer_param_.name()
        << ": a shared slope must have one element, got shape "
        << this->blobs_[0]->shape_string();
  } else {
    CAFFE_CHECK_EQ(this->blobs_[0]->count(), channels)
        << "PReLU layer " << this->layer_param_.name()
        << ": slope shape " << this->blobs_[0]->shape_string()
        << " does not match the channels of bottom "
        << bottom[0]->shape_string();
  }
  this->param_propagate_down_.resize(this->blobs_.size(), true);
}

template <typename Dtype>
void PReLULayer<Dtype>::Reshape(const vector<Blob<Dtype>*>& bottom,
                                const vector<Blob<Dtype>*>& top) {
  CAFFE_CHECK_GE(bottom[0]->num_axes(), 2)
      << "PReLU layer " << this->layer_param_.name()
      << " needs a bottom with at least 2 axes, got "
      << bottom[0]->shape_string();
  const int channels = bottom[0]->shape(1);
  CAFFE_CHECK(channel_shared_ || this->blobs_[0]->count() == channels)
      << "PReLU layer " << this->layer_param_.name() << ": bottom "
      << bottom[0]->shape_string() << " does not match slope shape "
      << this->blobs_[0]->shape_string();
  NeuronLayer<Dtype>::Reshape(bottom, top);
  if (bottom[0] == top[0]) {
    bottom_memory_.ReshapeLike(*bottom[0]);
  } else {
    bottom_memory_.Reshape(vector<int>(1, 0));
  }
}

DEFINE_CPU_BY_LAUNCH_POLICY(PReLULayer);

INSTANTIATE_CLASS(PReLULayer);
REGISTER_LAYER_CLASS(PReLU);

}  // namespace caffe
