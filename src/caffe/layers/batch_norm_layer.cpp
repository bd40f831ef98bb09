#include <cmath>
#include <vector>

#include "batch_norm_compute.hpp"

namespace caffe {

template <typename Dtype>
void BatchNormLayer<Dtype>::LayerSetUp(const vector<Blob<Dtype>*>& bottom,
                                       const vector<Blob<Dtype>*>& top) {
  const BatchNormParameter& param = this->layer_param_.batch_norm_param();
  const string& name = this->layer_param_.name();
  moving_average_fraction_ = param.moving_average_fraction();
  use_global_stats_ = (this->phase_ == TEST);
  if (param.has_use_global_stats())
    use_global_stats_ = param.use_global_stats();
  CAFFE_CHECK_GE(bottom[0]->num_axes(), 1)
      << "BatchNorm layer " << name << " needs a bottom with at least 1 axis, "
      << "got " << bottom[0]->shape_string();
  channels_ = (bottom[0]->num_axes() == 1) ? 1 : bottom[0]->shape(1);
  eps_ = param.eps();
  CAFFE_CHECK_GE(eps_, 0) << "BatchNorm layer " << name
                          << ": eps must not be negative";
  if (this->blobs_.empty()) {
    this->blobs_.resize(3);
    vector<int> shape(1, channels_);
    this->blobs_[0].reset(new Blob<Dtype>(shape));
    this->blobs_[1].reset(new Blob<Dtype>(shape));
    shape[0] = 1;
    this->blobs_[2].reset(new Blob<Dtype>(shape));
    for (int i = 0; i < 3; ++i) {
      caffe_set(this->blobs_[i]->count(), Dtype(0),
                this->blobs_[i]->mutable_cpu_data());
    }
  }
  CAFFE_CHECK_EQ(static_cast<int>(this->blobs_.size()), 3)
      << "BatchNorm layer " << name << " needs 3 blobs (mean, variance, "
      << "normalizer)";
  CAFFE_CHECK(this->blobs_[0]->count() == channels_ &&
              this->blobs_[1]->count() == channels_ &&
              this->blobs_[2]->count() == 1)
      << "BatchNorm layer " << name << ": stored statistics of shapes "
      << this->blobs_[0]->shape_string() << ", "
      << this->blobs_[1]->shape_string() << ", "
      << this->blobs_[2]->shape_string() << " do not fit bottom "
      << bottom[0]->shape_string() << " (" << channels_ << " channels)";
  // The statistics are not learned: keep every solver off them.  Older
  // prototxts declare three param specs with non-zero lr_mult; Caffe's net
  // upgrade zeroes those, and this does the same for a lone layer.
  for (int i = 0; i < 3; ++i) {
    const bool given = this->layer_param_.param_size() > i;
    if (!given) this->layer_param_.add_param();
    ParamSpec* spec = this->layer_param_.mutable_param(i);
    if (given && spec->lr_mult() != 0.f) {
      LOG(WARNING) << "BatchNorm layer " << name << ": forcing lr_mult of "
                   << "statistics blob " << i << " to 0";
    }
    spec->set_lr_mult(0.f);
    spec->set_decay_mult(0.f);
    this->set_param_propagate_down(i, false);
  }
}

template <typename Dtype>
void BatchNormLayer<Dtype>::Reshape(const vector<Blob<Dtype>*>& bottom,
                                    const vector<Blob<Dtype>*>& top) {
  const int channels =
      (bottom[0]->num_axes() == 1) ? 1 : bottom[0]->shape(1);
  CAFFE_CHECK(bottom[0]->num_axes() >= 1 && channels == channels_)
      << "BatchNorm layer " << this->layer_param_.name() << " was set up for "
      << channels_ << " channels; bottom is now " << bottom[0]->shape_string();
  CAFFE_CHECK_GT(bottom[0]->count64(), 0)
      << "BatchNorm layer " << this->layer_param_.name()
      << " got an empty bottom " << bottom[0]->shape_string();
  if (top[0] != bottom[0]) top[0]->ReshapeLike(*bottom[0]);
  vector<int> shape(1, channels_);
  mean_.Reshape(shape);
  std_.Reshape(shape);
  input_ = bottom[0];
  reads_input_ = !use_global_stats_ && top[0] != bottom[0] &&
                 this->bottom_stays_intact();
  if (use_global_stats_ || reads_input_) {
    x_norm_.Reshape(vector<int>(1, 0));
  } else {
    x_norm_.ReshapeLike(*bottom[0]);
  }
  gradient_means_.Reshape(vector<int>(1, 2 * channels_));
}

template <typename Dtype>
void BatchNormLayer<Dtype>::Forward_cpu(const vector<Blob<Dtype>*>& bottom,
                                        const vector<Blob<Dtype>*>& top) {
  ForwardWith(CpuLaunch(), bottom, top);
}

template <typename Dtype>
void BatchNormLayer<Dtype>::Backward_cpu(const vector<Blob<Dtype>*>& top,
                                         const vector<bool>& propagate_down,
                                         const vector<Blob<Dtype>*>& bottom) {
  BackwardWith(CpuLaunch(), top, propagate_down, bottom);
}

INSTANTIATE_CLASS(BatchNormLayer);
REGISTER_LAYER_CLASS(BatchNorm);

}  // namespace caffe
