#include <cmath>
#include <vector>

#include "caffe/layers/log_layer.hpp"
#include "caffe/util/elementwise.hpp"
#include "log_compute.hpp"

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

DEFINE_CPU_BY_LAUNCH_POLICY(LogLayer);

INSTANTIATE_CLASS(LogLayer);
REGISTER_LAYER_CLASS(Log);

}  // namespace caffe
