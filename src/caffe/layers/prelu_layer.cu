// PReLU on the GPU: the bodies of prelu_compute.hpp with GpuLaunch.
#include "prelu_compute.hpp"
#include "caffe/util/gpu_launch.cuh"

namespace caffe {

DEFINE_GPU_BY_LAUNCH_POLICY(PReLULayer);

}  // namespace caffe
