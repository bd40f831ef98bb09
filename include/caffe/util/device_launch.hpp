// device_launch.hpp: a kernel body written once (util/elementwise.hpp),
// launched on either device from host code that nvcc does not compile.
//
// Contract:
//  * ForEachOn(gpu, n, grain, body) is ForEach(n, grain, body) on the CPU
//    and ForEachGpu(n, body) (util/gpu_launch.cuh) on the GPU.
//  * A .cpp only sees ForEachGpu declared; the layer's .cu instantiates it
//    for each body type the .cpp launches (INSTANTIATE_GPU_BODY), so every
//    kernel is compiled by nvcc and a missing one fails at link time.
//  * In a CPU-only build gpu == true throws caffe::Error (NO_GPU).
#ifndef CAFFE_UTIL_DEVICE_LAUNCH_HPP_
#define CAFFE_UTIL_DEVICE_LAUNCH_HPP_

#include "caffe/common.hpp"
#include "caffe/util/elementwise.hpp"

namespace caffe {

#ifdef USE_CUDA
template <typename Body>
void ForEachGpu(long n, const Body& body);
#endif

template <typename Body>
void ForEachOn(bool gpu, long n, long grain, const Body& body) {
  if (gpu) {
#ifdef USE_CUDA
    ForEachGpu(n, body);
    return;
#else
    NO_GPU;
#endif
  }
  ForEach(n, grain, body);
}

// In a .cu: compiles ForEachGpu for `body_type` (a complete type).
#define INSTANTIATE_GPU_BODY(body_type) \
  template void ForEachGpu<body_type>(long, const body_type&)

}  // namespace caffe

#endif  // CAFFE_UTIL_DEVICE_LAUNCH_HPP_
