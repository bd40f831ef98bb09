#include <algorithm>
#include <vector>

#include "caffe/layers/relu_layer.hpp"
#include "caffe/util/cudnn_activation.hpp"
#include "caffe/util/elementwise.hpp"
#include "relu_kernels.hpp"

namespace caffe {

template <typename Dtype>
void ReLULayer<Dtype>::Forward_cpu(const vector<Blob<Dtype>*>& bottom,
                                   const vector<Blob<Dtype>*>& top) {
  const ReLUForward<Dtype> body{
      bottom[0]->cpu_data(), top[0]->mutable_cpu_data(),
      static_cast<Dtype>(this->layer_param_.relu_param().negative_slope())};
  ForEach(bottom[0]->count64(), kElementGrain, body);
}

template <typename Dtype>
void ReLULayer<Dtype>::Backward_cpu(const vector<Blob<Dtype>*>& top,
                                    const vector<bool>& propagate_down,
                                    const vector<Blob<Dtype>*>& bottom) {
  if (!propagate_down[0]) return;
  const ReLUBackward<Dtype> body{
      bottom[0]->cpu_data(), top[0]->cpu_diff(),
      bottom[0]->mutable_cpu_diff(),
      static_cast<Dtype>(this->layer_param_.relu_param().negative_slope())};
  ForEach(bottom[0]->count64(), kElementGrain, body);
}

#ifdef USE_CUDA
template <typename Dtype>
bool ReLULayer<Dtype>::CudnnForward(const vector<Blob<Dtype>*>& bottom,
                                    const vector<Blob<Dtype>*>& top) {
  const ReLUParameter& p = this->layer_param_.relu_param();
  // cuDNN's descriptors count in int: a larger blob runs LeanCaffe's kernel,
  // which gives the same bits (max(x, 0) has one answer).
  if (p.engine() != ReLUParameter_Engine_CUDNN || p.negative_slope() != 0 ||
      bottom[0]->count64() > INT_MAX)
    return false;
  CudnnActivation<Dtype>::Find(&cudnn_, CUDNN_ACTIVATION_RELU,
                               bottom[0]->count())
      ->Forward(bottom[0]->gpu_data(), top[0]->mutable_gpu_data());
  return true;
}

template <typename Dtype>
bool ReLULayer<Dtype>::CudnnBackward(const vector<Blob<Dtype>*>& top,
                                     const vector<Blob<Dtype>*>& bottom) {
  const ReLUParameter& p = this->layer_param_.relu_param();
  // cuDNN's descriptors count in int: a larger blob runs LeanCaffe's kernel,
  // which gives the same bits (max(x, 0) has one answer).
  if (p.engine() != ReLUParameter_Engine_CUDNN || p.negative_slope() != 0 ||
      bottom[0]->count64() > INT_MAX)
    return false;
  // x, the bottom data the layer declares it reads (see the engine).
  CudnnActivation<Dtype>::Find(&cudnn_, CUDNN_ACTIVATION_RELU,
                               bottom[0]->count())
      ->Backward(bottom[0]->gpu_data(), top[0]->gpu_diff(),
                 bottom[0]->mutable_gpu_diff());
  return true;
}
#endif  // USE_CUDA

INSTANTIATE_CLASS(ReLULayer);
REGISTER_LAYER_CLASS(ReLU);

}  // namespace caffe
