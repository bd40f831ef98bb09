// Pooling on the GPU: MAX (without the optional mask top), AVE and
// STOCHASTIC, 2-D: pooling_layer.cpp launches the bodies of
// pooling_kernels.hpp through ForEachOn on either device; this file picks
// the GPU path and compiles the bodies' kernels.  A MAX layer with a
// second (mask) top and STOCHASTIC's testing backward run their CPU code.
// engine: CUDNN hands AVE to cuDNN where the layer chose it.
#include "caffe/layers/pooling_layer.hpp"
#include "caffe/util/device_launch.hpp"
#include "caffe/util/gpu_launch.cuh"
#include "pooling_kernels.hpp"

namespace caffe {

template <typename Dtype>
bool PoolingLayer<Dtype>::RunsOnGpu(const vector<Blob<Dtype>*>& top) const {
  const PoolingParameter_PoolMethod pool =
      this->layer_param_.pooling_param().pool();
  return (pool == PoolingParameter_PoolMethod_MAX && top.size() == 1) ||
         pool == PoolingParameter_PoolMethod_AVE ||
         pool == PoolingParameter_PoolMethod_STOCHASTIC;
}

template <typename Dtype>
void PoolingLayer<Dtype>::Forward_gpu(const vector<Blob<Dtype>*>& bottom,
                                      const vector<Blob<Dtype>*>& top) {
  if (!RunsOnGpu(top)) return Forward_cpu(bottom, top);
  if (cudnn_) return CudnnForward(bottom, top);
  if (this->layer_param_.pooling_param().pool() ==
      PoolingParameter_PoolMethod_STOCHASTIC)
    return StochasticForward(true, bottom, top);
  ForwardByBodies(true, bottom, top);
}

template <typename Dtype>
void PoolingLayer<Dtype>::Backward_gpu(const vector<Blob<Dtype>*>& top,
                                       const vector<bool>& propagate_down,
                                       const vector<Blob<Dtype>*>& bottom) {
  if (!propagate_down[0]) return;
  // STOCHASTIC's testing gradient (the weighted average's) runs on the CPU.
  if (!RunsOnGpu(top) || IsStochasticTest())
    return Backward_cpu(top, propagate_down, bottom);
  if (cudnn_) return CudnnBackward(top, bottom);
  // STOCHASTIC in training routes each gradient to its chosen element, as
  // MAX does to its argmax: the same gather over the mask.
  BackwardByBodies(true, top, bottom);
}

// The compact argmax (a byte per output) beside the plane index.
using MaxPoolForwardCompactF = MaxPoolForward<float, uint8_t>;
using MaxPoolForwardCompactD = MaxPoolForward<double, uint8_t>;
using MaxPoolBackwardCompactF = MaxPoolBackward<float, uint8_t>;
using MaxPoolBackwardCompactD = MaxPoolBackward<double, uint8_t>;
INSTANTIATE_GPU_BODY(MaxPoolForward<float>);
INSTANTIATE_GPU_BODY(MaxPoolForward<double>);
INSTANTIATE_GPU_BODY(MaxPoolForwardCompactF);
INSTANTIATE_GPU_BODY(MaxPoolForwardCompactD);
INSTANTIATE_GPU_BODY(AvePoolForward<float>);
INSTANTIATE_GPU_BODY(AvePoolForward<double>);
INSTANTIATE_GPU_BODY(MaxPoolBackward<float>);
INSTANTIATE_GPU_BODY(MaxPoolBackward<double>);
INSTANTIATE_GPU_BODY(MaxPoolBackwardCompactF);
INSTANTIATE_GPU_BODY(MaxPoolBackwardCompactD);
INSTANTIATE_GPU_BODY(AvePoolBackward<float>);
INSTANTIATE_GPU_BODY(AvePoolBackward<double>);
INSTANTIATE_GPU_BODY(StochasticPoolForward<float>);
INSTANTIATE_GPU_BODY(StochasticPoolForward<double>);
INSTANTIATE_GPU_BODY(StochasticPoolTest<float>);
INSTANTIATE_GPU_BODY(StochasticPoolTest<double>);
INSTANTIATE_LAYER_GPU_FUNCS(PoolingLayer);
template bool PoolingLayer<float>::RunsOnGpu(
    const vector<Blob<float>*>&) const;
template bool PoolingLayer<double>::RunsOnGpu(
    const vector<Blob<double>*>&) const;

}  // namespace caffe
