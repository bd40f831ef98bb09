// channel_sums.hpp: sums over a channel of a tensor laid out as (outer,
// channels, inner), for the channel bodies of util/elementwise.hpp
// (BatchNorm's statistics and gradient means, the Scale's and the Bias's
// parameter gradients, a convolution's bias gradient).
//
// Contract:
//  * SumOverChannel(d, ...) and SumTwoOverChannel add every term of
//    channel d in an order fixed by the shape alone on the CPU (LaneSum's
//    lanes, whatever the thread count), and by the shape and the blocks
//    per channel on the GPU (BlockSumsOverChannel): deterministic on
//    each device, different in rounding between them.
//  * Acc may be an aggregate of several sums (a struct with + and +=
//    adding member by member, zero when value-initialized): each member
//    then gets exactly the additions a scalar sum of its terms would, so
//    one sweep can take sums that layers take in launches of their own
//    (the fused BatchNorm chain's backward, fused_chain_backward.hpp).
//  * In a GPU channel block every thread gets the total; a body writes
//    from the lead thread only (ChannelLead(), elementwise.hpp).
//  * ChannelBlocksByShape is the rule by which a GPU channel launch
//    (gpu_launch.cuh) shares a channel among a cluster of blocks; it is
//    host code, tested on the CPU.
#ifndef CAFFE_UTIL_CHANNEL_SUMS_HPP_
#define CAFFE_UTIL_CHANNEL_SUMS_HPP_

#include <algorithm>

#include "caffe/util/elementwise.hpp"

namespace caffe {

// A deterministic sum that vectorizes.  Term j of a run is added to lane
// j % kSumLanes (counted from the run's start); Total() combines the lanes
// pairwise in a fixed order.  So the order of additions depends only on the
// run lengths -- every thread count gives the same bits --
// while the independent lanes let the compiler use vector adds and keep
// several additions in flight, where one running sum waits on each add.
// Sixteen lanes of double are four 4-wide vector sums, enough to cover an
// add's latency; with eight, BatchNorm's statistics waited on it (ResNet's
// fused BatchNorm chains about 10% slower).  The count is part of the
// results: another one adds in another order.
const int kSumLanes = 16;

// Marks a loop over the lanes of one block as a vector loop (OpenMP's
// simd, compiled with -fopenmp-simd: no threads, no runtime).  The lanes
// are independent, so this changes no operation, only how they are
// issued; left to itself, GCC 12 vectorized the loop around it instead
// once a sum sat in a large fused body, shuffling lanes with permutes or
// converting double terms one at a time (ResNet-50's fused BatchNorm
// backward: 0.46 against 0.11 ns per element for a pair of double sums).
#if defined(__CUDACC__)
#define CAFFE_SIMD_LANES
#else
#define CAFFE_SIMD_LANES _Pragma("omp simd")
#endif

template <typename Acc>
struct LaneSum {
  Acc lane[kSumLanes];
  CAFFE_KERNEL LaneSum() {
    for (int k = 0; k < kSumLanes; ++k) lane[k] = Acc{};
  }
  // Adds term(begin + j) for j in [0, len).
  template <typename Term>
  CAFFE_KERNEL void AddRun(long begin, long len, const Term& term) {
    long j = 0;
    for (; j + kSumLanes <= len; j += kSumLanes) {
      const long base = begin + j;
      CAFFE_SIMD_LANES
      for (int k = 0; k < kSumLanes; ++k)
        lane[k] += static_cast<Acc>(term(base + k));
    }
    for (int k = 0; j < len; ++j, ++k)
      lane[k] += static_cast<Acc>(term(begin + j));
  }
  // Adds term_a to `a` and term_b to `b` in one sweep over the run; each
  // gets exactly the additions AddRun would give it.  The lanes are summed
  // in local copies: `a` and `b` may alias as far as the compiler knows,
  // and through them it kept every add scalar (ResNet's BatchNorm
  // backward spent a third of its time there).  Both terms of an index
  // are added in one loop over the lanes (see CAFFE_SIMD_LANES).
  template <typename TermA, typename TermB>
  CAFFE_KERNEL static void AddRuns(LaneSum* a, LaneSum* b, long begin,
                                   long len, const TermA& term_a,
                                   const TermB& term_b) {
    LaneSum la = *a, lb = *b;
    long j = 0;
    for (; j + kSumLanes <= len; j += kSumLanes) {
      const long base = begin + j;
      CAFFE_SIMD_LANES
      for (int k = 0; k < kSumLanes; ++k) {
        la.lane[k] += static_cast<Acc>(term_a(base + k));
        lb.lane[k] += static_cast<Acc>(term_b(base + k));
      }
    }
    for (int k = 0; j < len; ++j, ++k) {
      la.lane[k] += static_cast<Acc>(term_a(begin + j));
      lb.lane[k] += static_cast<Acc>(term_b(begin + j));
    }
    *a = la;
    *b = lb;
  }
  // The lanes added pairwise: each half's total, then their sum.
  CAFFE_KERNEL Acc Total() const { return Tree<0, kSumLanes>(); }

 private:
  template <int First, int Count>
  CAFFE_KERNEL Acc Tree() const {
    static_assert((Count & (Count - 1)) == 0, "a power of two of lanes");
    if constexpr (Count == 1) {
      return lane[First];
    } else {
      return Tree<First, Count / 2>() + Tree<First + Count / 2, Count / 2>();
    }
  }
};

// Where a channel's terms k = first, first + stride, ... lie in a tensor
// (outer, channels, inner): term k is at (n, r) = (k / inner, k % inner),
// which Step() moves along by stride without a divide per term.
struct ChannelTermWalk {
  long n;
  int r;
  long step_n;
  int step_r;
  int inner;
  CAFFE_KERNEL ChannelTermWalk(long first, long stride, int inner)
      : n(first / inner),
        r(static_cast<int>(first % inner)),
        step_n(stride / inner),
        step_r(static_cast<int>(stride % inner)),
        inner(inner) {}
  // The term's offset in channel d.
  CAFFE_KERNEL long Offset(long d, int channels) const {
    return (n * channels + d) * inner + r;
  }
  CAFFE_KERNEL void Step() {
    n += step_n;
    r += step_r;
    if (r >= inner) {
      r -= inner;
      ++n;
    }
  }
};

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
// Every thread of the cluster arrives before any goes on; shared memory
// written before is visible to the cluster after.
__device__ inline void ClusterSync() {
  __cluster_barrier_arrive();
  __cluster_barrier_wait();
}
// `p` (in this block's shared memory) in block `rank`'s shared memory.
template <typename T>
__device__ inline const T* ClusterShared(const T* p, unsigned rank) {
  return static_cast<const T*>(__cluster_map_shared_rank(p, rank));
}
#endif

// How many of a channel-block thread's terms are read before any of them
// is added: their loads are in flight together.  One at a time, a thread
// waited on each load, and ResNet-50's BatchNorm moved 0.2 TB/s on an
// H200 (its channel blocks are few, 8 warps each, so little else hid the
// wait).
const int kChannelReadAhead = 8;

// Channel blocks resident on an SM, as a device is counted when blocks
// per channel are chosen: what 128 registers a thread allow, and what
// ptxas gives the channel kernels (72 to 128 on sm_90).  A constant, not
// each kernel's occupancy, so that two kernels summing the same channels
// (a layer's, and a fused step's doing that layer's sums among others)
// split them alike and give the same bits.
const int kChannelBlocksPerSm = 2;

// Blocks per channel for a device of `sms` multiprocessors, chosen by
// shape (gpu_launch.cuh): enough to fill the device once, at most
// kMaxChannelBlocks, and at most one per kChannelThreads *
// kChannelReadAhead terms, so that each thread still reads a full
// read-ahead.  At least 1.
inline int ChannelBlocksByShape(long sms, long channels, long terms) {
  const long wave = sms * kChannelBlocksPerSm;
  const long fill = (wave + channels - 1) / std::max(1L, channels);
  const long most = terms / (kChannelThreads * kChannelReadAhead);
  return static_cast<int>(std::max(
      1L, std::min({static_cast<long>(kMaxChannelBlocks), fill, most})));
}

#ifdef __CUDA_ARCH__

// A channel's sums over its B blocks (ChannelBlocks()): thread t of block
// q adds the channel's terms g, g + 256 B, ... where g = 256 q + t
// (counted over (n, inner) in order); each block adds its 256 partial
// sums pairwise in a fixed tree, and every thread adds the B block sums
// in block order.  Deterministic for a given shape and B, but not the
// CPU's order: the two devices' sums differ in rounding.  With one block
// per channel, B = 1, the order is the one before clusters, bit for bit.
// The terms are read kChannelReadAhead at a time and then added in that
// same order, so reading ahead changes no bit; (n, r), the position of
// term k in (outer, inner), steps along with k instead of being divided
// out of it at every term.
template <bool kBoth, typename Acc, typename TermA, typename TermB>
__device__ void BlockSumsOverChannel(long d, int outer, int channels,
                                     int inner, const TermA& term_a,
                                     const TermB& term_b, Acc* sum_a,
                                     Acc* sum_b) {
  __shared__ Acc shared_a[kChannelThreads];
  __shared__ Acc shared_b[kBoth ? kChannelThreads : 1];
  const int t = threadIdx.y * blockDim.x + threadIdx.x;
  const unsigned blocks = ChannelBlocks();
  const long first =
      static_cast<long>(ChannelBlockRank()) * kChannelThreads + t;
  const long stride = static_cast<long>(blocks) * kChannelThreads;
  const long count = static_cast<long>(outer) * inner;
  ChannelTermWalk walk(first, stride, inner);
  Acc a = Acc{}, b = Acc{};
  // An aggregate of several sums reads several values per term, so half
  // as many terms ahead keep about as many loads in flight; at the full
  // read-ahead the fused chain's four sums spilled within 128 registers
  // (ptxas, sm_90: 268 bytes of stores in float, 492 in double), at half
  // they do not.
  constexpr int kAhead = sizeof(Acc) > 2 * sizeof(double)
                             ? kChannelReadAhead / 2
                             : kChannelReadAhead;
  // The loops over u have fixed bounds and unroll whole (ptxas, sm_90:
  // the float gradient means' kernel takes 128 registers, where a first
  // loop that stopped at the count's end took 168).
  for (long k = first; k < count; k += kAhead * stride) {
    long at[kAhead];
#pragma unroll
    for (int u = 0; u < kAhead; ++u) {
      at[u] = walk.Offset(d, channels);
      walk.Step();
    }
    Acc va[kAhead], vb[kAhead];
#pragma unroll
    for (int u = 0; u < kAhead; ++u) {
      if (k + u * stride < count) {
        va[u] = static_cast<Acc>(term_a(at[u]));
        if constexpr (kBoth) vb[u] = static_cast<Acc>(term_b(at[u]));
      }
    }
#pragma unroll
    for (int u = 0; u < kAhead; ++u) {
      if (k + u * stride < count) {
        a += va[u];
        if constexpr (kBoth) b += vb[u];
      }
    }
  }
  shared_a[t] = a;
  if constexpr (kBoth) shared_b[t] = b;
  __syncthreads();
  for (int half = kChannelThreads / 2; half > 0; half /= 2) {
    if (t < half) {
      shared_a[t] = shared_a[t] + shared_a[t + half];
      if constexpr (kBoth) shared_b[t] = shared_b[t] + shared_b[t + half];
    }
    __syncthreads();
  }
#if __CUDA_ARCH__ >= 900
  if (blocks > 1) {
    ClusterSync();  // every block's sum is in its shared_a[0], shared_b[0]
    Acc total_a = *ClusterShared(&shared_a[0], 0);
    for (unsigned q = 1; q < blocks; ++q)
      total_a += *ClusterShared(&shared_a[0], q);
    *sum_a = total_a;
    if constexpr (kBoth) {
      Acc total_b = *ClusterShared(&shared_b[0], 0);
      for (unsigned q = 1; q < blocks; ++q)
        total_b += *ClusterShared(&shared_b[0], q);
      *sum_b = total_b;
    }
    // No block writes its sums again, or exits, while another reads them.
    ClusterSync();
    return;
  }
#endif
  *sum_a = shared_a[0];
  if constexpr (kBoth) *sum_b = shared_b[0];
  __syncthreads();  // every thread has read before the next sum writes
}
#endif

// The CPU's order of a channel's sums (LaneSum), which a GPU also runs
// where a channel body runs one thread per channel (ForEachGpu).  Out of
// line on the device: inlined, its 16 lanes took registers and stack in
// every channel kernel, which never runs it (the fused chain's four sums
// were given 251 registers, one block per SM).  Where it is compiled
// changes no operation.
#if defined(__CUDA_ARCH__)
#define CAFFE_DEVICE_NOINLINE __noinline__
#else
#define CAFFE_DEVICE_NOINLINE
#endif

template <typename Acc, typename Term>
CAFFE_KERNEL CAFFE_DEVICE_NOINLINE Acc LaneSumOverChannel(long d, int outer,
                                                         int channels,
                                                         int inner,
                                                         const Term& term) {
  LaneSum<Acc> sum;
  for (int n = 0; n < outer; ++n)
    sum.AddRun((static_cast<long>(n) * channels + d) * inner, inner, term);
  return sum.Total();
}

template <typename Acc, typename TermA, typename TermB>
CAFFE_KERNEL CAFFE_DEVICE_NOINLINE void LaneSumTwoOverChannel(
    long d, int outer, int channels, int inner, const TermA& term_a,
    const TermB& term_b, Acc* sum_a, Acc* sum_b) {
  LaneSum<Acc> a, b;
  for (int n = 0; n < outer; ++n) {
    LaneSum<Acc>::AddRuns(&a, &b, (static_cast<long>(n) * channels + d) * inner,
                          inner, term_a, term_b);
  }
  *sum_a = a.Total();
  *sum_b = b.Total();
}

// Channel d of a tensor laid out as (outer, channels, inner): adds every
// term of the channel, one run of `inner` per n, in n order (in a GPU
// channel block, BlockSumsOverChannel's order instead).
template <typename Acc, typename Term>
CAFFE_KERNEL Acc SumOverChannel(long d, int outer, int channels, int inner,
                                const Term& term) {
#ifdef __CUDA_ARCH__
  if (InChannelBlock()) {
    Acc a;
    BlockSumsOverChannel<false, Acc>(d, outer, channels, inner, term, term,
                                     &a, nullptr);
    return a;
  }
#endif
  return LaneSumOverChannel<Acc>(d, outer, channels, inner, term);
}

// Two sums over channel d in one sweep, each equal to its SumOverChannel.
template <typename Acc, typename TermA, typename TermB>
CAFFE_KERNEL void SumTwoOverChannel(long d, int outer, int channels,
                                    int inner, const TermA& term_a,
                                    const TermB& term_b, Acc* sum_a,
                                    Acc* sum_b) {
#ifdef __CUDA_ARCH__
  if (InChannelBlock()) {
    BlockSumsOverChannel<true>(d, outer, channels, inner, term_a, term_b,
                               sum_a, sum_b);
    return;
  }
#endif
  LaneSumTwoOverChannel(d, outer, channels, inner, term_a, term_b, sum_a,
                        sum_b);
}

// Channel d: acc_a[d] += SumOverChannel of term_a, acc_b[d] += that of
// term_b, in one sweep when both are wanted; a null accumulator is skipped.
template <typename Dtype, typename TermA, typename TermB>
struct ChannelSumPair {
  Dtype* acc_a;
  Dtype* acc_b;
  int outer, channels, inner;
  TermA term_a;
  TermB term_b;
  CAFFE_KERNEL void operator()(long d) const {
    Dtype a = Dtype(0), b = Dtype(0);
    if (acc_a && acc_b) {
      SumTwoOverChannel<Dtype>(d, outer, channels, inner, term_a, term_b, &a,
                               &b);
    } else if (acc_a) {
      a = SumOverChannel<Dtype>(d, outer, channels, inner, term_a);
    } else if (acc_b) {
      b = SumOverChannel<Dtype>(d, outer, channels, inner, term_b);
    }
    if (!ChannelLead()) return;
    if (acc_a) acc_a[d] += a;
    if (acc_b) acc_b[d] += b;
  }
};

// Channel d: acc[d] += SumOverChannel of term.
template <typename Dtype, typename Term>
struct ChannelSum {
  Dtype* acc;
  int outer, channels, inner;
  Term term;
  CAFFE_KERNEL void operator()(long d) const {
    const Dtype sum = SumOverChannel<Dtype>(d, outer, channels, inner, term);
    if (ChannelLead()) acc[d] += sum;
  }
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
  CAFFE_KERNEL Dtype operator()(long j) const {
    return RoundedProduct(a[j], b[j]);
  }
};

}  // namespace caffe

#endif  // CAFFE_UTIL_CHANNEL_SUMS_HPP_
