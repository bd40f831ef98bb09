#include <algorithm>
#include <vector>

#include "caffe/common.hpp"
#include "caffe/util/elementwise.hpp"
#include "caffe/util/im2col.hpp"
#include "caffe/util/im2col_kernels.hpp"
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

ConvGeometryNd MakeConvGeometryNd(const int num_spatial_axes,
                                  const int* im_shape, const int* col_shape,
                                  const int* kernel_shape, const int* pad,
                                  const int* stride, const int* dilation) {
  CAFFE_CHECK(num_spatial_axes >= 0 &&
              num_spatial_axes <= kMaxConvSpatialAxes)
      << "N-D im2col: " << num_spatial_axes << " spatial axes (0 to "
      << kMaxConvSpatialAxes << " are supported)";
  ConvGeometryNd g;
  g.axes = num_spatial_axes;
  for (int d = 0; d <= num_spatial_axes; ++d) {
    g.im_shape[d] = im_shape[d];
    g.col_shape[d] = col_shape[d];
  }
  for (int d = 0; d < num_spatial_axes; ++d) {
    g.kernel[d] = kernel_shape[d];
    g.pad[d] = pad[d];
    g.stride[d] = stride[d];
    g.dilation[d] = dilation[d];
  }
  return g;
}

ConvGeometry MakeConvGeometry(int channels, const int* im_hw,
                              const int* col_hw, const int* kernel,
                              const int* pad, const int* stride,
                              const int* dilation) {
  ConvGeometry g;
  g.channels = channels;
  g.height = im_hw[0];
  g.width = im_hw[1];
  g.kernel_h = kernel[0];
  g.kernel_w = kernel[1];
  g.pad_h = pad[0];
  g.pad_w = pad[1];
  g.stride_h = stride[0];
  g.stride_w = stride[1];
  g.dilation_h = dilation[0];
  g.dilation_w = dilation[1];
  g.height_col = col_hw[0];
  g.width_col = col_hw[1];
  return g;
}

// The N-D forms run the bodies of im2col_kernels.hpp, as the GPU does.
template <typename Dtype>
void im2col_nd_cpu(const Dtype* data_im, const int num_spatial_axes,
                   const int* im_shape, const int* col_shape,
                   const int* kernel_shape, const int* pad, const int* stride,
                   const int* dilation, Dtype* data_col) {
  const ConvGeometryNd g = MakeConvGeometryNd(
      num_spatial_axes, im_shape, col_shape, kernel_shape, pad, stride,
      dilation);
  const long n = g.col_shape[0] * g.ColSpatial();
  ForEach(n, GrainFor(1), Im2ColNdBody<Dtype>{data_im, data_col, g});
}

template <typename Dtype>
void col2im_nd_cpu(const Dtype* data_col, const int num_spatial_axes,
                   const int* im_shape, const int* col_shape,
                   const int* kernel_shape, const int* pad, const int* stride,
                   const int* dilation, Dtype* data_im) {
  const ConvGeometryNd g = MakeConvGeometryNd(
      num_spatial_axes, im_shape, col_shape, kernel_shape, pad, stride,
      dilation);
  const long n = g.im_shape[0] * g.ImSpatial();
  ForEach(n, GrainFor(g.KernelSize()),
          Col2ImNdBody<Dtype>{data_col, data_im, g});
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
