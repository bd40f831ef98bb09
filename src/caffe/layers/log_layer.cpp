#include <cmath>
#include <vector>

#include "caffe/layers/log_layer.hpp"

namespace caffe {

template <typename Dtype>
void LogLayer<Dtype>::LayerSetUp(const vector<Blob<Dtype>*>& bottom,
                                 const vector<Blob<Dtype>*>& top) {
  const LogParameter& param = this->layer_param_.log_param();
  const Dtype base = param.base();
  if (base != Dtype(-1)) {
    CAFFE_CHECK_GT(base, 0) << "Log layer " << this->layer_param_.name()
                            << ": base must be strictly positive or -1 (e).";
  }
  const Dtype log_base = (base == Dtype(-1)) ? Dtype(1) : std::log(base);
  CAFFE_CHECK(!std::isnan(log_base) && !std::isinf(log_base))
      << "Log layer " << this->layer_param_.name() << ": log(base) = log("
      << base << ") = " << log_base;
  base_scale_ = Dtype(1) / log_base;
  CAFFE_CHECK(!std::isnan(base_scale_) && !std::isinf(base_scale_))
      << "Log layer " << this->layer_param_.name() << ": 1 / log(base) = 1 / "
      << log_base << " = " << base_scale_ << " (base " << base << ")";
  input_scale_ = param.scale();
  input_shift_ = param.shift();
  backward_num_scale_ = input_scale_ / log_base;
}

template <typename Dtype>
void LogLayer<Dtype>::Forward_cpu(const vector<Blob<Dtype>*>& bottom,
                                  const vector<Blob<Dtype>*>& top) {
  const Dtype* x = bottom[0]->cpu_data();
  Dtype* y = top[0]->mutable_cpu_data();
  const int count = bottom[0]->count();
  for (int i = 0; i < count; ++i) {
    Dtype v = x[i];
    if (input_scale_ != Dtype(1)) v *= input_scale_;
    if (input_shift_ != Dtype(0)) v += input_shift_;
    v = std::log(v);
    y[i] = (base_scale_ != Dtype(1)) ? base_scale_ * v : v;
  }
}

template <typename Dtype>
void LogLayer<Dtype>::Backward_cpu(const vector<Blob<Dtype>*>& top,
                                   const vector<bool>& propagate_down,
                                   const vector<Blob<Dtype>*>& bottom) {
  if (!propagate_down[0]) return;
  const Dtype* x = bottom[0]->cpu_data();
  const Dtype* dy = top[0]->cpu_diff();
  Dtype* dx = bottom[0]->mutable_cpu_diff();
  const int count = bottom[0]->count();
  for (int i = 0; i < count; ++i) {
    Dtype v = x[i];
    if (input_scale_ != Dtype(1)) v *= input_scale_;
    if (input_shift_ != Dtype(0)) v += input_shift_;
    Dtype d = Dtype(1) / v;
    if (backward_num_scale_ != Dtype(1)) d *= backward_num_scale_;
    dx[i] = dy[i] * d;
  }
}

INSTANTIATE_CLASS(LogLayer);
REGISTER_LAYER_CLASS(Log);

}  // namespace caffe
