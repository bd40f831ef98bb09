// max_pool_row.hpp: MAX pooling's forward on the CPU, one output row per
// index (index: plane * pooled_height + ph).  Contract: the outputs and
// argmaxes of MaxPoolForward (pooling_kernels.hpp, what the GPU runs) bit
// for bit, in both argmax forms and without a mask
// (test_pooling_layer.cpp, RowBodyMatchesOutputBody).
//
// Why a body of its own: the per-output loop compares element by element
// with a branch, which mispredicts on real data (about a third of its
// time on Gaussian inputs).  Here the outputs whose window lies whole
// inside the row's width go a vector of lanes at a time (64 bytes, then
// 32 for what is left, so that 14-wide rows take vectors too): for each
// window element, in window order, every lane compares strictly greater
// (so the first greatest wins and NaN never does, as in
// MaxPoolForward::At) and selects, without branches.  Strides 1 and 2
// load whole vectors (stride 2 two of them, keeping the even elements);
// other strides, the edges and rows too short for a vector go through
// At.  GCC's vector extensions, so each of RunRange's copies (AVX-512,
// AVX2, baseline) lowers the same operations to its own width; not
// included by nvcc.
#ifndef CAFFE_MAX_POOL_ROW_HPP_
#define CAFFE_MAX_POOL_ROW_HPP_

#include <cfloat>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "pooling_kernels.hpp"

namespace caffe {

template <typename Dtype, typename Mask = int>
struct MaxPoolForwardRow {
  MaxPoolForward<Dtype, Mask> f;

  void operator()(long row) const {
    const PoolGeometry& g = f.g;
    const int ph = static_cast<int>(row % g.pooled_height);
    const long plane = row / g.pooled_height;
    const long first = row * g.pooled_width;
    int pw = 0;
#if defined(__GNUC__) && !defined(__CUDACC__)
    if (g.stride_w == 1 || g.stride_w == 2) {
      // Outputs from `lo` on have w0 = pw * stride_w - pad_w >= 0.
      const int lo = (g.pad_w + g.stride_w - 1) / g.stride_w;
      for (; pw < lo && pw < g.pooled_width; ++pw)
        f.At(first + pw, plane, ph, pw);
      // 64-byte vectors while they fit, then 32-byte ones (14-wide rows),
      // the last of them moved back to end where the row's room ends: it
      // recomputes a few outputs, with the same bits.
      pw = Cover<32>(first, plane, ph, Cover<64>(first, plane, ph, pw));
      const int back = LastFit<32>();
      if (back >= lo && back < pw && back + Lanes<32>() > pw) {
        Run<32>(first, plane, ph, back);
        pw = back + Lanes<32>();
      }
    }
#endif
    for (; pw < g.pooled_width; ++pw) f.At(first + pw, plane, ph, pw);
  }

#if defined(__GNUC__) && !defined(__CUDACC__)
  template <int kBytes>
  static constexpr int Lanes() {
    return kBytes / static_cast<int>(sizeof(Dtype));
  }
  // Elements one vector reads from its first window's start: stride 1
  // reads w0 .. w0 + lanes - 1 + kernel_w - 1, stride 2 two vectors from
  // w0 + kw.
  template <int kBytes>
  int Span() const {
    return (f.g.stride_w == 1 ? 1 : 2) * Lanes<kBytes>() + f.g.kernel_w - 1;
  }
  // Whether a vector of outputs starting at pw (>= lo) stays inside the
  // row, outputs and reads.
  template <int kBytes>
  bool Fits(int pw) const {
    return pw + Lanes<kBytes>() <= f.g.pooled_width &&
           pw * f.g.stride_w - f.g.pad_w + Span<kBytes>() <= f.g.width;
  }
  // The last start that Fits (may be below lo, or negative: none).
  template <int kBytes>
  int LastFit() const {
    const PoolGeometry& g = f.g;
    const int by_reads = g.width + g.pad_w - Span<kBytes>();
    const int by_outputs = g.pooled_width - Lanes<kBytes>();
    const int reads = by_reads < 0 ? -1 : by_reads / g.stride_w;
    return reads < by_outputs ? reads : by_outputs;
  }
  // Runs vectors from pw while they fit; returns where they stopped.
  template <int kBytes>
  int Cover(long first, long plane, int ph, int pw) const {
    for (; Fits<kBytes>(pw); pw += Lanes<kBytes>())
      Run<kBytes>(first, plane, ph, pw);
    return pw;
  }
  template <int kBytes>
  void Run(long first, long plane, int ph, int pw) const {
    if (f.g.stride_w == 1) {
      Vector<kBytes, 1>(first, plane, ph, pw);
    } else {
      Vector<kBytes, 2>(first, plane, ph, pw);
    }
  }

  // Outputs pw .. pw + lanes - 1 of the row.
  template <int kBytes, int kStride>
  void Vector(long first, long plane, int ph, int pw) const {
    typedef Dtype Vec __attribute__((vector_size(kBytes)));
    typedef typename std::conditional<sizeof(Dtype) == 4, int32_t,
                                      int64_t>::type Lane;
    typedef Lane Ints __attribute__((vector_size(kBytes)));
    constexpr int kLanes = Lanes<kBytes>();
    const PoolGeometry& g = f.g;
    const int h0 = ph * g.stride_h - g.pad_h;
    const int hstart = h0 > 0 ? h0 : 0;
    const int hend = h0 + g.kernel_h < g.height ? h0 + g.kernel_h : g.height;
    const int w0 = pw * kStride - g.pad_w;
    const Dtype* in = f.x + plane * g.height * g.width + w0;
    const Dtype lowest =
        sizeof(Dtype) == sizeof(double) ? Dtype(-DBL_MAX) : Dtype(-FLT_MAX);
    // The argmax as the mask keeps it (StoreArgmax), -1 for none: an int
    // mask the plane index h * width + w, a byte mask the window offset
    // (h - h0) * kernel_w + (w - w0), the same in every lane.
    const bool plane_index = std::is_same<Mask, int>::value;
    Vec best = Vec{} + lowest;
    Ints at = Ints{} - 1;
    Ints lane_w;  // each lane's w0 - w0 of lane 0, for plane indexes
    for (int j = 0; j < kLanes; ++j) lane_w[j] = plane_index ? j * kStride : 0;
    for (int h = hstart; h < hend; ++h) {
      const Dtype* r = in + static_cast<long>(h) * g.width;
      for (int kw = 0; kw < g.kernel_w; ++kw) {
        // Loads through memcpy (no alignment assumed); a vector argument
        // or result would change the ABI between RunRange's copies.
        Vec v;
        std::memcpy(&v, r + kw, sizeof(Vec));
        if (kStride == 2) {
#if defined(__clang__)
          // Clang (the sanitizer builds) has no __builtin_shuffle.
          for (int j = 0; j < kLanes; ++j) v[j] = r[kw + 2 * j];
#else
          Ints even;  // lanes 0, 2, 4, ... of the two loads
          for (int j = 0; j < kLanes; ++j) even[j] = 2 * j;
          Vec odd_half;
          std::memcpy(&odd_half, r + kw + kLanes, sizeof(Vec));
          v = __builtin_shuffle(v, odd_half, even);
#endif
        }
        const Lane here = plane_index ? h * g.width + w0 + kw
                                      : (h - h0) * g.kernel_w + kw;
        const Ints greater = v > best;
        best = greater ? v : best;
        at = greater ? lane_w + here : at;
      }
    }
    for (int j = 0; j < kLanes; ++j) f.y[first + pw + j] = best[j];
    if (!f.mask) return;
    const Mask none = plane_index ? Mask(-1) : Mask(kNoArgmax);
    for (int j = 0; j < kLanes; ++j)
      f.mask[first + pw + j] = at[j] < 0 ? none : static_cast<Mask>(at[j]);
  }
#endif
};

}  // namespace caffe

#endif  // CAFFE_MAX_POOL_ROW_HPP_
