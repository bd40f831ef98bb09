// AbsVal on the GPU: the bodies of absval_compute.hpp with GpuLaunch.
#include "absval_compute.hpp"
#include "caffe/util/gpu_launch.cuh"

namespace caffe {

DEFINE_GPU_BY_LAUNCH_POLICY(AbsValLayer);

}  // namespace caffe
