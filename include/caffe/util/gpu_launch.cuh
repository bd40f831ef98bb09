// gpu_launch.cuh: the CUDA launch of a kernel body written once
// (util/elementwise.hpp).  Included only by .cu files.
//
// Contract:
//  * ForEachGpu(n, body) calls body(i) for every i in [0, n) on the GPU,
//    with a grid-stride loop, on the default stream; the body is the same
//    functor ForEach runs on the CPU, so CPU tests exercise GPU code.  A
//    body with element ops (elementwise.hpp) runs as RunElementsAhead.
//  * Indices are 64-bit (long): a blob past 2^31 elements is indexed
//    correctly.  The grid is capped so huge n loops in each thread instead
//    of overflowing gridDim.
//  * ForEachChannelGpu and ForEachPlaneGpu run channel and plane bodies
//    (GpuLaunch's Channels and Planes) in the block shapes whose contract
//    elementwise.hpp states: a block per channel, a warp per plane.
//  * A launch failure throws caffe::Error right after the launch.
#ifndef CAFFE_UTIL_GPU_LAUNCH_CUH_
#define CAFFE_UTIL_GPU_LAUNCH_CUH_

#include <algorithm>

#include "caffe/util/cuda.hpp"
#include "caffe/util/elementwise.hpp"

namespace caffe {

const int kGpuThreads = 256;
const long kGpuMaxBlocks = 65536;

template <typename Body>
__global__ void ForEachKernel(long n, Body body) {
  const long stride = static_cast<long>(blockDim.x) * gridDim.x;
  const long first = static_cast<long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if constexpr (HasElementOps<Body>::value) {
    RunElementsAhead(body, first, n, stride);  // loads ahead of stores
  } else {
    for (long i = first; i < n; i += stride) body(i);
  }
}

template <typename Body>
void ForEachGpu(long n, const Body& body) {
  if (n <= 0) return;
  const long blocks =
      std::min(kGpuMaxBlocks, (n + kGpuThreads - 1) / kGpuThreads);
  ForEachKernel<Body><<<static_cast<unsigned>(blocks), kGpuThreads>>>(n, body);
  CUDA_POST_LAUNCH_CHECK("ForEachGpu");
}

// Channel and plane launches (the block shapes elementwise.hpp's
// contract names): every thread of a channel block calls body(c) for the
// block's channels; a plane block's warp z calls body(p) for its planes.
template <typename Body>
__global__ void ForEachChannelKernel(long n, Body body) {
  for (long c = blockIdx.x; c < n; c += gridDim.x) body(c);
}
template <typename Body>
__global__ void ForEachPlaneKernel(long n, Body body) {
  const long stride = static_cast<long>(gridDim.x) * kPlaneWarps;
  for (long p = static_cast<long>(blockIdx.x) * kPlaneWarps + threadIdx.z;
       p < n; p += stride)
    body(p);
}

template <typename Body>
void ForEachChannelGpu(long n, const Body& body) {
  if (n <= 0) return;
  const long blocks = std::min(kGpuMaxBlocks, n);
  ForEachChannelKernel<Body><<<static_cast<unsigned>(blocks),
                               dim3(32, kChannelWarps, 1)>>>(n, body);
  CUDA_POST_LAUNCH_CHECK("ForEachChannelGpu");
}
template <typename Body>
void ForEachPlaneGpu(long n, const Body& body) {
  if (n <= 0) return;
  const long blocks =
      std::min(kGpuMaxBlocks, (n + kPlaneWarps - 1) / kPlaneWarps);
  ForEachPlaneKernel<Body><<<static_cast<unsigned>(blocks),
                             dim3(32, 1, kPlaneWarps)>>>(n, body);
  CUDA_POST_LAUNCH_CHECK("ForEachPlaneGpu");
}

// The GPU launch policy (see CpuLaunch in elementwise.hpp); the grain is a
// CPU notion and ignored here.
struct GpuLaunch {
  static constexpr bool gpu = true;
  template <typename Body>
  void operator()(long n, long grain, const Body& body) const {
    ForEachGpu(n, body);
  }
  template <typename Body>
  void Channels(long n, long grain, const Body& body) const {
    ForEachChannelGpu(n, body);
  }
  template <typename Body>
  void Planes(long n, long grain, const Body& body) const {
    ForEachPlaneGpu(n, body);
  }
};

// The GPU half of DEFINE_CPU_BY_LAUNCH_POLICY (layer.hpp): the layer's
// Forward_gpu/Backward_gpu run its launch-policy bodies with GpuLaunch.
#define DEFINE_GPU_BY_LAUNCH_POLICY(classname)                           \
  template <typename Dtype>                                              \
  void classname<Dtype>::Forward_gpu(const vector<Blob<Dtype>*>& bottom, \
                                     const vector<Blob<Dtype>*>& top) {  \
    this->ForwardWith(GpuLaunch(), bottom, top);                         \
  }                                                                      \
  template <typename Dtype>                                              \
  void classname<Dtype>::Backward_gpu(                                   \
      const vector<Blob<Dtype>*>& top, const vector<bool>& propagate_down, \
      const vector<Blob<Dtype>*>& bottom) {                              \
    this->BackwardWith(GpuLaunch(), top, propagate_down, bottom);        \
  }                                                                      \
  INSTANTIATE_LAYER_GPU_FUNCS(classname)

}  // namespace caffe

#endif  // CAFFE_UTIL_GPU_LAUNCH_CUH_
