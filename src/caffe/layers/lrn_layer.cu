// LRN on the GPU: ACROSS_CHANNELS launches the bodies in lrn_kernels.hpp,
// one thread per spatial position; WITHIN_CHANNEL runs its CPU code.
#include "caffe/layers/lrn_layer.hpp"
#include "caffe/util/gpu_launch.cuh"
#include "lrn_kernels.hpp"

namespace caffe {

template <typename Dtype>
void LRNLayer<Dtype>::Forward_gpu(const vector<Blob<Dtype>*>& bottom,
                                  const vector<Blob<Dtype>*>& top) {
  if (!across_channels_) return Forward_cpu(bottom, top);
  const LrnAcross g{channels_, static_cast<long>(height_) * width_, pre_pad_};
  ForEachGpu(num_ * g.plane,
             LrnAcrossForward<Dtype>{bottom[0]->gpu_data(),
                                     scale_.mutable_gpu_data(),
                                     top[0]->mutable_gpu_data(), g, k_,
                                     alpha_ / size_, NegPow<Dtype>(beta_)});
}

template <typename Dtype>
void LRNLayer<Dtype>::Backward_gpu(const vector<Blob<Dtype>*>& top,
                                   const vector<bool>& propagate_down,
                                   const vector<Blob<Dtype>*>& bottom) {
  if (!propagate_down[0]) return;
  if (!across_channels_) return Backward_cpu(top, propagate_down, bottom);
  const LrnAcross g{channels_, static_cast<long>(height_) * width_, pre_pad_};
  const Dtype coeff = alpha_ / size_;  // as the CPU: the same rounding
  ForEachGpu(num_ * g.plane,
             LrnAcrossBackward<Dtype>{bottom[0]->gpu_data(), scale_.gpu_data(),
                                      top[0]->gpu_diff(),
                                      bottom[0]->mutable_gpu_diff(), g,
                                      2 * coeff * beta_,
                                      NegPow<Dtype>(beta_)});
}

INSTANTIATE_LAYER_GPU_FUNCS(LRNLayer);

}  // namespace caffe
