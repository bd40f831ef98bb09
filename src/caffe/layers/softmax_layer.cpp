#include "caffe/layers/softmax_layer.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "caffe/util/math_functions.hpp"

namespace caffe {

template <typename Dtype>
void SoftmaxLayer<Dtype>::Reshape(const vector<Blob<Dtype>*>& bottom,
                                  const vector<Blob<Dtype>*>& top) {
  softmax_axis_ = bottom[0]->CanonicalAxisIndex(
      this->layer_param_.softmax_param().axis());
  top[0]->ReshapeLike(*bottom[0]);
  outer_num_ = bottom[0]->count(0, softmax_axis_);
  inner_num_ = bottom[0]->count(softmax_axis_ + 1);
  scale_.resize(inner_num_);
}

template <typename Dtype>
void SoftmaxLayer<Dtype>::Forward_cpu(const vector<Blob<Dtype>*>& bottom,
                                      const vector<Blob<Dtype>*>& top) {
  const Dtype* bottom_data = bottom[0]->cpu_data();
  Dtype* top_data = top[0]->mutable_cpu_data();
  const int channels = bottom[0]->shape(softmax_axis_);
  const int dim = channels * inner_num_;
  Dtype* scale = scale_.data();
  caffe_copy(bottom[0]->count(), bottom_data, top_data);
  if (channels == 0) return;
  for (int i = 0; i < outer_num_; ++i) {
    Dtype* x = top_data + i * dim;
    // Walk channel by channel so memory is read contiguously.
    caffe_copy(inner_num_, x, scale);
    for (int c = 1; c < channels; ++c)
      for (int k = 0; k < inner_num_; ++k)
        scale[k] = std::max(scale[k], x[c * inner_num_ + k]);
    for (int c = 0; c < channels; ++c)
      for (int k = 0; k < inner_num_; ++k)
        x[c * inner_num_ + k] = std::exp(x[c * inner_num_ + k] - scale[k]);
    caffe_set(inner_num_, Dtype(0), scale);
    for (int c = 0; c < channels; ++c)
      for (int k = 0; k < inner_num_; ++k) scale[k] += x[c * inner_num_ + k];
    for (int c = 0; c < channels; ++c)
      for (int k = 0; k < inner_num_; ++k) x[c * inner_num_ + k] /= scale[k];
  }
}

template <typename Dtype>
void SoftmaxLayer<Dtype>::Backward_cpu(const vector<Blob<Dtype>*>& top,
                                       const vector<bool>& propagate_down,
                                       const vector<Blob<Dtype>*>& bottom) {
  if (!propagate_down[0]) return;
  const Dtype* top_diff = top[0]->cpu_diff();
  const Dtype* top_data = top[0]->cpu_data();
  Dtype* bottom_diff = bottom[0]->mutable_cpu_diff();
  const int channels = top[0]->shape(softmax_axis_);
  const int dim = channels * inner_num_;
  Dtype* scale = scale_.data();
  // dx = y * (dy - <dy, y>), the dot product taken along the class axis.
  for (int i = 0; i < outer_num_; ++i) {
    const Dtype* y = top_data + i * dim;
    const Dtype* dy = top_diff + i * dim;
    Dtype* dx = bottom_diff + i * dim;
    caffe_set(inner_num_, Dtype(0), scale);
    for (int c = 0; c < channels; ++c)
      for (int k = 0; k < inner_num_; ++k)
        scale[k] += dy[c * inner_num_ + k] * y[c * inner_num_ + k];
    for (int c = 0; c < channels; ++c)
      for (int k = 0; k < inner_num_; ++k)
        dx[c * inner_num_ + k] =
            y[c * inner_num_ + k] * (dy[c * inner_num_ + k] - scale[k]);
  }
}

INSTANTIATE_CLASS(SoftmaxLayer);
REGISTER_LAYER_CLASS(Softmax);

}  // namespace caffe
