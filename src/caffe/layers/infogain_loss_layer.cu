// InfogainLoss on the GPU: the bodies of infogain_loss_compute.hpp with
// GpuLaunch (the softmax runs on the GPU inside ForwardSoftmaxAndLabels).
#include "infogain_loss_compute.hpp"
#include "caffe/util/gpu_launch.cuh"

namespace caffe {

DEFINE_GPU_BY_LAUNCH_POLICY(InfogainLossLayer);

}  // namespace caffe
