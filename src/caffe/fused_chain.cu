// FusedChain on the GPU: fused_chain_forward.hpp and
// fused_chain_backward.hpp with GpuLaunch.
#include "caffe/util/gpu_launch.cuh"
#include "fused_chain_backward.hpp"
#include "fused_chain_forward.hpp"

namespace caffe {

template <typename Dtype>
void FusedChain<Dtype>::ForwardGpu() {
  ForwardWith(GpuLaunch());
}

template <typename Dtype>
void FusedChain<Dtype>::BackwardGpu() {
  BackwardByPlane(GpuLaunch());
}

template void FusedChain<float>::ForwardGpu();
template void FusedChain<double>::ForwardGpu();
template void FusedChain<float>::BackwardGpu();
template void FusedChain<double>::BackwardGpu();

}  // namespace caffe
