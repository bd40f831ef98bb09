// MVN on the GPU: the bodies of mvn_compute.hpp with GpuLaunch.
#include "mvn_compute.hpp"
#include "caffe/util/gpu_launch.cuh"

namespace caffe {

DEFINE_GPU_BY_LAUNCH_POLICY(MVNLayer);

}  // namespace caffe
