#include <algorithm>
#include <cmath>
#include <vector>

#include "caffe/layers/elu_layer.hpp"

namespace caffe {

template <typename Dtype>
void ELULayer<Dtype>::Forward_cpu(const vector<Blob<Dtype>*>& bottom,
                                  const vector<Blob<Dtype>*>& top) {
  const Dtype* x = bottom[0]->cpu_data();
  Dtype* y = top[0]->mutable_cpu_data();
  const int count = bottom[0]->count();
  const Dtype alpha = this->layer_param_.elu_param().alpha();
  for (int i = 0; i < count; ++i) {
    y[i] = std::max(x[i], Dtype(0)) +
           alpha * (std::exp(std::min(x[i], Dtype(0))) - Dtype(1));
  }
}

template <typename Dtype>
void ELULayer<Dtype>::Backward_cpu(const vector<Blob<Dtype>*>& top,
                                   const vector<bool>& propagate_down,
                                   const vector<Blob<Dtype>*>& bottom) {
  if (!propagate_down[0]) return;
  const Dtype* y = top[0]->cpu_data();
  const Dtype* dy = top[0]->cpu_diff();
  Dtype* dx = bottom[0]->mutable_cpu_diff();
  const int count = bottom[0]->count();
  const Dtype alpha = this->layer_param_.elu_param().alpha();
  // With alpha >= 0 the sign of y is the sign of x (see the header), so the
  // bottom data is only touched when alpha < 0.
  const Dtype* sign_src = this->SignFromTop() ? y : bottom[0]->cpu_data();
  for (int i = 0; i < count; ++i) {
    const bool positive = sign_src[i] > 0;
    dx[i] = dy[i] * (positive ? Dtype(1) : alpha + y[i]);
  }
}

INSTANTIATE_CLASS(ELULayer);
REGISTER_LAYER_CLASS(ELU);

}  // namespace caffe
