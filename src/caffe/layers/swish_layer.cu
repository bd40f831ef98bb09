// Swish on the GPU: the bodies of swish_compute.hpp with GpuLaunch.
#include "swish_compute.hpp"
#include "caffe/util/gpu_launch.cuh"

namespace caffe {

DEFINE_GPU_BY_LAUNCH_POLICY(SwishLayer);

}  // namespace caffe
