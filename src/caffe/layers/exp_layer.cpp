#include <cmath>
#include <vector>

#include "caffe/layers/exp_layer.hpp"

namespace caffe {

template <typename Dtype>
void ExpLayer<Dtype>::LayerSetUp(const vector<Blob<Dtype>*>& bottom,
                                 const vector<Blob<Dtype>*>& top) {
  const ExpParameter& param = this->layer_param_.exp_param();
  const Dtype base = param.base();
  if (base != Dtype(-1)) {
    CAFFE_CHECK_GT(base, 0) << "Exp layer " << this->layer_param_.name()
                            << ": base must be strictly positive or -1 (e).";
  }
  const Dtype log_base = (base == Dtype(-1)) ? Dtype(1) : std::log(base);
  CAFFE_CHECK(!std::isnan(log_base) && !std::isinf(log_base))
      << "Exp layer " << this->layer_param_.name() << ": log(base) = log("
      << base << ") = " << log_base;
  inner_scale_ = log_base * param.scale();
  const Dtype shift = param.shift();
  outer_scale_ = (shift == Dtype(0))
                     ? Dtype(1)
                     : (base != Dtype(-1) ? std::pow(base, shift)
                                          : std::exp(shift));
}

template <typename Dtype>
void ExpLayer<Dtype>::Forward_cpu(const vector<Blob<Dtype>*>& bottom,
                                  const vector<Blob<Dtype>*>& top) {
  const Dtype* x = bottom[0]->cpu_data();
  Dtype* y = top[0]->mutable_cpu_data();
  const int count = bottom[0]->count();
  for (int i = 0; i < count; ++i) {
    const Dtype inner = (inner_scale_ == Dtype(1)) ? x[i] : inner_scale_ * x[i];
    const Dtype e = std::exp(inner);
    y[i] = (outer_scale_ == Dtype(1)) ? e : outer_scale_ * e;
  }
}

template <typename Dtype>
void ExpLayer<Dtype>::Backward_cpu(const vector<Blob<Dtype>*>& top,
                                   const vector<bool>& propagate_down,
                                   const vector<Blob<Dtype>*>& bottom) {
  if (!propagate_down[0]) return;
  const Dtype* y = top[0]->cpu_data();
  const Dtype* dy = top[0]->cpu_diff();
  Dtype* dx = bottom[0]->mutable_cpu_diff();
  const int count = bottom[0]->count();
  for (int i = 0; i < count; ++i) {
    const Dtype d = dy[i] * y[i];
    dx[i] = (inner_scale_ == Dtype(1)) ? d : inner_scale_ * d;
  }
}

INSTANTIATE_CLASS(ExpLayer);
REGISTER_LAYER_CLASS(Exp);

}  // namespace caffe
