// FusedChain's forward on the GPU: fused_chain_forward.hpp with GpuLaunch.
#include "caffe/util/gpu_launch.cuh"
#include "fused_chain_forward.hpp"

namespace caffe {

template <typename Dtype>
void FusedChain<Dtype>::ForwardGpu() {
  ForwardWith(GpuLaunch());
}

template void FusedChain<float>::ForwardGpu();
template void FusedChain<double>::ForwardGpu();

}  // namespace caffe
