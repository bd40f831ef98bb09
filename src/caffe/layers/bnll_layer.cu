// BNLL on the GPU: the bodies of bnll_compute.hpp with GpuLaunch.
#include "bnll_compute.hpp"
#include "caffe/util/gpu_launch.cuh"

namespace caffe {

DEFINE_GPU_BY_LAUNCH_POLICY(BNLLLayer);

}  // namespace caffe
