// GPU launches of the im2col/col2im and bias bodies (im2col_kernels.hpp).
#include "caffe/util/channel_sums.hpp"
#include "caffe/util/elementwise.hpp"
#include "caffe/util/gpu_kernels.hpp"
#include "caffe/util/gpu_launch.cuh"
#include "caffe/util/im2col_kernels.hpp"

namespace caffe {

template <typename Dtype>
void im2col_gpu(const Dtype* im, const ConvGeometry& g, Dtype* col) {
  ForEachGpu(static_cast<long>(g.channels) * g.height_col * g.width_col,
             Im2ColBody<Dtype>{im, col, g});
}

template <typename Dtype>
void col2im_gpu(const Dtype* col, const ConvGeometry& g, Dtype* im) {
  ForEachGpu(static_cast<long>(g.channels) * g.height * g.width,
             Col2ImBody<Dtype>{col, im, g});
}

template <typename Dtype>
void im2col_nd_gpu(const Dtype* im, const ConvGeometryNd& g, Dtype* col) {
  ForEachGpu(g.col_shape[0] * g.ColSpatial(),
             Im2ColNdBody<Dtype>{im, col, g});
}

template <typename Dtype>
void col2im_nd_gpu(const Dtype* col, const ConvGeometryNd& g, Dtype* im) {
  ForEachGpu(g.im_shape[0] * g.ImSpatial(), Col2ImNdBody<Dtype>{col, im, g});
}

template <typename Dtype>
void gpu_channel_bias_add(long outer, int channels, long inner,
                          const Dtype* bias, Dtype* y) {
  ForEachGpu(outer * channels * inner,
             ChannelBiasAdd<Dtype>{y, bias, channels, inner});
}

template <typename Dtype>
void gpu_channel_sum(int outer, int channels, int inner, const Dtype* x,
                     Dtype* acc) {
  ForEachChannelGpu(channels, static_cast<long>(outer) * inner,
                    ChannelSum<Dtype, ValueTerm<Dtype> >{
                        acc, outer, channels, inner, ValueTerm<Dtype>{x}});
}

#define INSTANTIATE_IM2COL_GPU(Dtype)                                        \
  template void im2col_gpu<Dtype>(const Dtype*, const ConvGeometry&, Dtype*); \
  template void col2im_gpu<Dtype>(const Dtype*, const ConvGeometry&, Dtype*); \
  template void im2col_nd_gpu<Dtype>(const Dtype*, const ConvGeometryNd&,   \
                                     Dtype*);                               \
  template void col2im_nd_gpu<Dtype>(const Dtype*, const ConvGeometryNd&,   \
                                     Dtype*);                               \
  template void gpu_channel_bias_add<Dtype>(long, int, long, const Dtype*,   \
                                            Dtype*);                         \
  template void gpu_channel_sum<Dtype>(int, int, int, const Dtype*, Dtype*)

INSTANTIATE_IM2COL_GPU(float);
INSTANTIATE_IM2COL_GPU(double);

}  // namespace caffe
