// SoftmaxWithLoss on the GPU: the bodies of softmax_loss_compute.hpp with
// GpuLaunch (the softmax runs on the GPU inside ForwardSoftmaxAndLabels).
#include "softmax_loss_compute.hpp"
#include "caffe/util/gpu_launch.cuh"

namespace caffe {

DEFINE_GPU_BY_LAUNCH_POLICY(SoftmaxWithLossLayer);

}  // namespace caffe
