// Log on the GPU: the bodies of log_compute.hpp with GpuLaunch.
#include "log_compute.hpp"
#include "caffe/util/gpu_launch.cuh"

namespace caffe {

DEFINE_GPU_BY_LAUNCH_POLICY(LogLayer);

}  // namespace caffe
