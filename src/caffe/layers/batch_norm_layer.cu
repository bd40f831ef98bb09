// BatchNorm on the GPU: the bodies of batch_norm_compute.hpp with GpuLaunch.
#include "batch_norm_compute.hpp"
#include "caffe/util/gpu_launch.cuh"

namespace caffe {

template <typename Dtype>
void BatchNormLayer<Dtype>::Forward_gpu(const vector<Blob<Dtype>*>& bottom,
                                        const vector<Blob<Dtype>*>& top) {
  ForwardWith(GpuLaunch(), bottom, top);
}

template <typename Dtype>
void BatchNormLayer<Dtype>::Backward_gpu(const vector<Blob<Dtype>*>& top,
                                         const vector<bool>& propagate_down,
                                         const vector<Blob<Dtype>*>& bottom) {
  BackwardWith(GpuLaunch(), top, propagate_down, bottom);
}

INSTANTIATE_LAYER_GPU_FUNCS(BatchNormLayer);

}  // namespace caffe
