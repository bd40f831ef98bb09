#include <cmath>
#include <vector>

#include "caffe/layers/power_layer.hpp"

namespace caffe {

template <typename Dtype>
void PowerLayer<Dtype>::LayerSetUp(const vector<Blob<Dtype>*>& bottom,
                                   const vector<Blob<Dtype>*>& top) {
  const PowerParameter& param = this->layer_param_.power_param();
  power_ = param.power();
  scale_ = param.scale();
  shift_ = param.shift();
  diff_scale_ = power_ * scale_;
}

template <typename Dtype>
int PowerLayer<Dtype>::DeclaredBackwardReads() const {
  // Read from the parameter so the answer is right before SetUp too, in the
  // same precision as the members.
  const PowerParameter& param = this->layer_param_.power_param();
  const Dtype power = param.power();
  const Dtype diff_scale = power * Dtype(param.scale());
  if (diff_scale == Dtype(0) || power == Dtype(1)) return kReadsNothing;
  if (power == Dtype(2)) return kReadsBottomData;
  return kReadsBottomData | kReadsTopData;
}

template <typename Dtype>
void PowerLayer<Dtype>::Forward_cpu(const vector<Blob<Dtype>*>& bottom,
                                    const vector<Blob<Dtype>*>& top) {
  Dtype* y = top[0]->mutable_cpu_data();
  const int count = bottom[0]->count();
  if (diff_scale_ == Dtype(0)) {
    // The output does not depend on x; 0^0 is taken as 1.
    const Dtype value =
        (power_ == Dtype(0)) ? Dtype(1) : Dtype(std::pow(shift_, power_));
    for (int i = 0; i < count; ++i) y[i] = value;
    return;
  }
  const Dtype* x = bottom[0]->cpu_data();
  for (int i = 0; i < count; ++i) {
    Dtype v = x[i];
    if (scale_ != Dtype(1)) v *= scale_;
    if (shift_ != Dtype(0)) v += shift_;
    if (power_ != Dtype(1)) v = std::pow(v, power_);
    y[i] = v;
  }
}

template <typename Dtype>
void PowerLayer<Dtype>::Backward_cpu(const vector<Blob<Dtype>*>& top,
                                     const vector<bool>& propagate_down,
                                     const vector<Blob<Dtype>*>& bottom) {
  if (!propagate_down[0]) return;
  const Dtype* dy = top[0]->cpu_diff();
  Dtype* dx = bottom[0]->mutable_cpu_diff();
  const int count = bottom[0]->count();
  if (diff_scale_ == Dtype(0) || power_ == Dtype(1)) {
    for (int i = 0; i < count; ++i) dx[i] = dy[i] * diff_scale_;
    return;
  }
  const Dtype* x = bottom[0]->cpu_data();
  if (power_ == Dtype(2)) {
    // 2 * scale * (shift + scale * x), without touching the top data.
    const Dtype a = diff_scale_ * scale_;
    const Dtype b = diff_scale_ * shift_;
    for (int i = 0; i < count; ++i) {
      Dtype d = a * x[i];
      if (shift_ != Dtype(0)) d += b;
      dx[i] = dy[i] * d;
    }
    return;
  }
  const Dtype* y = top[0]->cpu_data();
  if (shift_ == Dtype(0)) {
    // (scale * x)^p: dy/dx = power * y / x.
    for (int i = 0; i < count; ++i) dx[i] = dy[i] * (power_ * (y[i] / x[i]));
    return;
  }
  for (int i = 0; i < count; ++i) {
    Dtype v = x[i];
    if (scale_ != Dtype(1)) v *= scale_;
    v += shift_;
    Dtype d = y[i] / v;
    if (diff_scale_ != Dtype(1)) d *= diff_scale_;
    dx[i] = dy[i] * d;
  }
}

INSTANTIATE_CLASS(PowerLayer);
REGISTER_LAYER_CLASS(Power);

}  // namespace caffe
