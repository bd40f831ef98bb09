// HingeLoss on the GPU: the bodies of hinge_loss_compute.hpp with
// GpuLaunch.
#include "hinge_loss_compute.hpp"
#include "caffe/util/gpu_launch.cuh"

namespace caffe {

DEFINE_GPU_BY_LAUNCH_POLICY(HingeLossLayer);

}  // namespace caffe
