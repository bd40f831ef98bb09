#include <algorithm>
#include <memory>
#include <vector>

#include "caffe/filler.hpp"
#include "caffe/layers/prelu_layer.hpp"

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

template <typename Dtype>
void PReLULayer<Dtype>::Forward_cpu(const vector<Blob<Dtype>*>& bottom,
                                    const vector<Blob<Dtype>*>& top) {
  const Dtype* x = bottom[0]->cpu_data();
  const int count = bottom[0]->count();
  const int dim = bottom[0]->count(2);
  const int channels = bottom[0]->shape(1);
  const Dtype* slope = this->blobs_[0]->cpu_data();
  if (bottom[0] == top[0]) {
    caffe_copy(count, x, bottom_memory_.mutable_cpu_data());
    x = bottom_memory_.cpu_data();
  }
  Dtype* y = top[0]->mutable_cpu_data();
  for (int i = 0; i < count; ++i) {
    const int c = channel_shared_ ? 0 : (i / dim) % channels;
    y[i] = std::max(x[i], Dtype(0)) + slope[c] * std::min(x[i], Dtype(0));
  }
}

template <typename Dtype>
void PReLULayer<Dtype>::Backward_cpu(const vector<Blob<Dtype>*>& top,
                                     const vector<bool>& propagate_down,
                                     const vector<Blob<Dtype>*>& bottom) {
  const Dtype* x = (bottom[0] == top[0]) ? bottom_memory_.cpu_data()
                                         : bottom[0]->cpu_data();
  const Dtype* dy = top[0]->cpu_diff();
  const int count = bottom[0]->count();
  const int dim = bottom[0]->count(2);
  const int channels = bottom[0]->shape(1);
  // The slope gradient first: in place, the bottom diff below overwrites the
  // top diff it needs.
  if (this->param_propagate_down_[0]) {
    Dtype* slope_diff = this->blobs_[0]->mutable_cpu_diff();
    for (int i = 0; i < count; ++i) {
      const int c = channel_shared_ ? 0 : (i / dim) % channels;
      slope_diff[c] += dy[i] * x[i] * (x[i] <= 0);
    }
  }
  if (propagate_down[0]) {
    const Dtype* slope = this->blobs_[0]->cpu_data();
    Dtype* dx = bottom[0]->mutable_cpu_diff();
    for (int i = 0; i < count; ++i) {
      const int c = channel_shared_ ? 0 : (i / dim) % channels;
      dx[i] = dy[i] * ((x[i] > 0) + slope[c] * (x[i] <= 0));
    }
  }
}

INSTANTIATE_CLASS(PReLULayer);
REGISTER_LAYER_CLASS(PReLU);

}  // namespace caffe
