// TanH on the GPU: launches of the bodies in tanh_kernels.hpp, or cuDNN
// where engine CUDNN asks (tanh_layer.cpp).
#include "caffe/layers/tanh_layer.hpp"
#include "caffe/util/gpu_launch.cuh"
#include "tanh_kernels.hpp"

namespace caffe {

template <typename Dtype>
void TanHLayer<Dtype>::Forward_gpu(const vector<Blob<Dtype>*>& bottom,
                                      const vector<Blob<Dtype>*>& top) {
  if (CudnnForward(bottom, top)) return;
  ForEachGpu(bottom[0]->count(),
             TanHForward<Dtype>{bottom[0]->gpu_data(),
                                   top[0]->mutable_gpu_data()});
}

template <typename Dtype>
void TanHLayer<Dtype>::Backward_gpu(const vector<Blob<Dtype>*>& top,
                                       const vector<bool>& propagate_down,
                                       const vector<Blob<Dtype>*>& bottom) {
  if (!propagate_down[0]) return;
  if (CudnnBackward(top, bottom)) return;
  ForEachGpu(bottom[0]->count(),
             TanHBackward<Dtype>{top[0]->gpu_data(), top[0]->gpu_diff(),
                                    bottom[0]->mutable_gpu_diff()});
}

INSTANTIATE_LAYER_GPU_FUNCS(TanHLayer);

}  // namespace caffe
