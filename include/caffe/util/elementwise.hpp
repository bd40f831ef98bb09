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
//  * Channel sums (SumOverChannel and the bodies built on it) are in
//    util/channel_sums.hpp.
//  * CpuLaunch (here) and GpuLaunch (gpu_launch.cuh) are launch policies:
//    a layer whose compute logic is a template over the policy is written
//    once, in a header its .cpp instantiates with CpuLaunch and its .cu
//    with GpuLaunch; `Launch::gpu` picks host or device pointers.
#ifndef CAFFE_UTIL_ELEMENTWISE_HPP_
#define CAFFE_UTIL_ELEMENTWISE_HPP_

#include <algorithm>
#include <type_traits>
#include <utility>

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

// Wider vectors where the CPU has them.  On x86-64 each range runs
// through a copy of the loop compiled for AVX-512 (F, VL, BW, DQ) or AVX2,
// the best the CPU has, with the body inlined into it (flatten); other
// CPUs, and host code compiled by nvcc, run the baseline loop the library
// is built for (SSE2).  Every copy gives the same bits: the bodies'
// operations are IEEE adds, multiplies, divides and compares, never
// contracted into FMA (-ffp-contract=off), and sums keep their lane order
// (tested: test_fused_chain.cpp).  LEANCAFFE_CPU_VECTOR=baseline|avx2
// caps the copy used (to compare).
enum class CpuVector { kBaseline = 0, kAvx2 = 1, kAvx512 = 2 };
// The copy ranges run through now.
CpuVector CpuVectorLoops();
// Caps it (tests); the CPU's best copy is never exceeded.
void SetCpuVectorLoops(CpuVector cap);

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__CUDACC__)
#define CAFFE_WIDE_LOOPS 1
template <typename Body>
__attribute__((target("avx512f,avx512vl,avx512bw,avx512dq"), flatten))
void RunRangeAvx512(const Body& body, long begin, long end) {
  for (long i = begin; i < end; ++i) body(i);
}
template <typename Body>
__attribute__((target("avx2"), flatten))
void RunRangeAvx2(const Body& body, long begin, long end) {
  for (long i = begin; i < end; ++i) body(i);
}
#endif

template <typename Body>
void RunRange(const Body& body, long begin, long end) {
#ifdef CAFFE_WIDE_LOOPS
  switch (CpuVectorLoops()) {
    case CpuVector::kAvx512:
      RunRangeAvx512(body, begin, end);
      return;
    case CpuVector::kAvx2:
      RunRangeAvx2(body, begin, end);
      return;
    case CpuVector::kBaseline:
      break;
  }
#endif
  for (long i = begin; i < end; ++i) body(i);
}

template <typename Body>
void ForEach(long n, long grain, const Body& body) {
  ParallelFor(n, grain, [&body](long begin, long end) {
    RunRange(body, begin, end);
  });
}

// A launch policy runs a body over [0, n): operator() for element-wise
// bodies, Channels for channel bodies (which may call SumOverChannel;
// `terms` is how many terms each channel sums, outer * inner), Planes for
// plane bodies (which loop over a plane with CAFFE_PLANE_LOOP).  On the
// CPU all three are ForEach.
struct CpuLaunch {
  static constexpr bool gpu = false;
  template <typename Body>
  void operator()(long n, long grain, const Body& body) const {
    ForEach(n, grain, body);
  }
  template <typename Body>
  void Channels(long n, long terms, const Body& body) const {
    ForEach(n, GrainFor(terms), body);
  }
  template <typename Body>
  void Planes(long n, long grain, const Body& body) const {
    ForEach(n, grain, body);
  }
};

// How the GPU runs channel and plane bodies (gpu_launch.cuh), and what a
// body sees of it.  A body is still called once per index in every
// thread that runs it; the launch's block shape says how threads share:
//  * ForEachGpu: 1-D blocks, one thread per index.  Everything below is
//    the CPU's: the lead thread, one lane, serial sums.
//  * Channel blocks, (32, kChannelWarps, 1): the block's 256 threads all
//    call the body with the same channel.  SumOverChannel and
//    SumTwoOverChannel split the channel's terms over them and give each
//    the total; only the lead thread (ChannelLead()) may write, so a
//    channel body guards its stores with it and computes what it stores
//    from sums and values read before the launch.  On sm_90 and later a
//    channel may be shared by a cluster of up to 8 such blocks
//    (ChannelBlocks(); the launch decides, gpu_launch.cuh): every thread
//    of every block calls the body, the sums split the terms over all of
//    them, and the lead is thread 0 of the cluster's first block.
//  * Plane blocks, (32, 1, kPlaneWarps): a warp per plane.  A plane body
//    walks its elements with CAFFE_PLANE_LOOP, lane by lane, so a warp
//    reads a plane in coalesced rows; elements must be independent.
const int kChannelWarps = 8;
const int kChannelThreads = 32 * kChannelWarps;
const int kPlaneWarps = 8;

const int kMaxChannelBlocks = 8;  // the portable cluster size

#ifdef __CUDA_ARCH__
__device__ inline bool InChannelBlock() { return blockDim.y > 1; }
__device__ inline bool InPlaneBlock() { return blockDim.z > 1; }
#endif

#ifdef __CUDACC__
// The blocks that share this block's channel (its cluster, when the
// launch gave it one) and this block's place among them.
__device__ inline unsigned ChannelBlocks() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  return __clusterDimIsSpecified() ? __clusterSizeInBlocks() : 1u;
#else
  return 1u;
#endif
}
__device__ inline unsigned ChannelBlockRank() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  return __clusterDimIsSpecified() ? __clusterRelativeBlockRank() : 0u;
#else
  return 0u;
#endif
}
#endif

CAFFE_KERNEL inline bool ChannelLead() {
#ifdef __CUDA_ARCH__
  return !InChannelBlock() ||
         (threadIdx.x == 0 && threadIdx.y == 0 && ChannelBlockRank() == 0);
#else
  return true;
#endif
}

// for (int i = 0; i < n; ++i) on the CPU (the very loop, so it vectorizes
// as before); a lane's share of it in a GPU plane block.
#ifdef __CUDA_ARCH__
#define CAFFE_PLANE_LOOP(i, n)                                     \
  for (int i = InPlaneBlock() ? static_cast<int>(threadIdx.x) : 0; \
       i < (n); i += InPlaneBlock() ? static_cast<int>(blockDim.x) : 1)
#else
#define CAFFE_PLANE_LOOP(i, n) for (int i = 0; i < (n); ++i)
#endif

// Element ops: a body split in two, `In Load(long i) const` reading what
// element i needs (a value, or a Two of them) and `void Store(long i, In)
// const` computing element i from that and writing it; an element body
// that has them has operator()(i) = Store(i, Load(i)).  Element i reads
// and writes index i only, so loads of other indices may go first.  Only
// element bodies have them (a plane body's element ops are a struct of
// their own): ForEachGpu takes a body with Load for an element body.
//
// Why: on a GPU a thread that loads, waits, computes, stores and only
// then loads again has one load in flight.  All resident threads of an
// H200 then hold about 1 MB in flight, by our estimate a third of what
// its memory needs in flight to stream at full rate (bandwidth times
// latency); ResNet-50's BatchNorm, Scale and ReLU passes moved 1.2 to
// 1.7 TB/s of its 4.8 (their bytes over the twentieth session's
// per-layer times).  The compiler cannot move a load above the store
// before it by itself: the two may alias (in place).  RunElementsAhead
// issues kLoadAhead loads before their stores.
template <typename T>
struct Two {
  T a, b;
};

const int kLoadAhead = 4;

// The compiler unrolls loops of kLoadAhead by itself on the host; nvcc's
// device pass is asked to, so that the loads land in registers, not a
// local array.
#if defined(__CUDA_ARCH__)
#define CAFFE_UNROLL _Pragma("unroll")
#else
#define CAFFE_UNROLL
#endif

// Store(i, Load(i)) for i = first, first + step, ... below end, each group
// of kLoadAhead indices loaded before any of them is stored.  The same
// values as one index at a time; the CPU runs it in tests.
template <typename Ops>
CAFFE_KERNEL void RunElementsAhead(const Ops& ops, long first, long end,
                                   long step) {
  using In = decltype(ops.Load(first));
  for (long i = first; i < end; i += kLoadAhead * step) {
    In in[kLoadAhead];
    CAFFE_UNROLL
    for (int u = 0; u < kLoadAhead; ++u) {
      if (i + u * step < end) in[u] = ops.Load(i + u * step);
    }
    CAFFE_UNROLL
    for (int u = 0; u < kLoadAhead; ++u) {
      if (i + u * step < end) ops.Store(i + u * step, in[u]);
    }
  }
}

// Whether a body has element ops (ForEachGpu then runs them ahead).
template <typename Body, typename = void>
struct HasElementOps : std::false_type {};
template <typename Body>
struct HasElementOps<
    Body, std::void_t<decltype(std::declval<const Body&>().Load(0L))> >
    : std::true_type {};

// The elements [off, off + n) of a plane through element ops: the plain
// loop on the CPU (it vectorizes as CAFFE_PLANE_LOOP's does); in a GPU
// plane block a lane's share, kLoadAhead of them loaded at a time.
template <typename Ops>
CAFFE_KERNEL inline void PlaneElements(const Ops& ops, long off, int n) {
#ifdef __CUDA_ARCH__
  if (InPlaneBlock()) {
    RunElementsAhead(ops, off + threadIdx.x, off + n, blockDim.x);
    return;
  }
#endif
  for (int i = 0; i < n; ++i) ops.Store(off + i, ops.Load(off + i));
}

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
  // Element ops of one plane.
  struct Elements {
    const Dtype* x;
    Dtype* y;
    Dtype value;
    Op op;
    CAFFE_KERNEL Dtype Load(long i) const { return x[i]; }
    CAFFE_KERNEL void Store(long i, Dtype v) const { y[i] = op(v, value); }
  };
  CAFFE_KERNEL void operator()(long p) const {
    PlaneElements(Elements{x, y, c[p % channels], op}, p * inner, inner);
  }
};

// Composition.  Then runs two bodies at each index (the second may read
// what the first wrote at the same index); Maybe runs its body only when
// `on`.
template <typename First, typename Second>
struct Then {
  First first;
  Second second;
  CAFFE_KERNEL void operator()(long i) const {
    first(i);
    second(i);
  }
};
template <typename First, typename Second>
Then<First, Second> MakeThen(const First& first, const Second& second) {
  return Then<First, Second>{first, second};
}
template <typename Body>
struct Maybe {
  Body body;
  bool on;
  CAFFE_KERNEL void operator()(long i) const {
    if (on) body(i);
  }
};

// A stage: the work of one layer over a tensor laid out as (outer,
// channels, inner), as a per-channel body (a channel's sums, say) and a
// per-plane body that may read what the channel body computed.  Called
// with a channel c, it runs the channel body and then the planes (n, c),
// n in order.  Stages of layers that run one after the other in place are
// composed with Then, channel by channel (a fused chain, net.hpp).
template <typename ChannelBody, typename PlaneBody>
struct ChannelStage {
  ChannelBody channel;
  PlaneBody plane;
  int outer, channels, inner;
  CAFFE_KERNEL void operator()(long c) const {
    channel(c);
    for (int n = 0; n < outer; ++n)
      plane(static_cast<long>(n) * channels + c);
  }
};
template <typename ChannelBody, typename PlaneBody>
ChannelStage<ChannelBody, PlaneBody> MakeStage(const ChannelBody& channel,
                                               const PlaneBody& plane,
                                               int outer, int channels,
                                               int inner) {
  return ChannelStage<ChannelBody, PlaneBody>{channel, plane, outer,
                                              channels, inner};
}

// The channel body of a stage that has only per-plane work.
struct NoChannelWork {
  CAFFE_KERNEL void operator()(long) const {}
};

// Plane p of an element-wise body: body(i) for the plane's elements.
template <typename Body>
struct PlaneOf {
  Body body;
  int inner;
  CAFFE_KERNEL void operator()(long p) const {
    const long off = p * inner;
    if constexpr (HasElementOps<Body>::value) {
      PlaneElements(body, off, inner);
    } else {
      CAFFE_PLANE_LOOP(i, inner) body(off + i);
    }
  }
};

// Runs a stage.  The CPU runs each channel's planes right after its
// channel body, while the channel's values are still in cache: one read
// from memory instead of two.  A GPU, and a CPU with planes too short for
// a channel to be worth a task, launch the channel bodies and then the
// plane bodies.  Both orders compute the same values.
const int kMinChannelRun = 16;

inline bool RunsByChannel(bool gpu, int inner) {
  return !gpu && inner >= kMinChannelRun;
}

template <typename Launch, typename Stage>
void LaunchStage(const Launch& launch, const Stage& stage) {
  const long channel_work = static_cast<long>(stage.outer) * stage.inner;
  if (RunsByChannel(Launch::gpu, stage.inner)) {
    launch(stage.channels, GrainFor(channel_work), stage);
    return;
  }
  launch.Channels(stage.channels, channel_work, stage.channel);
  launch.Planes(static_cast<long>(stage.outer) * stage.channels,
                GrainFor(stage.inner), stage.plane);
}

// Plane p: y = x, element by element.
template <typename Dtype>
struct PlaneCopy {
  const Dtype* x;
  Dtype* y;
  int inner;
  // Element ops (a plane body's own would read as an element body's).
  struct Elements {
    const Dtype* x;
    Dtype* y;
    CAFFE_KERNEL Dtype Load(long i) const { return x[i]; }
    CAFFE_KERNEL void Store(long i, Dtype v) const { y[i] = v; }
  };
  CAFFE_KERNEL void operator()(long p) const {
    PlaneElements(Elements{x, y}, p * inner, inner);
  }
};

// Element-wise sums of whole tensors, as SetOn/CopyOn and AxpyOn would
// compute them (exactly so with unit coefficients, where a multiply-add
// rounds as a plain add): y = (0 + ca * a) + cb * b; y = y + c * x;
// y = c * x.
// ScaledSumOfTwoValue is one element of it, shared with FusedSumReLU.
template <typename Dtype>
CAFFE_KERNEL inline Dtype ScaledSumOfTwoValue(Dtype a, Dtype b, Dtype ca,
                                              Dtype cb) {
  return (Dtype(0) + ca * a) + cb * b;
}
template <typename Dtype>
struct ScaledSumOfTwo {
  const Dtype* a;
  const Dtype* b;
  Dtype ca, cb;
  Dtype* y;
  CAFFE_KERNEL Two<Dtype> Load(long i) const { return {a[i], b[i]}; }
  CAFFE_KERNEL void Store(long i, Two<Dtype> v) const {
    y[i] = ScaledSumOfTwoValue(v.a, v.b, ca, cb);
  }
  CAFFE_KERNEL void operator()(long i) const { Store(i, Load(i)); }
};
template <typename Dtype>
struct AddScaled {
  const Dtype* x;
  Dtype c;
  Dtype* y;
  CAFFE_KERNEL void operator()(long i) const { y[i] = y[i] + c * x[i]; }
};
template <typename Dtype>
struct Scaled {
  const Dtype* x;
  Dtype c;
  Dtype* y;
  CAFFE_KERNEL void operator()(long i) const { y[i] = c * x[i]; }
};

// y = a * x + b * y as BLAS's axpby computes it (caffe_cpu_axpby): y is
// not read when b is 0, nor x when a is 0, so whatever they hold (NaN
// included: mem_param's check mode fills dead buffers with NaN) leaves no
// trace.
template <typename Dtype>
struct Axpby {
  const Dtype* x;
  Dtype* y;
  Dtype a, b;
  CAFFE_KERNEL void operator()(long i) const {
    if (b == Dtype(0)) {
      y[i] = (a == Dtype(0)) ? Dtype(0) : a * x[i];
    } else if (a == Dtype(0)) {
      y[i] = b * y[i];
    } else {
      y[i] = a * x[i] + b * y[i];
    }
  }
};

// a * b rounded on its own.  nvcc contracts a multiply and an add that
// follows into one fused multiply-add by default (host code is compiled
// with -ffp-contract=off, so the CPU never does): a product that one body
// stores and another adds (the layers one by one) and the same product
// added where it is computed (a fused step) would round differently on a
// GPU.  Bodies that must give the same bits in both forms take their
// products from here.
CAFFE_KERNEL inline float RoundedProduct(float a, float b) {
#ifdef __CUDA_ARCH__
  return __fmul_rn(a, b);
#else
  return a * b;
#endif
}
CAFFE_KERNEL inline double RoundedProduct(double a, double b) {
#ifdef __CUDA_ARCH__
  return __dmul_rn(a, b);
#else
  return a * b;
#endif
}

template <typename Dtype>
struct AddOp {
  CAFFE_KERNEL Dtype operator()(Dtype a, Dtype b) const { return a + b; }
};
template <typename Dtype>
struct MulOp {
  CAFFE_KERNEL Dtype operator()(Dtype a, Dtype b) const { return a * b; }
};
}  // namespace caffe

#endif  // CAFFE_UTIL_ELEMENTWISE_HPP_
