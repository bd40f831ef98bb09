// Sigmoid on the GPU: launches of the bodies in sigmoid_kernels.hpp, or
// cuDNN where engine CUDNN asks (sigmoid_layer.cpp).
#include "caffe/layers/sigmoid_layer.hpp"
#include "caffe/util/gpu_launch.cuh"
#include "sigmoid_kernels.hpp"

namespace caffe {

template <typename Dtype>
void SigmoidLayer<Dtype>::Forward_gpu(const vector<Blob<Dtype>*>& bottom,
                                      const vector<Blob<Dtype>*>& top) {
  if (CudnnForward(bottom, top)) return;
  ForEachGpu(bottom[0]->count(),
             SigmoidForward<Dtype>{bottom[0]->gpu_data(),
                                   top[0]->mutable_gpu_data()});
}

template <typename Dtype>
void SigmoidLayer<Dtype>::Backward_gpu(const vector<Blob<Dtype>*>& top,
                                       const vector<bool>& propagate_down,
                                       const vector<Blob<Dtype>*>& bottom) {
  if (!propagate_down[0]) return;
  if (CudnnBackward(top, bottom)) return;
  ForEachGpu(bottom[0]->count(),
             SigmoidBackward<Dtype>{top[0]->gpu_data(), top[0]->gpu_diff(),
                                    bottom[0]->mutable_gpu_diff()});
}

INSTANTIATE_LAYER_GPU_FUNCS(SigmoidLayer);

}  // namespace caffe
