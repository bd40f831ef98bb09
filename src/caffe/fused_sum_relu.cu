// FusedSumReLU on the GPU: fused_sum_relu_compute.hpp with GpuLaunch.
#include "caffe/util/gpu_launch.cuh"
#include "fused_sum_relu_compute.hpp"

namespace caffe {

template <typename Dtype>
void FusedSumReLU<Dtype>::ForwardGpu() {
  ForwardWith(GpuLaunch());
}

template <typename Dtype>
void FusedSumReLU<Dtype>::BackwardGpu() {
  BackwardWith(GpuLaunch());
}

template void FusedSumReLU<float>::ForwardGpu();
template void FusedSumReLU<double>::ForwardGpu();
template void FusedSumReLU<float>::BackwardGpu();
template void FusedSumReLU<double>::BackwardGpu();

}  // namespace caffe
