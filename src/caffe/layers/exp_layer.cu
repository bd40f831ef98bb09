// Exp on the GPU: the bodies of exp_compute.hpp with GpuLaunch.
#include "exp_compute.hpp"
#include "caffe/util/gpu_launch.cuh"

namespace caffe {

DEFINE_GPU_BY_LAUNCH_POLICY(ExpLayer);

}  // namespace caffe
