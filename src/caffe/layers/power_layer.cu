// Power on the GPU: the bodies of power_compute.hpp with GpuLaunch.
#include "power_compute.hpp"
#include "caffe/util/gpu_launch.cuh"

namespace caffe {

DEFINE_GPU_BY_LAUNCH_POLICY(PowerLayer);

}  // namespace caffe
