// lrn_kernels.hpp: LRN's ACROSS_CHANNELS bodies for the GPU (lrn_layer.cu),
// and the power both devices use.
//
// The CPU loops in lrn_layer.cpp run over chunks of positions with
// scratch buffers, which a GPU thread cannot have; these bodies give each
// thread one spatial position (n, h, w) and walk its channels, doing the
// same operations in the same order as those loops: the window sums add
// channels in ascending order, the backward ratio is dy * x * p / s with
// p = s^-beta (NegPow), so their results equal the CPU layer's exactly
// (test_gpu_bodies.cpp runs them on the CPU and compares).  The backward
// body recomputes each neighbour's ratio instead of keeping it (local_size
// times the divisions; no scratch).  WITHIN_CHANNEL runs its CPU code in
// GPU mode.
#ifndef CAFFE_LRN_KERNELS_HPP_
#define CAFFE_LRN_KERNELS_HPP_

#include <cmath>

#include "caffe/util/elementwise.hpp"

namespace caffe {

// s^-beta.  Caffe's nets use beta = 0.75, where 1/sqrt(s) * sqrt(1/sqrt(s))
// is several times cheaper than pow and as accurate (a few ulp).
template <typename Dtype>
struct NegPow {
  Dtype beta;
  bool three_quarters;
  explicit NegPow(Dtype b) : beta(b), three_quarters(b == Dtype(0.75)) {}
  CAFFE_KERNEL Dtype operator()(Dtype s) const {
    if (three_quarters) {
      const Dtype r = Dtype(1) / std::sqrt(s);
      return r * std::sqrt(r);
    }
    return std::pow(s, -beta);
  }
};

// The geometry of one ACROSS_CHANNELS layer: index p = n * plane + s.
struct LrnAcross {
  int channels;
  long plane;  // height * width
  int pre_pad;  // (local_size - 1) / 2
  CAFFE_KERNEL long Base(long p) const {
    return (p / plane) * channels * plane + p % plane;
  }
  CAFFE_KERNEL int Begin(int c) const { return c - pre_pad > 0 ? c - pre_pad : 0; }
  CAFFE_KERNEL int End(int c) const {
    return c + pre_pad + 1 < channels ? c + pre_pad + 1 : channels;
  }
};

// scale = shift + coeff * sum of x^2 over the window; y = x * scale^-beta.
// scale is null when no backward will read it.
template <typename Dtype>
struct LrnAcrossForward {
  const Dtype* x;
  Dtype* scale;
  Dtype* y;
  LrnAcross g;
  Dtype shift, coeff;
  NegPow<Dtype> neg_pow;
  CAFFE_KERNEL void operator()(long p) const {
    const long base = g.Base(p);
    for (int c = 0; c < g.channels; ++c) {
      Dtype sum = 0;
      for (int c2 = g.Begin(c); c2 < g.End(c); ++c2) {
        const Dtype v = x[base + c2 * g.plane];
        sum += v * v;
      }
      const long at = base + c * g.plane;
      const Dtype s = shift + coeff * sum;
      if (scale != nullptr) scale[at] = s;  // kept for backward
      y[at] = x[at] * neg_pow(s);
    }
  }
};

// dx = dy p - factor * x * sum over the window of dy x p / s, p = s^-beta.
template <typename Dtype>
struct LrnAcrossBackward {
  const Dtype* x;
  const Dtype* scale;
  const Dtype* dy;
  Dtype* dx;
  LrnAcross g;
  Dtype factor;
  NegPow<Dtype> neg_pow;
  CAFFE_KERNEL void operator()(long p) const {
    const long base = g.Base(p);
    for (int c = 0; c < g.channels; ++c) {
      Dtype sum = 0;
      for (int c2 = g.Begin(c); c2 < g.End(c); ++c2) {
        const long at2 = base + c2 * g.plane;
        sum += dy[at2] * x[at2] * neg_pow(scale[at2]) / scale[at2];
      }
      const long at = base + c * g.plane;
      dx[at] = dy[at] * neg_pow(scale[at]) - factor * x[at] * sum;
    }
  }
};

// The geometry of one WITHIN_CHANNEL layer: index p runs over every
// element (n, c, y, x); the window is the size x size square starting at
// (y - pre_pad, x - pre_pad), clipped to the plane.
struct LrnWithin {
  int height, width;
  int pre_pad;
  CAFFE_KERNEL long Plane(long p) const {
    return p - p % (static_cast<long>(height) * width);
  }
  CAFFE_KERNEL int Y(long p) const { return (p / width) % height; }
  CAFFE_KERNEL int X(long p) const { return p % width; }
  CAFFE_KERNEL int Lo(int v) const { return v - pre_pad > 0 ? v - pre_pad : 0; }
  CAFFE_KERNEL int Hi(int v, int n) const {
    return v + pre_pad + 1 < n ? v + pre_pad + 1 : n;
  }
};

// scale = 1 + coeff * sum of x^2 over the window (Caffe's power sublayer
// shifts by 1, not k); y = x * scale^-beta.  The window is walked row by
// row as the CPU's WindowSum does, so the sums match it bit for bit.
// scale is null when no backward will read it.
template <typename Dtype>
struct LrnWithinForward {
  const Dtype* x;
  Dtype* scale;
  Dtype* y;
  LrnWithin g;
  Dtype coeff;
  NegPow<Dtype> neg_pow;
  CAFFE_KERNEL void operator()(long p) const {
    const Dtype* plane = x + g.Plane(p);
    const int py = g.Y(p), px = g.X(p);
    Dtype sum = 0;
    for (int y2 = g.Lo(py); y2 < g.Hi(py, g.height); ++y2)
      for (int x2 = g.Lo(px); x2 < g.Hi(px, g.width); ++x2) {
        const Dtype v = plane[y2 * g.width + x2];
        sum += v * v;
      }
    const Dtype s = Dtype(1) + coeff * sum;
    if (scale != nullptr) scale[p] = s;  // kept for backward
    y[p] = x[p] * neg_pow(s);
  }
};

// dx = dy s^-beta - factor * x * sum over the window of dy x s^(-beta-1),
// each term computed as the CPU computes its ratio (std::pow).
template <typename Dtype>
struct LrnWithinBackward {
  const Dtype* x;
  const Dtype* scale;
  const Dtype* dy;
  Dtype* dx;
  LrnWithin g;
  Dtype factor, beta;
  NegPow<Dtype> neg_pow;
  CAFFE_KERNEL void operator()(long p) const {
    const long base = g.Plane(p);
    const int py = g.Y(p), px = g.X(p);
    Dtype sum = 0;
    for (int y2 = g.Lo(py); y2 < g.Hi(py, g.height); ++y2)
      for (int x2 = g.Lo(px); x2 < g.Hi(px, g.width); ++x2) {
        const long j = base + y2 * g.width + x2;
        sum += dy[j] * x[j] * std::pow(scale[j], -beta - 1);
      }
    dx[p] = dy[p] * neg_pow(scale[p]) - factor * x[p] * sum;
  }
};

}  // namespace caffe

#endif  // CAFFE_LRN_KERNELS_HPP_
