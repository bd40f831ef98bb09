#include <cmath>
#include <vector>

#include "caffe/layers/sigmoid_layer.hpp"
#include "caffe/util/cudnn_activation.hpp"
#include "caffe/util/elementwise.hpp"
#include "sigmoid_kernels.hpp"

namespace caffe {

template <typename Dtype>
void SigmoidLayer<Dtype>::Forward_cpu(const vector<Blob<Dtype>*>& bottom,
                                      const vector<Blob<Dtype>*>& top) {
  const SigmoidForward<Dtype> body{bottom[0]->cpu_data(),
                                   top[0]->mutable_cpu_data()};
  ForEach(bottom[0]->count(), kElementGrain, body);
}

template <typename Dtype>
void SigmoidLayer<Dtype>::Backward_cpu(const vector<Blob<Dtype>*>& top,
                                       const vector<bool>& propagate_down,
                                       const vector<Blob<Dtype>*>& bottom) {
  if (!propagate_down[0]) return;
  const SigmoidBackward<Dtype> body{top[0]->cpu_data(), top[0]->cpu_diff(),
                                    bottom[0]->mutable_cpu_diff()};
  ForEach(bottom[0]->count(), kElementGrain, body);
}

#ifdef USE_CUDA
template <typename Dtype>
bool SigmoidLayer<Dtype>::CudnnForward(const vector<Blob<Dtype>*>& bottom,
                                       const vector<Blob<Dtype>*>& top) {
  if (this->layer_param_.sigmoid_param().engine() !=
      SigmoidParameter_Engine_CUDNN)
    return false;
  CudnnActivation<Dtype>::Find(&cudnn_, CUDNN_ACTIVATION_SIGMOID,
                               bottom[0]->count())
      ->Forward(bottom[0]->gpu_data(), top[0]->mutable_gpu_data());
  return true;
}

template <typename Dtype>
bool SigmoidLayer<Dtype>::CudnnBackward(const vector<Blob<Dtype>*>& top,
                                        const vector<Blob<Dtype>*>& bottom) {
  if (this->layer_param_.sigmoid_param().engine() !=
      SigmoidParameter_Engine_CUDNN)
    return false;
  CudnnActivation<Dtype>::Find(&cudnn_, CUDNN_ACTIVATION_SIGMOID,
                               bottom[0]->count())
      ->Backward(top[0]->gpu_data(), top[0]->gpu_diff(),
                 bottom[0]->mutable_gpu_diff());
  return true;
}
#endif  // USE_CUDA

INSTANTIATE_CLASS(SigmoidLayer);
REGISTER_LAYER_CLASS(Sigmoid);

}  // namespace caffe
