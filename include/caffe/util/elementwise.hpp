// elementwise.hpp: kernel bodies written once, run by the shared parallel
// CPU loop (and, in a GPU build, by a CUDA launch of the same body).
//
// Contract:
//  * A body is a small copyable functor with `void operator()(long i)
//    const` computing element (or plane, or channel) i from its captured
//    pointers.  It must not allocate or throw, and must compute i without
//    reading what another index writes: then results do not depend on how
//    [0, n) is split, so they are bit-identical for any thread count.
//  * CAFFE_KERNEL marks the call operator: empty on the CPU; under nvcc it
//    becomes __host__ __device__ so the GPU launch calls the same body.
//  * ForEach(n, grain, body) runs body(i) for every i in [0, n) on
//    ParallelFor ranges of at least `grain` indices (util/parallel.hpp);
//    the inner loop is a plain loop the compiler can vectorize.
//  * GrainFor(work_per_index): a grain that gives each range about
//    kElementGrain elements of work, so small tensors run inline.
//  * CpuLaunch (here) and GpuLaunch (gpu_launch.cuh) are launch policies:
//    a layer whose compute logic is a template over the policy is written
//    once, in a header its .cpp instantiates with CpuLaunch and its .cu
//    with GpuLaunch; `Launch::gpu` picks host or device pointers.
#ifndef CAFFE_UTIL_ELEMENTWISE_HPP_
#define CAFFE_UTIL_ELEMENTWISE_HPP_

#include <algorithm>

#include "caffe/util/parallel.hpp"

#ifdef __CUDACC__
#define CAFFE_KERNEL __host__ __device__
#else
#define CAFFE_KERNEL
#endif

namespace caffe {

// Elements of work per parallel range below which splitting costs more
// than it saves.
const long kElementGrain = 32768;

inline long GrainFor(long work_per_index) {
  return std::max(1L, kElementGrain / std::max(1L, work_per_index));
}

template <typename Body>
void ForEach(long n, long grain, const Body& body) {
  ParallelFor(n, grain, [&body](long begin, long end) {
    for (long i = begin; i < end; ++i) body(i);
  });
}

struct CpuLaunch {
  static constexpr bool gpu = false;
  template <typename Body>
  void operator()(long n, long grain, const Body& body) const {
    ForEach(n, grain, body);
  }
};

// Bodies shared by the per-channel layers (Scale, Bias), over a tensor
// laid out as (outer, channels, inner).

// Plane p = (n, d): y = op(x, c[d]) for every inner element.
template <typename Dtype, typename Op>
struct ChannelPlanes {
  const Dtype* x;
  const Dtype* c;
  Dtype* y;
  int channels, inner;
  Op op;
  CAFFE_KERNEL void operator()(long p) const {
    const long off = p * inner;
    const Dtype value = c[p % channels];
    for (int i = 0; i < inner; ++i) y[off + i] = op(x[off + i], value);
  }
};

// Channel d: acc[d] += the sum over (n, i), in that order, of term(j) for
// every element j of the channel.
template <typename Dtype, typename Term>
struct ChannelSum {
  Dtype* acc;
  int outer, channels, inner;
  Term term;
  CAFFE_KERNEL void operator()(long d) const {
    Dtype sum = 0;
    for (int n = 0; n < outer; ++n) {
      const long off = (static_cast<long>(n) * channels + d) * inner;
      for (int i = 0; i < inner; ++i) sum += term(off + i);
    }
    acc[d] += sum;
  }
};

template <typename Dtype>
struct AddOp {
  CAFFE_KERNEL Dtype operator()(Dtype a, Dtype b) const { return a + b; }
};
template <typename Dtype>
struct MulOp {
  CAFFE_KERNEL Dtype operator()(Dtype a, Dtype b) const { return a * b; }
};
// Terms for ChannelSum: a[j], and a[j] * b[j].
template <typename Dtype>
struct ValueTerm {
  const Dtype* a;
  CAFFE_KERNEL Dtype operator()(long j) const { return a[j]; }
};
template <typename Dtype>
struct ProductTerm {
  const Dtype* a;
  const Dtype* b;
  CAFFE_KERNEL Dtype operator()(long j) const { return a[j] * b[j]; }
};

}  // namespace caffe

#endif  // CAFFE_UTIL_ELEMENTWISE_HPP_
