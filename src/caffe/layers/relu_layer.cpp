#include <algorithm>
#include <vector>

#include "caffe/layers/relu_layer.hpp"

namespace caffe {

template <typename Dtype>
void ReLULayer<Dtype>::Forward_cpu(const vector<Blob<Dtype>*>& bottom,
                                   const vector<Blob<Dtype>*>& top) {
  const Dtype* x = bottom[0]->cpu_data();
  Dtype* y = top[0]->mutable_cpu_data();
  const int count = bottom[0]->count();
  const Dtype slope = this->layer_param_.relu_param().negative_slope();
  for (int i = 0; i < count; ++i)
    y[i] = std::max(x[i], Dtype(0)) + slope * std::min(x[i], Dtype(0));
}

template <typename Dtype>
void ReLULayer<Dtype>::Backward_cpu(const vector<Blob<Dtype>*>& top,
                                    const vector<bool>& propagate_down,
                                    const vector<Blob<Dtype>*>& bottom) {
  if (!propagate_down[0]) return;
  const Dtype* x = bottom[0]->cpu_data();
  const Dtype* dy = top[0]->cpu_diff();
  Dtype* dx = bottom[0]->mutable_cpu_diff();
  const int count = bottom[0]->count();
  const Dtype slope = this->layer_param_.relu_param().negative_slope();
  // The derivative at exactly 0 is taken from the negative side, as Caffe.
  for (int i = 0; i < count; ++i)
    dx[i] = dy[i] * ((x[i] > 0) + slope * (x[i] <= 0));
}

INSTANTIATE_CLASS(ReLULayer);
REGISTER_LAYER_CLASS(ReLU);

}  // namespace caffe
