#include <algorithm>
#include <vector>

#include "caffe/layers/relu_layer.hpp"
#include "caffe/util/elementwise.hpp"

namespace caffe {

namespace {

// y = max(x, 0) + slope * min(x, 0)
template <typename Dtype>
struct ReLUForward {
  const Dtype* x;
  Dtype* y;
  Dtype slope;
  CAFFE_KERNEL void operator()(long i) const {
    y[i] = std::max(x[i], Dtype(0)) + slope * std::min(x[i], Dtype(0));
  }
};

// The derivative at exactly 0 is taken from the negative side, as Caffe.
template <typename Dtype>
struct ReLUBackward {
  const Dtype* x;
  const Dtype* dy;
  Dtype* dx;
  Dtype slope;
  CAFFE_KERNEL void operator()(long i) const {
    dx[i] = dy[i] * ((x[i] > 0) + slope * (x[i] <= 0));
  }
};

}  // namespace

template <typename Dtype>
void ReLULayer<Dtype>::Forward_cpu(const vector<Blob<Dtype>*>& bottom,
                                   const vector<Blob<Dtype>*>& top) {
  const ReLUForward<Dtype> body{
      bottom[0]->cpu_data(), top[0]->mutable_cpu_data(),
      static_cast<Dtype>(this->layer_param_.relu_param().negative_slope())};
  ForEach(bottom[0]->count(), kElementGrain, body);
}

template <typename Dtype>
void ReLULayer<Dtype>::Backward_cpu(const vector<Blob<Dtype>*>& top,
                                    const vector<bool>& propagate_down,
                                    const vector<Blob<Dtype>*>& bottom) {
  if (!propagate_down[0]) return;
  const ReLUBackward<Dtype> body{
      bottom[0]->cpu_data(), top[0]->cpu_diff(),
      bottom[0]->mutable_cpu_diff(),
      static_cast<Dtype>(this->layer_param_.relu_param().negative_slope())};
  ForEach(bottom[0]->count(), kElementGrain, body);
}

INSTANTIATE_CLASS(ReLULayer);
REGISTER_LAYER_CLASS(ReLU);

}  // namespace caffe
