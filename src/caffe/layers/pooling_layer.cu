// Pooling on the GPU: MAX (without the optional mask top), AVE and
// STOCHASTIC, 2-D, launches of the bodies in pooling_kernels.hpp (the
// STOCHASTIC ones through ForEachOn from pooling_layer.cpp).  A MAX layer
// with a second (mask) top and STOCHASTIC's testing backward run their CPU
// code.
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
  if (this->layer_param_.pooling_param().pool() ==
      PoolingParameter_PoolMethod_STOCHASTIC)
    return StochasticForward(true, bottom, top);
  const long n = top[0]->count();
  // Sized for oneDNN when the net was shaped in CPU mode: the kernels
  // keep Caffe's int per output.
  const bool mask = UsesMask();
  if (mask && mask_.count() < n)
    mask_.Reshape(vector<int>{static_cast<int>(n)});
  if (this->layer_param_.pooling_param().pool() ==
      PoolingParameter_PoolMethod_MAX) {
    ForEachGpu(n, MaxPoolForward<Dtype>{
                      bottom[0]->gpu_data(), top[0]->mutable_gpu_data(),
                      mask ? mask_.mutable_gpu_data() : nullptr, Geometry()});
  } else {
    ForEachGpu(n, AvePoolForward<Dtype>{bottom[0]->gpu_data(),
                                        top[0]->mutable_gpu_data(),
                                        Geometry()});
  }
}

template <typename Dtype>
void PoolingLayer<Dtype>::Backward_gpu(const vector<Blob<Dtype>*>& top,
                                       const vector<bool>& propagate_down,
                                       const vector<Blob<Dtype>*>& bottom) {
  if (!propagate_down[0]) return;
  // STOCHASTIC's testing gradient (the weighted average's) runs on the CPU.
  if (!RunsOnGpu(top) || IsStochasticTest())
    return Backward_cpu(top, propagate_down, bottom);
  const long n = bottom[0]->count();
  // STOCHASTIC in training routes each gradient to its chosen element, as
  // MAX does to its argmax: the same gather over the mask.
  if (this->layer_param_.pooling_param().pool() !=
      PoolingParameter_PoolMethod_AVE) {
    ForEachGpu(n, MaxPoolBackward<Dtype>{top[0]->gpu_diff(),
                                         mask_.gpu_data(),
                                         bottom[0]->mutable_gpu_diff(),
                                         Geometry()});
  } else {
    ForEachGpu(n, AvePoolBackward<Dtype>{top[0]->gpu_diff(),
                                         bottom[0]->mutable_gpu_diff(),
                                         Geometry()});
  }
}

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
