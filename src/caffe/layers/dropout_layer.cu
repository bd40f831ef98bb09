// Dropout on the GPU: the mask is drawn from the same serial random stream
// as on the CPU (so a seeded GPU run drops the same units as a CPU run),
// copied to the device, and applied by the body in dropout_kernels.hpp.
#include "caffe/layers/dropout_layer.hpp"
#include "caffe/util/gpu_kernels.hpp"
#include "caffe/util/gpu_launch.cuh"
#include "dropout_kernels.hpp"

namespace caffe {

template <typename Dtype>
void DropoutLayer<Dtype>::Forward_gpu(const vector<Blob<Dtype>*>& bottom,
                                      const vector<Blob<Dtype>*>& top) {
  const int count = bottom[0]->count();
  const Dtype* x = bottom[0]->gpu_data();
  Dtype* y = top[0]->mutable_gpu_data();
  if (this->phase_ != TRAIN) {
    gpu_copy_bytes(sizeof(Dtype) * count, x, y);
    return;
  }
  caffe_rng_bernoulli<Dtype>(count, Dtype(1) - threshold_,
                             rand_vec_.mutable_cpu_data());
  ForEachGpu(count,
             DropoutApply<Dtype>{x, rand_vec_.gpu_data(), y, scale_});
}

template <typename Dtype>
void DropoutLayer<Dtype>::Backward_gpu(const vector<Blob<Dtype>*>& top,
                                       const vector<bool>& propagate_down,
                                       const vector<Blob<Dtype>*>& bottom) {
  if (!propagate_down[0]) return;
  const int count = bottom[0]->count();
  const Dtype* dy = top[0]->gpu_diff();
  Dtype* dx = bottom[0]->mutable_gpu_diff();
  if (this->phase_ != TRAIN) {
    gpu_copy_bytes(sizeof(Dtype) * count, dy, dx);
    return;
  }
  ForEachGpu(count,
             DropoutApply<Dtype>{dy, rand_vec_.gpu_data(), dx, scale_});
}

INSTANTIATE_LAYER_GPU_FUNCS(DropoutLayer);

}  // namespace caffe
