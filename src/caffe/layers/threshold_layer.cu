// Threshold on the GPU: the bodies of threshold_compute.hpp with GpuLaunch.
#include "threshold_compute.hpp"
#include "caffe/util/gpu_launch.cuh"

namespace caffe {

DEFINE_GPU_BY_LAUNCH_POLICY(ThresholdLayer);

}  // namespace caffe
