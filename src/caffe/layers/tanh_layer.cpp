#include <cmath>
#include <vector>

#include "caffe/layers/tanh_layer.hpp"
#include "caffe/util/cudnn_activation.hpp"
#include "caffe/util/elementwise.hpp"
#include "tanh_kernels.hpp"

namespace caffe {

template <typename Dtype>
void TanHLayer<Dtype>::Forward_cpu(const vector<Blob<Dtype>*>& bottom,
                                   const vector<Blob<Dtype>*>& top) {
  const TanHForward<Dtype> body{bottom[0]->cpu_data(),
                                top[0]->mutable_cpu_data()};
  ForEach(bottom[0]->count(), kElementGrain, body);
}

template <typename Dtype>
void TanHLayer<Dtype>::Backward_cpu(const vector<Blob<Dtype>*>& top,
                                    const vector<bool>& propagate_down,
                                    const vector<Blob<Dtype>*>& bottom) {
  if (!propagate_down[0]) return;
  const TanHBackward<Dtype> body{top[0]->cpu_data(), top[0]->cpu_diff(),
                                 bottom[0]->mutable_cpu_diff()};
  ForEach(bottom[0]->count(), kElementGrain, body);
}

#ifdef USE_CUDA
template <typename Dtype>
bool TanHLayer<Dtype>::CudnnForward(const vector<Blob<Dtype>*>& bottom,
                                    const vector<Blob<Dtype>*>& top) {
  if (this->layer_param_.tanh_param().engine() != TanHParameter_Engine_CUDNN)
    return false;
  CudnnActivation<Dtype>::Find(&cudnn_, CUDNN_ACTIVATION_TANH,
                               bottom[0]->count())
      ->Forward(bottom[0]->gpu_data(), top[0]->mutable_gpu_data());
  return true;
}

template <typename Dtype>
bool TanHLayer<Dtype>::CudnnBackward(const vector<Blob<Dtype>*>& top,
                                     const vector<Blob<Dtype>*>& bottom) {
  if (this->layer_param_.tanh_param().engine() != TanHParameter_Engine_CUDNN)
    return false;
  CudnnActivation<Dtype>::Find(&cudnn_, CUDNN_ACTIVATION_TANH,
                               bottom[0]->count())
      ->Backward(top[0]->gpu_data(), top[0]->gpu_diff(),
                 bottom[0]->mutable_gpu_diff());
  return true;
}
#endif  // USE_CUDA

INSTANTIATE_CLASS(TanHLayer);
REGISTER_LAYER_CLASS(TanH);

}  // namespace caffe
