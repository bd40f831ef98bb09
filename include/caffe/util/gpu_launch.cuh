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
//    elementwise.hpp states: a block (or a cluster of blocks) per
//    channel, a warp per plane.
//  * How many blocks share a channel is a function of the device's SM
//    count, the shape and ChannelSplit() (gpu_math_options.hpp) only
//    (and one block where the device or the kernel's code has no
//    clusters), so two runs of one net (with and without mem_param, say)
//    sum alike.
//  * A launch failure throws caffe::Error right after the launch.
#ifndef CAFFE_UTIL_GPU_LAUNCH_CUH_
#define CAFFE_UTIL_GPU_LAUNCH_CUH_

#include <algorithm>
#include <type_traits>

#include "caffe/util/channel_sums.hpp"
#include "caffe/util/cuda.hpp"
#include "caffe/util/elementwise.hpp"
#include "caffe/util/gpu_math_options.hpp"

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
__device__ void ChannelLoop(long n, const Body& body) {
  const unsigned blocks = ChannelBlocks();  // a cluster's blocks share c
  for (long c = blockIdx.x / blocks; c < n; c += gridDim.x / blocks) body(c);
}
template <typename Body>
__global__ void ForEachChannelKernelFree(long n, Body body) {
  ChannelLoop(n, body);
}
// Bounded so that kChannelBlocksPerSm blocks fit an SM (128 registers a
// thread), as ChannelBlocksByShape counts them, for a body that says
// `static constexpr bool kBoundRegisters = true`: left free, ptxas gave
// the fused chain's four sums 152 registers, one block per SM.  A bound
// changes registers, never an operation; the other bodies stay free, as
// they ran on the H200.
template <typename Body>
__global__ void __launch_bounds__(kChannelThreads, kChannelBlocksPerSm)
    ForEachChannelKernelBounded(long n, Body body) {
  ChannelLoop(n, body);
}
template <typename Body, typename = void>
struct BoundsRegisters : std::false_type {};
template <typename Body>
struct BoundsRegisters<Body, std::void_t<decltype(Body::kBoundRegisters)> >
    : std::integral_constant<bool, Body::kBoundRegisters> {};
// A composite (a layer's channel stages, MakeThen of Maybes) is bounded
// when any of its parts asks.
template <typename First, typename Second>
struct BoundsRegisters<Then<First, Second>, void>
    : std::integral_constant<bool, BoundsRegisters<First>::value ||
                                       BoundsRegisters<Second>::value> {};
template <typename Part>
struct BoundsRegisters<Maybe<Part>, void> : BoundsRegisters<Part> {};
// The channel kernel of a body.
template <typename Body>
constexpr auto ForEachChannelKernel() {
  if constexpr (BoundsRegisters<Body>::value) {
    return ForEachChannelKernelBounded<Body>;
  } else {
    return ForEachChannelKernelFree<Body>;
  }
}
template <typename Body>
__global__ void ForEachPlaneKernel(long n, Body body) {
  const long stride = static_cast<long>(gridDim.x) * kPlaneWarps;
  for (long p = static_cast<long>(blockIdx.x) * kPlaneWarps + threadIdx.z;
       p < n; p += stride)
    body(p);
}

// What a channel launch needs to know of the current device and of its
// kernel, asked once per thread, device and body type (the queries cost
// microseconds, and ResNet-50 makes over a hundred channel launches a
// step).
struct ChannelLaunchFacts {
  int device = -1;
  int sms = 1;            // the device's multiprocessors
  bool clusters = false;  // the device and the kernel's code have clusters
  // Whether a cluster of k blocks can be resident: 0 not asked yet, 1 yes,
  // 2 no.
  int cluster_fits[kMaxChannelBlocks + 1] = {};
};

template <typename Body>
ChannelLaunchFacts& ChannelFacts() {
  thread_local ChannelLaunchFacts facts;
  const int device = CurrentDevice("a channel launch");
  if (facts.device == device) return facts;
  facts = ChannelLaunchFacts();
  facts.device = device;
  CUDA_CHECK(cudaDeviceGetAttribute(&facts.sms,
                                    cudaDevAttrMultiProcessorCount, device));
  cudaFuncAttributes attributes;
  CUDA_CHECK(
      cudaFuncGetAttributes(&attributes, ForEachChannelKernel<Body>()));
  // Code compiled for an earlier architecture (JIT from its PTX) has no
  // cluster sums: it must get one block per channel.
  facts.clusters = GpuHasClusters() && attributes.ptxVersion >= 90 &&
                   attributes.binaryVersion >= 90;
  return facts;
}

// The launch of `blocks` blocks of a channel kernel, in clusters of k.
inline cudaLaunchConfig_t ChannelClusterConfig(
    long blocks, int k, cudaLaunchAttribute* attribute) {
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(static_cast<unsigned>(blocks));
  config.blockDim = dim3(32, kChannelWarps, 1);
  attribute->id = cudaLaunchAttributeClusterDimension;
  attribute->val.clusterDim.x = k;
  attribute->val.clusterDim.y = 1;
  attribute->val.clusterDim.z = 1;
  config.attrs = attribute;
  config.numAttrs = 1;
  return config;
}

// Blocks per channel: ChannelSplit() when set, else ChannelBlocksByShape;
// one where the device or the kernel has no clusters, or a cluster of
// that size cannot be resident.
template <typename Body>
int ChannelBlocksFor(long channels, long terms) {
  ChannelLaunchFacts& facts = ChannelFacts<Body>();
  if (!facts.clusters) return 1;
  long k = ChannelSplit();
  if (k == 0) k = ChannelBlocksByShape(facts.sms, channels, terms);
  if (k == 1) return 1;
  int& fits = facts.cluster_fits[k];
  if (fits == 0) {
    cudaLaunchAttribute attribute;
    const cudaLaunchConfig_t config =
        ChannelClusterConfig(k, static_cast<int>(k), &attribute);
    int clusters = 0;
    const cudaError_t error = cudaOccupancyMaxActiveClusters(
        &clusters, ForEachChannelKernel<Body>(), &config);
    if (error != cudaSuccess) cudaGetLastError();  // clear it: no clusters
    fits = error == cudaSuccess && clusters > 0 ? 1 : 2;
  }
  return fits == 1 ? static_cast<int>(k) : 1;
}

// `terms`: how many terms each channel sums (outer * inner).
template <typename Body>
void ForEachChannelGpu(long n, long terms, const Body& body) {
  if (n <= 0) return;
  const int k = ChannelBlocksFor<Body>(n, terms);
  const long blocks = std::min(kGpuMaxBlocks / k, n) * k;
  constexpr auto kernel = ForEachChannelKernel<Body>();
  if (k == 1) {
    kernel<<<static_cast<unsigned>(blocks), dim3(32, kChannelWarps, 1)>>>(
        n, body);
  } else {
    cudaLaunchAttribute attribute;
    const cudaLaunchConfig_t config =
        ChannelClusterConfig(blocks, k, &attribute);
    CUDA_CHECK(cudaLaunchKernelEx(&config, kernel, n, body));
  }
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
  void Channels(long n, long terms, const Body& body) const {
    ForEachChannelGpu(n, terms, body);
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
