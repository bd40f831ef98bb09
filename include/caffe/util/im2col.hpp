// im2col.hpp: the patch rearrangements behind convolution as a GEMM.
//
// Contract:
//  * im2col writes, for every input channel c and kernel offset k, one row of
//    the column matrix whose columns are the output positions; row index is
//    c * prod(kernel) + k (kernel offsets row-major).  Positions that fall in
//    the zero padding read as 0.  The column buffer has
//    channels * prod(kernel) rows and prod(output) columns, where
//    output = (input + 2 * pad - (dilation * (kernel - 1) + 1)) / stride + 1.
//  * col2im is the adjoint: it zeroes the image and then accumulates every
//    column entry back onto the pixel it came from (padding entries dropped).
//  * The N-D forms take im_shape = [channels, spatial...] and
//    col_shape = [channels * prod(kernel), output spatial...]; kernel_shape,
//    pad, stride and dilation each have num_spatial_axes entries (at most 10).
//    With two spatial axes they produce exactly what the 2-D forms
//    produce.  They run the bodies the GPU runs (im2col_kernels.hpp), so
//    N-D results are bit-identical across devices.
#ifndef CAFFE_UTIL_IM2COL_HPP_
#define CAFFE_UTIL_IM2COL_HPP_

namespace caffe {

struct ConvGeometry;    // util/im2col_kernels.hpp
struct ConvGeometryNd;

// The 2-D bodies' geometry: im_hw and col_hw are (height, width) of the
// image and of the output positions; kernel, pad, stride and dilation
// (height, width).
ConvGeometry MakeConvGeometry(int channels, const int* im_hw,
                              const int* col_hw, const int* kernel,
                              const int* pad, const int* stride,
                              const int* dilation);

// The N-D forms' arguments as one value (what the GPU launches take);
// throws for more than kMaxConvSpatialAxes (10) axes.
ConvGeometryNd MakeConvGeometryNd(const int num_spatial_axes,
                                  const int* im_shape, const int* col_shape,
                                  const int* kernel_shape, const int* pad,
                                  const int* stride, const int* dilation);

template <typename Dtype>
void im2col_cpu(const Dtype* data_im, const int channels, const int height,
                const int width, const int kernel_h, const int kernel_w,
                const int pad_h, const int pad_w, const int stride_h,
                const int stride_w, const int dilation_h, const int dilation_w,
                Dtype* data_col);

template <typename Dtype>
void col2im_cpu(const Dtype* data_col, const int channels, const int height,
                const int width, const int kernel_h, const int kernel_w,
                const int pad_h, const int pad_w, const int stride_h,
                const int stride_w, const int dilation_h, const int dilation_w,
                Dtype* data_im);

template <typename Dtype>
void im2col_nd_cpu(const Dtype* data_im, const int num_spatial_axes,
                   const int* im_shape, const int* col_shape,
                   const int* kernel_shape, const int* pad, const int* stride,
                   const int* dilation, Dtype* data_col);

template <typename Dtype>
void col2im_nd_cpu(const Dtype* data_col, const int num_spatial_axes,
                   const int* im_shape, const int* col_shape,
                   const int* kernel_shape, const int* pad, const int* stride,
                   const int* dilation, Dtype* data_im);

}  // namespace caffe

#endif  // CAFFE_UTIL_IM2COL_HPP_
