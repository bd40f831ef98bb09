// im2col_kernels.hpp: the im2col/col2im bodies (contract in im2col.hpp),
// one index per thread so they run on the GPU.  The 2-D ones serve the
// GPU (the CPU has a faster loop of its own; ForEach runs them in the
// tests); the N-D ones serve both devices.
//
// Im2ColBody: index = (c, h_out, w_out) writes that position's
// kernel_h * kernel_w column entries.  Col2ImBody: index = one image
// element, which gathers (no atomics, so results are deterministic) every
// column entry that came from it, in (h_col, w_col) order.
#ifndef CAFFE_UTIL_IM2COL_KERNELS_HPP_
#define CAFFE_UTIL_IM2COL_KERNELS_HPP_

#include "caffe/util/elementwise.hpp"

namespace caffe {

struct ConvGeometry {
  int channels, height, width;
  int kernel_h, kernel_w, pad_h, pad_w, stride_h, stride_w;
  int dilation_h, dilation_w;
  int height_col, width_col;
};

template <typename Dtype>
struct Im2ColBody {
  const Dtype* im;
  Dtype* col;
  ConvGeometry g;
  CAFFE_KERNEL void operator()(long index) const {
    const int w_out = static_cast<int>(index % g.width_col);
    const long rest = index / g.width_col;
    const int h_out = static_cast<int>(rest % g.height_col);
    const long c = rest / g.height_col;
    const int h_in = h_out * g.stride_h - g.pad_h;
    const int w_in = w_out * g.stride_w - g.pad_w;
    const long plane = static_cast<long>(g.height_col) * g.width_col;
    Dtype* out = col + (c * g.kernel_h * g.kernel_w) * plane +
                 static_cast<long>(h_out) * g.width_col + w_out;
    const Dtype* in = im + c * g.height * g.width;
    for (int i = 0; i < g.kernel_h; ++i) {
      const int h = h_in + i * g.dilation_h;
      for (int j = 0; j < g.kernel_w; ++j) {
        const int w = w_in + j * g.dilation_w;
        *out = (h >= 0 && w >= 0 && h < g.height && w < g.width)
                   ? in[static_cast<long>(h) * g.width + w]
                   : Dtype(0);
        out += plane;
      }
    }
  }
};

template <typename Dtype>
struct Col2ImBody {
  const Dtype* col;
  Dtype* im;
  ConvGeometry g;
  CAFFE_KERNEL void operator()(long index) const {
    const int w_im = static_cast<int>(index % g.width) + g.pad_w;
    const int h_im = static_cast<int>((index / g.width) % g.height) + g.pad_h;
    const long c_im = index / (static_cast<long>(g.width) * g.height);
    const int extent_w = (g.kernel_w - 1) * g.dilation_w + 1;
    const int extent_h = (g.kernel_h - 1) * g.dilation_h + 1;
    const int w_start = w_im < extent_w ? 0 : (w_im - extent_w) / g.stride_w + 1;
    const int w_end = w_im / g.stride_w + 1 < g.width_col
                          ? w_im / g.stride_w + 1
                          : g.width_col;
    const int h_start = h_im < extent_h ? 0 : (h_im - extent_h) / g.stride_h + 1;
    const int h_end = h_im / g.stride_h + 1 < g.height_col
                          ? h_im / g.stride_h + 1
                          : g.height_col;
    Dtype value = 0;
    for (int h_col = h_start; h_col < h_end; ++h_col) {
      for (int w_col = w_start; w_col < w_end; ++w_col) {
        int h_k = h_im - h_col * g.stride_h;
        int w_k = w_im - w_col * g.stride_w;
        if (h_k % g.dilation_h == 0 && w_k % g.dilation_w == 0) {
          h_k /= g.dilation_h;
          w_k /= g.dilation_w;
          const long row = (c_im * g.kernel_h + h_k) * g.kernel_w + w_k;
          value += col[(row * g.height_col + h_col) * g.width_col + w_col];
        }
      }
    }
    im[index] = value;
  }
};

// N-D convolution geometry (im2col.hpp's N-D forms), by value so that a
// GPU launch carries it: im_shape = [channels, spatial...], col_shape =
// [channels * prod(kernel), output spatial...].
const int kMaxConvSpatialAxes = 10;

struct ConvGeometryNd {
  int axes = 0;
  int im_shape[kMaxConvSpatialAxes + 1] = {};
  int col_shape[kMaxConvSpatialAxes + 1] = {};
  int kernel[kMaxConvSpatialAxes] = {};
  int pad[kMaxConvSpatialAxes] = {};
  int stride[kMaxConvSpatialAxes] = {};
  int dilation[kMaxConvSpatialAxes] = {};
  CAFFE_KERNEL long ImSpatial() const {
    long n = 1;
    for (int d = 0; d < axes; ++d) n *= im_shape[d + 1];
    return n;
  }
  CAFFE_KERNEL long ColSpatial() const {
    long n = 1;
    for (int d = 0; d < axes; ++d) n *= col_shape[d + 1];
    return n;
  }
  CAFFE_KERNEL int KernelSize() const {
    int n = 1;
    for (int d = 0; d < axes; ++d) n *= kernel[d];
    return n;
  }
};

// index = (column row, output position): one column entry, a copy of the
// image value it names or 0 in the padding.
template <typename Dtype>
struct Im2ColNdBody {
  const Dtype* im;
  Dtype* col;
  ConvGeometryNd g;
  CAFFE_KERNEL void operator()(long index) const {
    const long col_spatial = g.ColSpatial();
    long out = index % col_spatial;
    long row = index / col_spatial;
    long im_index = 0;  // within the channel, row-major
    bool inside = true;
    // Last axis fastest in both the output position and the kernel offset.
    long im_stride = 1;
    for (int d = g.axes - 1; d >= 0; --d) {
      const int o = static_cast<int>(out % g.col_shape[d + 1]);
      out /= g.col_shape[d + 1];
      const int k = static_cast<int>(row % g.kernel[d]);
      row /= g.kernel[d];
      const int p = o * g.stride[d] - g.pad[d] + k * g.dilation[d];
      if (p < 0 || p >= g.im_shape[d + 1]) inside = false;
      im_index += p * im_stride;
      im_stride *= g.im_shape[d + 1];
    }
    const long channel = row;
    col[index] = inside ? im[channel * g.ImSpatial() + im_index] : Dtype(0);
  }
};

// index = one image element, which sums (no atomics: deterministic) every
// column entry that came from it, kernel offsets in increasing row-major
// order -- the order im2col.cpp's CPU loop adds them in, so the sums are
// bit-identical to it.
template <typename Dtype>
struct Col2ImNdBody {
  const Dtype* col;
  Dtype* im;
  ConvGeometryNd g;
  CAFFE_KERNEL void operator()(long index) const {
    const long im_spatial = g.ImSpatial();
    const long col_spatial = g.ColSpatial();
    const long channel = index / im_spatial;
    long rest = index % im_spatial;
    // Per axis: the padded position q and the output positions that can
    // reach it, [first, last]; a larger output position means a smaller
    // kernel offset, so they are walked from last down to first.
    int q[kMaxConvSpatialAxes], first[kMaxConvSpatialAxes],
        last[kMaxConvSpatialAxes], o[kMaxConvSpatialAxes];
    bool any = true;
    for (int d = g.axes - 1; d >= 0; --d) {
      q[d] = static_cast<int>(rest % g.im_shape[d + 1]) + g.pad[d];
      rest /= g.im_shape[d + 1];
      const int extent = (g.kernel[d] - 1) * g.dilation[d] + 1;
      first[d] = q[d] < extent ? 0 : (q[d] - extent) / g.stride[d] + 1;
      last[d] = q[d] / g.stride[d] < g.col_shape[d + 1] - 1
                    ? q[d] / g.stride[d]
                    : g.col_shape[d + 1] - 1;
      if (first[d] > last[d]) any = false;
      o[d] = last[d];
    }
    Dtype value = 0;
    while (any) {
      long out = 0, krow = 0;
      bool on_grid = true;
      for (int d = 0; d < g.axes; ++d) {
        const int k = q[d] - o[d] * g.stride[d];
        if (k % g.dilation[d] != 0) on_grid = false;
        out = out * g.col_shape[d + 1] + o[d];
        krow = krow * g.kernel[d] + k / g.dilation[d];
      }
      if (on_grid) {
        const long row = channel * g.KernelSize() + krow;
        value += col[row * col_spatial + out];
      }
      // Next position: last axis fastest, each axis counting down.
      int d = g.axes - 1;
      while (d >= 0 && o[d] == first[d]) {
        o[d] = last[d];
        --d;
      }
      if (d < 0) break;
      --o[d];
    }
    im[index] = value;
  }
};

// y[i] += bias[(i / inner) % channels]: a convolution's bias over a batch.
template <typename Dtype>
struct ChannelBiasAdd {
  Dtype* y;
  const Dtype* bias;
  int channels;
  long inner;
  CAFFE_KERNEL void operator()(long i) const {
    y[i] += bias[(i / inner) % channels];
  }
};

}  // namespace caffe

#endif  // CAFFE_UTIL_IM2COL_KERNELS_HPP_
