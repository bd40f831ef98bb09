// im2col_kernels.hpp: the 2-D im2col/col2im bodies (contract in
// im2col.hpp), one index per thread so they run on the GPU; ForEach runs
// the same bodies on the CPU in the tests.
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
