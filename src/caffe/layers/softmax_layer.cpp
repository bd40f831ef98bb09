#include "caffe/layers/softmax_layer.hpp"

#include <vector>

#include "caffe/util/cudnn_softmax.hpp"
#include "softmax_kernels.hpp"

namespace caffe {

template <typename Dtype>
void SoftmaxLayer<Dtype>::Reshape(const vector<Blob<Dtype>*>& bottom,
                                  const vector<Blob<Dtype>*>& top) {
  softmax_axis_ = bottom[0]->CanonicalAxisIndex(
      this->layer_param_.softmax_param().axis());
  top[0]->ReshapeLike(*bottom[0]);
  outer_num_ = bottom[0]->count(0, softmax_axis_);
  inner_num_ = bottom[0]->count(softmax_axis_ + 1);
  SelectCudnn(bottom[0]->shape(softmax_axis_));
}

template <typename Dtype>
void SoftmaxLayer<Dtype>::SelectCudnn(int channels) {
#ifdef USE_CUDA
  if (this->layer_param_.softmax_param().engine() !=
          SoftmaxParameter_Engine_CUDNN ||
      Caffe::mode() != Caffe::GPU || channels == 0 || outer_num_ == 0 ||
      inner_num_ == 0) {
    cudnn_.reset();
    return;
  }
  if (cudnn_ && static_cast<CudnnSoftmax<Dtype>*>(cudnn_.get())
                    ->Fits(outer_num_, channels, inner_num_))
    return;
  cudnn_ = std::make_shared<CudnnSoftmax<Dtype> >(outer_num_, channels,
                                                  inner_num_);
#else
  (void)channels;
#endif
}

#ifdef USE_CUDA
template <typename Dtype>
void SoftmaxLayer<Dtype>::CudnnForward(const vector<Blob<Dtype>*>& bottom,
                                       const vector<Blob<Dtype>*>& top) {
  static_cast<CudnnSoftmax<Dtype>*>(cudnn_.get())
      ->Forward(bottom[0]->gpu_data(), top[0]->mutable_gpu_data());
}

template <typename Dtype>
void SoftmaxLayer<Dtype>::CudnnBackward(const vector<Blob<Dtype>*>& top,
                                        const vector<Blob<Dtype>*>& bottom) {
  static_cast<CudnnSoftmax<Dtype>*>(cudnn_.get())
      ->Backward(top[0]->gpu_data(), top[0]->gpu_diff(),
                 bottom[0]->mutable_gpu_diff());
}
#endif  // USE_CUDA

template <typename Dtype>
void SoftmaxLayer<Dtype>::Forward_cpu(const vector<Blob<Dtype>*>& bottom,
                                      const vector<Blob<Dtype>*>& top) {
  const int channels = bottom[0]->shape(softmax_axis_);
  if (channels == 0) return;
  const long positions = static_cast<long>(outer_num_) * inner_num_;
  ForEach(positions, GrainFor(4L * channels),
          SoftmaxForward<Dtype>{bottom[0]->cpu_data(),
                                top[0]->mutable_cpu_data(), channels,
                                inner_num_});
}

template <typename Dtype>
void SoftmaxLayer<Dtype>::Backward_cpu(const vector<Blob<Dtype>*>& top,
                                       const vector<bool>& propagate_down,
                                       const vector<Blob<Dtype>*>& bottom) {
  if (!propagate_down[0]) return;
  const int channels = top[0]->shape(softmax_axis_);
  if (channels == 0) return;
  const long positions = static_cast<long>(outer_num_) * inner_num_;
  ForEach(positions, GrainFor(3L * channels),
          SoftmaxBackward<Dtype>{top[0]->cpu_data(), top[0]->cpu_diff(),
                                 bottom[0]->mutable_cpu_diff(), channels,
                                 inner_num_});
}

INSTANTIATE_CLASS(SoftmaxLayer);
REGISTER_LAYER_CLASS(Softmax);

}  // namespace caffe
