#include <cmath>
#include <vector>

#include "caffe/layers/exp_layer.hpp"
#include "caffe/util/elementwise.hpp"
#include "exp_compute.hpp"

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

DEFINE_CPU_BY_LAUNCH_POLICY(ExpLayer);

INSTANTIATE_CLASS(ExpLayer);
REGISTER_LAYER_CLASS(Exp);

}  // namespace caffe
