// Clip on the GPU: the bodies of clip_compute.hpp with GpuLaunch.
#include "clip_compute.hpp"
#include "caffe/util/gpu_launch.cuh"

namespace caffe {

DEFINE_GPU_BY_LAUNCH_POLICY(ClipLayer);

}  // namespace caffe
