// MultinomialLogisticLoss on the GPU: the bodies of
// multinomial_logistic_loss_compute.hpp with GpuLaunch.
#include "multinomial_logistic_loss_compute.hpp"
#include "caffe/util/gpu_launch.cuh"

namespace caffe {

DEFINE_GPU_BY_LAUNCH_POLICY(MultinomialLogisticLossLayer);

}  // namespace caffe
