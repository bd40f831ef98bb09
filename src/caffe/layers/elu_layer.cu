// ELU on the GPU: the bodies of elu_compute.hpp with GpuLaunch.
#include "elu_compute.hpp"
#include "caffe/util/gpu_launch.cuh"

namespace caffe {

DEFINE_GPU_BY_LAUNCH_POLICY(ELULayer);

}  // namespace caffe
