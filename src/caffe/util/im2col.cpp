#include <algorithm>
#include <vector>

#include "caffe/util/im2col.hpp"
#include "caffe/util/math_functions.hpp"

namespace caffe {

namespace {

// a in [0, b) for non-negative b, with one unsigned comparison.
inline bool InRange(int a, int b) {
  return static_cast<unsigned>(a) < static_cast<unsigned>(b);
}

// Shared traversal of the 2-D column layout.  kToCol copies image -> column
// buffer; otherwise column entries are added back onto the image.
template <typename Dtype, bool kToCol>
void Im2Col2D(const int channels, const int height, const int width,
              const int kernel_h, const int kernel_w, const int pad_h,
              const int pad_w, const int stride_h, const int stride_w,
              const int dilation_h, const int dilation_w, Dtype* im,
              Dtype* col) {
  const int output_h =
      (height + 2 * pad_h - (dilation_h * (kernel_h - 1) + 1)) / stride_h + 1;
  const int output_w =
      (width + 2 * pad_w - (dilation_w * (kernel_w - 1) + 1)) / stride_w + 1;
  const int plane = height * width;
  for (int c = 0; c < channels; ++c, im += plane) {
    for (int kh = 0; kh < kernel_h; ++kh) {
      for (int kw = 0; kw < kernel_w; ++kw) {
        int ih = kh * dilation_h - pad_h;
        for (int oh = 0; oh < output_h; ++oh, ih += stride_h) {
          if (!InRange(ih, height)) {
            if (kToCol) {
              for (int ow = 0; ow < output_w; ++ow) col[ow] = Dtype(0);
            }
            col += output_w;
            continue;
          }
          Dtype* im_row = im + ih * width;
          int iw = kw * dilation_w - pad_w;
          for (int ow = 0; ow < output_w; ++ow, iw += stride_w) {
            if (kToCol) {
              col[ow] = InRange(iw, width) ? im_row[iw] : Dtype(0);
            } else if (InRange(iw, width)) {
              im_row[iw] += col[ow];
            }
          }
          col += output_w;
        }
      }
    }
  }
}

// Shared traversal of the N-D column layout (see Im2Col2D).
template <typename Dtype, bool kToCol>
void Im2ColND(const int num_spatial_axes, const int* im_shape,
              const int* col_shape, const int* kernel_shape, const int* pad,
              const int* stride, const int* dilation, Dtype* im, Dtype* col) {
  int kernel_size = 1;
  int im_spatial = 1;
  int col_spatial = 1;
  for (int i = 0; i < num_spatial_axes; ++i) {
    kernel_size *= kernel_shape[i];
    im_spatial *= im_shape[i + 1];
    col_spatial *= col_shape[i + 1];
  }
  const int channels_col = col_shape[0];
  std::vector<int> k_offset(num_spatial_axes);
  std::vector<int> out_pos(num_spatial_axes);
  for (int c_col = 0; c_col < channels_col; ++c_col) {
    // Decompose the row index into (input channel, kernel offset per axis).
    int rest = c_col;
    for (int i = num_spatial_axes - 1; i >= 0; --i) {
      k_offset[i] = rest % kernel_shape[i];
      rest /= kernel_shape[i];
    }
    Dtype* im_c = im + static_cast<long>(c_col / kernel_size) * im_spatial;
    Dtype* col_c = col + static_cast<long>(c_col) * col_spatial;
    std::fill(out_pos.begin(), out_pos.end(), 0);
    for (int o = 0; o < col_spatial; ++o) {
      int im_index = 0;
      bool inside = true;
      for (int i = 0; i < num_spatial_axes; ++i) {
        const int p =
            out_pos[i] * stride[i] - pad[i] + k_offset[i] * dilation[i];
        if (!InRange(p, im_shape[i + 1])) {
          inside = false;
          break;
        }
        im_index = im_index * im_shape[i + 1] + p;
      }
      if (kToCol) {
        col_c[o] = inside ? im_c[im_index] : Dtype(0);
      } else if (inside) {
        im_c[im_index] += col_c[o];
      }
      // Advance the output position, last axis fastest.
      for (int i = num_spatial_axes - 1; i >= 0; --i) {
        if (++out_pos[i] < col_shape[i + 1]) break;
        out_pos[i] = 0;
      }
    }
  }
}

}  // namespace

template <typename Dtype>
void im2col_cpu(const Dtype* data_im, const int channels, const int height,
                const int width, const int kernel_h, const int kernel_w,
                const int pad_h, const int pad_w, const int stride_h,
                const int stride_w, const int dilation_h, const int dilation_w,
                Dtype* data_col) {
  // The image is only read on this path.
  Im2Col2D<Dtype, true>(channels, height, width, kernel_h, kernel_w, pad_h,
                        pad_w, stride_h, stride_w, dilation_h, dilation_w,
                        const_cast<Dtype*>(data_im), data_col);
}

template <typename Dtype>
void col2im_cpu(const Dtype* data_col, const int channels, const int height,
                const int width, const int kernel_h, const int kernel_w,
                const int pad_h, const int pad_w, const int stride_h,
                const int stride_w, const int dilation_h, const int dilation_w,
                Dtype* data_im) {
  caffe_set(height * width * channels, Dtype(0), data_im);
  Im2Col2D<Dtype, false>(channels, height, width, kernel_h, kernel_w, pad_h,
                         pad_w, stride_h, stride_w, dilation_h, dilation_w,
                         data_im, const_cast<Dtype*>(data_col));
}

template <typename Dtype>
void im2col_nd_cpu(const Dtype* data_im, const int num_spatial_axes,
                   const int* im_shape, const int* col_shape,
                   const int* kernel_shape, const int* pad, const int* stride,
                   const int* dilation, Dtype* data_col) {
  Im2ColND<Dtype, true>(num_spatial_axes, im_shape, col_shape, kernel_shape,
                        pad, stride, dilation, const_cast<Dtype*>(data_im),
                        data_col);
}

template <typename Dtype>
void col2im_nd_cpu(const Dtype* data_col, const int num_spatial_axes,
                   const int* im_shape, const int* col_shape,
                   const int* kernel_shape, const int* pad, const int* stride,
                   const int* dilation, Dtype* data_im) {
  int im_count = im_shape[0];
  for (int i = 0; i < num_spatial_axes; ++i) im_count *= im_shape[i + 1];
  caffe_set(im_count, Dtype(0), data_im);
  Im2ColND<Dtype, false>(num_spatial_axes, im_shape, col_shape, kernel_shape,
                         pad, stride, dilation, data_im,
                         const_cast<Dtype*>(data_col));
}

#define INSTANTIATE_IM2COL(T)                                                 \
  template void im2col_cpu<T>(const T*, const int, const int, const int,      \
                              const int, const int, const int, const int,     \
                              const int, const int, const int, const int, T*); \
  template void col2im_cpu<T>(const T*, const int, const int, const int,      \
                              const int, const int, const int, const int,     \
                              const int, const int, const int, const int, T*); \
  template void im2col_nd_cpu<T>(const T*, const int, const int*, const int*, \
                                 const int*, const int*, const int*,          \
                                 const int*, T*);                             \
  template void col2im_nd_cpu<T>(const T*, const int, const int*, const int*, \
                                 const int*, const int*, const int*,          \
                                 const int*, T*)

INSTANTIATE_IM2COL(float);
INSTANTIATE_IM2COL(double);

}  // namespace caffe
