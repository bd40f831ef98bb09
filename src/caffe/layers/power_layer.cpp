#include <cmath>
#include <vector>

#include "caffe/layers/power_layer.hpp"
#include "caffe/util/elementwise.hpp"
#include "power_compute.hpp"

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

DEFINE_CPU_BY_LAUNCH_POLICY(PowerLayer);

INSTANTIATE_CLASS(PowerLayer);
REGISTER_LAYER_CLASS(Power);

}  // namespace caffe
