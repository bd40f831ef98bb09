#include "caffe/layers/softmax_loss_layer.hpp"

#include <vector>

#include "caffe/util/elementwise.hpp"
#include "softmax_loss_compute.hpp"

namespace caffe {

DEFINE_CPU_BY_LAUNCH_POLICY(SoftmaxWithLossLayer);

INSTANTIATE_CLASS(SoftmaxWithLossLayer);
REGISTER_LAYER_CLASS(SoftmaxWithLoss);

}  // namespace caffe
