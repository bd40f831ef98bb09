// ReLU on the GPU: launches of the bodies in relu_kernels.hpp, or cuDNN
// where engine CUDNN asks (relu_layer.cpp).
#include "caffe/layers/relu_layer.hpp"
#include "caffe/util/gpu_launch.cuh"
#include "relu_kernels.hpp"

namespace caffe {

template <typename Dtype>
void ReLULayer<Dtype>::Forward_gpu(const vector<Blob<Dtype>*>& bottom,
                                   const vector<Blob<Dtype>*>& top) {
  if (CudnnForward(bottom, top)) return;
  ForEachGpu(bottom[0]->count64(),
             ReLUForward<Dtype>{
                 bottom[0]->gpu_data(), top[0]->mutable_gpu_data(),
                 static_cast<Dtype>(
                     this->layer_param_.relu_param().negative_slope())});
}

template <typename Dtype>
void ReLULayer<Dtype>::Backward_gpu(const vector<Blob<Dtype>*>& top,
                                    const vector<bool>& propagate_down,
                                    const vector<Blob<Dtype>*>& bottom) {
  if (!propagate_down[0]) return;
  if (CudnnBackward(top, bottom)) return;
  ForEachGpu(bottom[0]->count64(),
             ReLUBackward<Dtype>{
                 bottom[0]->gpu_data(), top[0]->gpu_diff(),
                 bottom[0]->mutable_gpu_diff(),
                 static_cast<Dtype>(
                     this->layer_param_.relu_param().negative_slope())});
}

INSTANTIATE_LAYER_GPU_FUNCS(ReLULayer);

}  // namespace caffe
