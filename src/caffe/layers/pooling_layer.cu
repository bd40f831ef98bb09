// Pooling on the GPU: MAX (without the optional mask top) and AVE, 2-D,
// launches of the bodies in pooling_kernels.hpp.  STOCHASTIC pooling and a
// MAX layer with a second (mask) top run their CPU code.
#include "caffe/layers/pooling_layer.hpp"
#include "caffe/util/gpu_launch.cuh"
#include "pooling_kernels.hpp"

namespace caffe {

template <typename Dtype>
bool PoolingLayer<Dtype>::RunsOnGpu(const vector<Blob<Dtype>*>& top) const {
  const PoolingParameter_PoolMethod pool =
      this->layer_param_.pooling_param().pool();
  return (pool == PoolingParameter_PoolMethod_MAX && top.size() == 1) ||
         pool == PoolingParameter_PoolMethod_AVE;
}

template <typename Dtype>
PoolGeometry PoolingLayer<Dtype>::GpuGeometry() const {
  return PoolGeometry{height_,  width_,    pooled_height_, pooled_width_,
                      kernel_h_, kernel_w_, stride_h_,      stride_w_,
                      pad_h_,    pad_w_};
}

template <typename Dtype>
void PoolingLayer<Dtype>::Forward_gpu(const vector<Blob<Dtype>*>& bottom,
                                      const vector<Blob<Dtype>*>& top) {
  if (!RunsOnGpu(top)) return Forward_cpu(bottom, top);
  const long n = top[0]->count();
  // Sized for oneDNN when the net was shaped in CPU mode: the kernels
  // keep Caffe's int per output.
  if (mask_.count() < n) mask_.Reshape(vector<int>{static_cast<int>(n)});
  if (this->layer_param_.pooling_param().pool() ==
      PoolingParameter_PoolMethod_MAX) {
    ForEachGpu(n, MaxPoolForward<Dtype>{bottom[0]->gpu_data(),
                                        top[0]->mutable_gpu_data(),
                                        mask_.mutable_gpu_data(),
                                        GpuGeometry()});
  } else {
    ForEachGpu(n, AvePoolForward<Dtype>{bottom[0]->gpu_data(),
                                        top[0]->mutable_gpu_data(),
                                        GpuGeometry()});
  }
}

template <typename Dtype>
void PoolingLayer<Dtype>::Backward_gpu(const vector<Blob<Dtype>*>& top,
                                       const vector<bool>& propagate_down,
                                       const vector<Blob<Dtype>*>& bottom) {
  if (!propagate_down[0]) return;
  if (!RunsOnGpu(top)) return Backward_cpu(top, propagate_down, bottom);
  const long n = bottom[0]->count();
  if (this->layer_param_.pooling_param().pool() ==
      PoolingParameter_PoolMethod_MAX) {
    ForEachGpu(n, MaxPoolBackward<Dtype>{top[0]->gpu_diff(),
                                         mask_.gpu_data(),
                                         bottom[0]->mutable_gpu_diff(),
                                         GpuGeometry()});
  } else {
    ForEachGpu(n, AvePoolBackward<Dtype>{top[0]->gpu_diff(),
                                         bottom[0]->mutable_gpu_diff(),
                                         GpuGeometry()});
  }
}

INSTANTIATE_LAYER_GPU_FUNCS(PoolingLayer);
template bool PoolingLayer<float>::RunsOnGpu(
    const vector<Blob<float>*>&) const;
template bool PoolingLayer<double>::RunsOnGpu(
    const vector<Blob<double>*>&) const;

}  // namespace caffe
