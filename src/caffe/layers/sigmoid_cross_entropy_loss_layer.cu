// SigmoidCrossEntropyLoss on the GPU: the bodies of
// sigmoid_cross_entropy_loss_compute.hpp with GpuLaunch.
#include "sigmoid_cross_entropy_loss_compute.hpp"
#include "caffe/util/gpu_launch.cuh"

namespace caffe {

DEFINE_GPU_BY_LAUNCH_POLICY(SigmoidCrossEntropyLossLayer);

}  // namespace caffe
