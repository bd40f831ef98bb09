// LRN on the GPU: the bodies in lrn_kernels.hpp, one thread per spatial
// position (ACROSS_CHANNELS) or per element (WITHIN_CHANNEL); or cuDNN
// where engine CUDNN chose it (lrn_layer.cpp).
#include "caffe/layers/lrn_layer.hpp"
#include "caffe/util/gpu_launch.cuh"
#include "lrn_kernels.hpp"

namespace caffe {

template <typename Dtype>
void LRNLayer<Dtype>::Forward_gpu(const vector<Blob<Dtype>*>& bottom,
                                  const vector<Blob<Dtype>*>& top) {
  if (cudnn_) return CudnnForward(bottom, top);
  // The scale is kept for backward only (empty when none runs).
  Dtype* kept = scale_.count() ? scale_.mutable_gpu_data() : nullptr;
  if (!across_channels_) {
    ForEachGpu(bottom[0]->count(),
               LrnWithinForward<Dtype>{
                   bottom[0]->gpu_data(), kept,
                   top[0]->mutable_gpu_data(), LrnWithin{height_, width_, pre_pad_},
                   alpha_ / (size_ * size_), NegPow<Dtype>(beta_)});
    return;
  }
  const LrnAcross g{channels_, static_cast<long>(height_) * width_, pre_pad_};
  ForEachGpu(num_ * g.plane,
             LrnAcrossForward<Dtype>{bottom[0]->gpu_data(),
                                     kept,
                                     top[0]->mutable_gpu_data(), g, k_,
                                     alpha_ / size_, NegPow<Dtype>(beta_)});
}

template <typename Dtype>
void LRNLayer<Dtype>::Backward_gpu(const vector<Blob<Dtype>*>& top,
                                   const vector<bool>& propagate_down,
                                   const vector<Blob<Dtype>*>& bottom) {
  if (!propagate_down[0]) return;
  if (cudnn_) return CudnnBackward(top, bottom);
  if (!across_channels_) {
    const Dtype coeff = alpha_ / (size_ * size_);  // as the CPU
    ForEachGpu(bottom[0]->count(),
               LrnWithinBackward<Dtype>{
                   bottom[0]->gpu_data(), scale_.gpu_data(),
                   top[0]->gpu_diff(), bottom[0]->mutable_gpu_diff(),
                   LrnWithin{height_, width_, pre_pad_}, 2 * coeff * beta_, beta_,
                   NegPow<Dtype>(beta_)});
    return;
  }
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
