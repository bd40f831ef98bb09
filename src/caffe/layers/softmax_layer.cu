// Softmax on the GPU: launches of the bodies in softmax_kernels.hpp, one
// thread per position outside the class axis; or cuDNN where the layer
// chose it (engine CUDNN).
#include "caffe/layers/softmax_layer.hpp"
#include "caffe/util/gpu_launch.cuh"
#include "softmax_kernels.hpp"

namespace caffe {

template <typename Dtype>
void SoftmaxLayer<Dtype>::Forward_gpu(const vector<Blob<Dtype>*>& bottom,
                                      const vector<Blob<Dtype>*>& top) {
  const int channels = bottom[0]->shape(softmax_axis_);
  if (channels == 0) return;
  if (cudnn_) return CudnnForward(bottom, top);
  ForEachGpu(static_cast<long>(outer_num_) * inner_num_,
             SoftmaxForward<Dtype>{bottom[0]->gpu_data(),
                                   top[0]->mutable_gpu_data(), channels,
                                   inner_num_});
}

template <typename Dtype>
void SoftmaxLayer<Dtype>::Backward_gpu(const vector<Blob<Dtype>*>& top,
                                       const vector<bool>& propagate_down,
                                       const vector<Blob<Dtype>*>& bottom) {
  if (!propagate_down[0]) return;
  const int channels = top[0]->shape(softmax_axis_);
  if (channels == 0) return;
  if (cudnn_) return CudnnBackward(top, bottom);
  ForEachGpu(static_cast<long>(outer_num_) * inner_num_,
             SoftmaxBackward<Dtype>{top[0]->gpu_data(), top[0]->gpu_diff(),
                                    bottom[0]->mutable_gpu_diff(), channels,
                                    inner_num_});
}

INSTANTIATE_LAYER_GPU_FUNCS(SoftmaxLayer);

}  // namespace caffe
