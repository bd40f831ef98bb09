// pooling_kernels.hpp: MAX, AVE and STOCHASTIC pooling bodies, one index
// per output (forward) or per input element (backward, a gather, so no
// atomics and deterministic results), written once: pooling_layer.cpp
// runs them on the CPU's parallel loop and pooling_layer.cu on the GPU
// (STOCHASTIC's through ForEachOn).  A window's argmax is its first
// strictly greatest element; AVE divides by the window size counting
// padding; a gather adds a gradient's windows in window order, the order
// a scatter over the outputs would.  MAX's backward gathers STOCHASTIC's
// gradient as well; only STOCHASTIC's testing backward has a loop of its
// own (pooling_layer.cpp).
//
// The argmax is kept in one of two forms, chosen by the mask's type:
//  * int: the chosen element's index within its H x W plane (-1: none),
//    what the mask top shows and STOCHASTIC keeps;
//  * uint8_t: its offset within the unclipped kernel window, row by row
//    (kNoArgmax: none), a quarter of the memory, for windows of at most
//    kMaxCompactWindow elements.
// On the CPU, MAX's forward runs a row of outputs per index
// (MaxPoolForwardRow, max_pool_row.hpp: vectors of outputs, the same
// bits), and MAX's and STOCHASTIC's training backward scatter plane by
// plane (MaxPoolScatterPlane) instead of gathering: the same operations
// in the same order, without the per-element index arithmetic.
#ifndef CAFFE_POOLING_KERNELS_HPP_
#define CAFFE_POOLING_KERNELS_HPP_

#include <cfloat>
#include <cstdint>

#include "caffe/util/elementwise.hpp"

namespace caffe {

struct PoolGeometry {
  int height, width, pooled_height, pooled_width;
  int kernel_h, kernel_w, stride_h, stride_w, pad_h, pad_w;
};

// The compact form's "no argmax" (a window of NaNs) and its largest window.
constexpr uint8_t kNoArgmax = 255;
constexpr int kMaxCompactWindow = 255;

// Stores the argmax (h, w) of output `i`, whose unclipped window starts at
// (h0, w0); h < 0: none.
CAFFE_KERNEL inline void StoreArgmax(int* mask, long i, int h, int w, int, int,
                                     const PoolGeometry& g) {
  mask[i] = h < 0 ? -1 : h * g.width + w;
}
CAFFE_KERNEL inline void StoreArgmax(uint8_t* mask, long i, int h, int w,
                                     int h0, int w0, const PoolGeometry& g) {
  mask[i] = h < 0 ? kNoArgmax
                  : static_cast<uint8_t>((h - h0) * g.kernel_w + (w - w0));
}

// The plane index of output `o`'s argmax, at (ph, pw) in its plane; -1:
// none.
CAFFE_KERNEL inline int ArgmaxInPlane(const int* mask, long o, int, int,
                                      const PoolGeometry&) {
  return mask[o];
}
CAFFE_KERNEL inline int ArgmaxInPlane(const uint8_t* mask, long o, int ph,
                                      int pw, const PoolGeometry& g) {
  const int v = mask[o];
  if (v == kNoArgmax) return -1;
  return (ph * g.stride_h - g.pad_h + v / g.kernel_w) * g.width +
         (pw * g.stride_w - g.pad_w + v % g.kernel_w);
}

template <typename Dtype, typename Mask = int>
struct MaxPoolForward {
  const Dtype* x;
  Dtype* y;
  Mask* mask;
  PoolGeometry g;
  CAFFE_KERNEL void operator()(long index) const {
    const int pw = static_cast<int>(index % g.pooled_width);
    const int ph = static_cast<int>((index / g.pooled_width) % g.pooled_height);
    const long plane =
        index / (static_cast<long>(g.pooled_width) * g.pooled_height);
    At(index, plane, ph, pw);
  }
  // Output `index`, at (ph, pw) of `plane`.
  CAFFE_KERNEL void At(long index, long plane, int ph, int pw) const {
    const int h0 = ph * g.stride_h - g.pad_h;
    const int w0 = pw * g.stride_w - g.pad_w;
    const int hend = Min(h0 + g.kernel_h, g.height);
    const int wend = Min(w0 + g.kernel_w, g.width);
    const int hstart = h0 > 0 ? h0 : 0;
    const int wstart = w0 > 0 ? w0 : 0;
    const Dtype* in = x + plane * g.height * g.width;
    Dtype best =
        sizeof(Dtype) == sizeof(double) ? Dtype(-DBL_MAX) : Dtype(-FLT_MAX);
    int best_h = -1, best_w = -1;
    for (int h = hstart; h < hend; ++h)
      for (int w = wstart; w < wend; ++w)
        if (in[h * g.width + w] > best) {
          best = in[h * g.width + w];
          best_h = h;
          best_w = w;
        }
    y[index] = best;
    // null: no backward will read it
    if (mask) StoreArgmax(mask, index, best_h, best_w, h0, w0, g);
  }
  CAFFE_KERNEL static int Min(int a, int b) { return a < b ? a : b; }
};

template <typename Dtype>
struct AvePoolForward {
  const Dtype* x;
  Dtype* y;
  PoolGeometry g;
  CAFFE_KERNEL void operator()(long index) const {
    const int pw = static_cast<int>(index % g.pooled_width);
    const int ph = static_cast<int>((index / g.pooled_width) % g.pooled_height);
    const long plane =
        index / (static_cast<long>(g.pooled_width) * g.pooled_height);
    int hstart = ph * g.stride_h - g.pad_h;
    int wstart = pw * g.stride_w - g.pad_w;
    int hend = Min(hstart + g.kernel_h, g.height + g.pad_h);
    int wend = Min(wstart + g.kernel_w, g.width + g.pad_w);
    const int pool_size = (hend - hstart) * (wend - wstart);
    hstart = hstart > 0 ? hstart : 0;
    wstart = wstart > 0 ? wstart : 0;
    hend = Min(hend, g.height);
    wend = Min(wend, g.width);
    const Dtype* in = x + plane * g.height * g.width;
    Dtype sum = 0;
    for (int h = hstart; h < hend; ++h)
      for (int w = wstart; w < wend; ++w) sum += in[h * g.width + w];
    y[index] = sum / pool_size;
  }
  CAFFE_KERNEL static int Min(int a, int b) { return a < b ? a : b; }
};

// dx at one input element: the sum of dy over the windows whose argmax it
// is, in window order.
template <typename Dtype, typename Mask = int>
struct MaxPoolBackward {
  const Dtype* dy;
  const Mask* mask;
  Dtype* dx;
  PoolGeometry g;
  CAFFE_KERNEL void operator()(long index) const {
    const int w = static_cast<int>(index % g.width);
    const int h = static_cast<int>((index / g.width) % g.height);
    const long plane = index / (static_cast<long>(g.width) * g.height);
    const int phstart = (h + g.pad_h < g.kernel_h)
                            ? 0
                            : (h + g.pad_h - g.kernel_h) / g.stride_h + 1;
    const int phend = Min((h + g.pad_h) / g.stride_h + 1, g.pooled_height);
    const int pwstart = (w + g.pad_w < g.kernel_w)
                            ? 0
                            : (w + g.pad_w - g.kernel_w) / g.stride_w + 1;
    const int pwend = Min((w + g.pad_w) / g.stride_w + 1, g.pooled_width);
    const long base = plane * g.pooled_height * g.pooled_width;
    const int self = h * g.width + w;
    Dtype gradient = 0;
    for (int ph = phstart; ph < phend; ++ph)
      for (int pw = pwstart; pw < pwend; ++pw) {
        const long o = base + ph * g.pooled_width + pw;
        if (ArgmaxInPlane(mask, o, ph, pw, g) == self) gradient += dy[o];
      }
    dx[index] = gradient;
  }
  CAFFE_KERNEL static int Min(int a, int b) { return a < b ? a : b; }
};

// MaxPoolBackward's result for one whole plane (index: the plane), as a
// scatter over its outputs in order: each element's sum starts at 0 and
// adds its windows' gradients in window order, as the gather does, so the
// bits agree.  For the CPU, whose threads each take whole planes.
template <typename Dtype, typename Mask = int>
struct MaxPoolScatterPlane {
  const Dtype* dy;
  const Mask* mask;
  Dtype* dx;
  PoolGeometry g;
  CAFFE_KERNEL void operator()(long plane) const {
    const long in_plane = static_cast<long>(g.height) * g.width;
    const long out_plane = static_cast<long>(g.pooled_height) * g.pooled_width;
    Dtype* d = dx + plane * in_plane;
    for (long i = 0; i < in_plane; ++i) d[i] = Dtype(0);
    long o = plane * out_plane;
    for (int ph = 0; ph < g.pooled_height; ++ph)
      for (int pw = 0; pw < g.pooled_width; ++pw, ++o) {
        const int a = ArgmaxInPlane(mask, o, ph, pw, g);
        if (a >= 0) d[a] += dy[o];
      }
  }
};

template <typename Dtype>
struct AvePoolBackward {
  const Dtype* dy;
  Dtype* dx;
  PoolGeometry g;
  CAFFE_KERNEL void operator()(long index) const {
    const int w = static_cast<int>(index % g.width) + g.pad_w;
    const int h = static_cast<int>((index / g.width) % g.height) + g.pad_h;
    const long plane = index / (static_cast<long>(g.width) * g.height);
    const int phstart =
        (h < g.kernel_h) ? 0 : (h - g.kernel_h) / g.stride_h + 1;
    const int phend = Min(h / g.stride_h + 1, g.pooled_height);
    const int pwstart =
        (w < g.kernel_w) ? 0 : (w - g.kernel_w) / g.stride_w + 1;
    const int pwend = Min(w / g.stride_w + 1, g.pooled_width);
    const long base = plane * g.pooled_height * g.pooled_width;
    Dtype gradient = 0;
    for (int ph = phstart; ph < phend; ++ph)
      for (int pw = pwstart; pw < pwend; ++pw) {
        const int hstart = ph * g.stride_h - g.pad_h;
        const int wstart = pw * g.stride_w - g.pad_w;
        const int hend = Min(hstart + g.kernel_h, g.height + g.pad_h);
        const int wend = Min(wstart + g.kernel_w, g.width + g.pad_w);
        const int pool_size = (hend - hstart) * (wend - wstart);
        gradient += dy[base + ph * g.pooled_width + pw] / pool_size;
      }
    dx[index] = gradient;
  }
  CAFFE_KERNEL static int Min(int a, int b) { return a < b ? a : b; }
};

// The clipped window of output `index` as the CPU's STOCHASTIC loop takes
// it (AVE's window, then clipped to the plane).
struct PoolWindow {
  long plane;
  int hstart, wstart, hend, wend;
  CAFFE_KERNEL PoolWindow(const PoolGeometry& g, long index) {
    const int pw = static_cast<int>(index % g.pooled_width);
    const int ph = static_cast<int>((index / g.pooled_width) % g.pooled_height);
    plane = index / (static_cast<long>(g.pooled_width) * g.pooled_height);
    hstart = ph * g.stride_h - g.pad_h;
    wstart = pw * g.stride_w - g.pad_w;
    hend = Min(Min(hstart + g.kernel_h, g.height + g.pad_h), g.height);
    wend = Min(Min(wstart + g.kernel_w, g.width + g.pad_w), g.width);
    hstart = hstart > 0 ? hstart : 0;
    wstart = wstart > 0 ? wstart : 0;
  }
  CAFFE_KERNEL static int Min(int a, int b) { return a < b ? a : b; }
};

// STOCHASTIC, training: the window element at which the running sum (row
// by row) first reaches uniform[index] times the window's sum -- the last
// element if rounding leaves it short -- and its plane index as the mask.
// The uniforms are drawn on the host from Caffe's stream, so both devices
// choose the same elements.
template <typename Dtype>
struct StochasticPoolForward {
  const Dtype* x;
  const Dtype* uniform;
  Dtype* y;
  int* mask;
  PoolGeometry g;
  CAFFE_KERNEL void operator()(long index) const {
    const PoolWindow win(g, index);
    const Dtype* in = x + win.plane * g.height * g.width;
    Dtype total = 0;
    for (int h = win.hstart; h < win.hend; ++h)
      for (int w = win.wstart; w < win.wend; ++w) total += in[h * g.width + w];
    const Dtype threshold = uniform[index] * total;
    int chosen = (win.hend - 1) * g.width + (win.wend - 1);
    Dtype running = 0;
    bool found = false;
    for (int h = win.hstart; h < win.hend && !found; ++h) {
      for (int w = win.wstart; w < win.wend; ++w) {
        running += in[h * g.width + w];
        if (running >= threshold) {
          chosen = h * g.width + w;
          found = true;
          break;
        }
      }
    }
    y[index] = in[chosen];
    mask[index] = chosen;
  }
};

// STOCHASTIC, testing: the window's sum of squares over its sum; the sum
// starts at FLT_MIN so an all-zero window gives 0, not 0 / 0.
template <typename Dtype>
struct StochasticPoolTest {
  const Dtype* x;
  Dtype* y;
  PoolGeometry g;
  CAFFE_KERNEL void operator()(long index) const {
    const PoolWindow win(g, index);
    const Dtype* in = x + win.plane * g.height * g.width;
    Dtype sum = FLT_MIN, sum_sq = 0;
    for (int h = win.hstart; h < win.hend; ++h)
      for (int w = win.wstart; w < win.wend; ++w) {
        const Dtype v = in[h * g.width + w];
        sum += v;
        sum_sq += v * v;
      }
    y[index] = sum_sq / sum;
  }
};

}  // namespace caffe

#endif  // CAFFE_POOLING_KERNELS_HPP_
