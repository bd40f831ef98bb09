// Embed on the GPU: the bodies of embed_compute.hpp with GpuLaunch.
#include "embed_compute.hpp"
#include "caffe/util/gpu_launch.cuh"

namespace caffe {

DEFINE_GPU_BY_LAUNCH_POLICY(EmbedLayer);

}  // namespace caffe
