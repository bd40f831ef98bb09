// normalized_input.hpp: where the backward kernels that need BatchNorm's
// normalized output y = (x - mean[c]) * (1 / sd[c]) read it from -- a copy
// BatchNorm kept, or its input x recomputed into y -- for BatchNorm's own
// backward, a Scale borrowing it, and a fused chain's backward.
//
// Why: a BatchNorm whose input stays intact until its backward (its own
// blob, out of place, that no later layer writes; Net decides) need not
// write y a second time into a copy: one activation stream less in every
// forward and in every recomputation that reruns it, and one
// activation-sized buffer that the input, live anyway, replaces.
//
// Contract:
//  * NormalizedSource holds device or host pointers, as the launch runs:
//    either `copy` (the kept y), or `x`, `mean` and `sd` (the input and
//    the statistics its forward used).  Neither: no source (`on()` false).
//  * From the input, an element is (x[i] - mean[c]) * inverse_sd with
//    inverse_sd = 1 / sd[c] rounded once per channel: the expression and
//    roundings of BatchNormNormalize (batch_norm_compute.hpp), so both
//    sources give the same bits.  No multiply-add contraction can apply
//    to it (a difference times a value), on either device.
//  * A body binds one channel (Copied(), Normalized(c)) and picks its loop
//    by copied() once per channel or plane, never per element, so that
//    each loop stays a straight vector loop; on the host the normalized
//    loop is out of line (CAFFE_HOST_NOINLINE).
#ifndef CAFFE_UTIL_NORMALIZED_INPUT_HPP_
#define CAFFE_UTIL_NORMALIZED_INPUT_HPP_

#include "caffe/layer.hpp"
#include "caffe/util/channel_sums.hpp"
#include "caffe/util/device_math.hpp"
#include "caffe/util/elementwise.hpp"

namespace caffe {

// On the host, a body's loop over normalized values is a call of its own:
// inlined beside the copy's loop, it doubled the CPU's fused chain bodies,
// and the copy's loops, the common case, got slower for it.
#if defined(__CUDA_ARCH__)
#define CAFFE_HOST_NOINLINE
#else
#define CAFFE_HOST_NOINLINE __attribute__((noinline))
#endif

// Element i of a kept copy: the copy's own value (a channel sums' term).
template <typename Dtype>
using CopiedValues = ValueTerm<Dtype>;

// Element i of one channel's normalized input.
template <typename Dtype>
struct NormalizedValues {
  const Dtype* x;
  Dtype mean, inverse_sd;
  CAFFE_KERNEL Dtype operator()(long i) const {
    return (x[i] - mean) * inverse_sd;
  }
};

template <typename Dtype>
struct NormalizedSource {
  const Dtype* copy = nullptr;
  const Dtype* x = nullptr;
  const Dtype* mean = nullptr;
  const Dtype* sd = nullptr;
  CAFFE_KERNEL bool on() const { return copy != nullptr || x != nullptr; }
  CAFFE_KERNEL bool copied() const { return copy != nullptr; }
  CAFFE_KERNEL CopiedValues<Dtype> Copied() const { return {copy}; }
  CAFFE_KERNEL NormalizedValues<Dtype> Normalized(long c) const {
    return {x, mean[c], Dtype(1) / sd[c]};
  }
};

// A source that is a plain buffer (a copy, or data that is y itself).
template <typename Dtype>
NormalizedSource<Dtype> CopySource(const Dtype* p) {
  NormalizedSource<Dtype> s;
  s.copy = p;
  return s;
}

// A lent output's source on the device the launch runs on; `copy` when
// the lender kept one.
template <typename Dtype>
NormalizedSource<Dtype> SourceOn(bool gpu, const LentOutput<Dtype>& lent) {
  NormalizedSource<Dtype> s;
  if (lent.copy) {
    s.copy = DataOn(gpu, *lent.copy);
  } else if (lent.input) {
    s.x = DataOn(gpu, *lent.input);
    s.mean = DataOn(gpu, *lent.mean);
    s.sd = DataOn(gpu, *lent.sd);
  }
  return s;
}

// The channel-sum term a[j] * y(j), rounded as ProductTerm rounds it.
template <typename Dtype, typename Values>
struct ProductWith {
  const Dtype* a;
  Values b;
  CAFFE_KERNEL Dtype operator()(long j) const {
    return RoundedProduct(a[j], b(j));
  }
};

}  // namespace caffe

#endif  // CAFFE_UTIL_NORMALIZED_INPUT_HPP_
