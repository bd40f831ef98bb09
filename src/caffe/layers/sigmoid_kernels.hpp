// sigmoid_kernels.hpp: the Sigmoid layer's kernel bodies, written once and
// run by its Forward_cpu/Backward_cpu (ForEach) and its .cu (ForEachGpu).
#ifndef CAFFE_SIGMOID_KERNELS_HPP_
#define CAFFE_SIGMOID_KERNELS_HPP_

#include <algorithm>
#include <cmath>

#include "caffe/util/elementwise.hpp"

namespace caffe {

namespace {

// The tanh form never overflows exp() for large |x|.
template <typename Dtype>
struct SigmoidForward {
  const Dtype* x;
  Dtype* y;
  CAFFE_KERNEL void operator()(long i) const {
    y[i] = Dtype(0.5) * std::tanh(Dtype(0.5) * x[i]) + Dtype(0.5);
  }
};

template <typename Dtype>
struct SigmoidBackward {
  const Dtype* y;
  const Dtype* dy;
  Dtype* dx;
  CAFFE_KERNEL void operator()(long i) const {
    dx[i] = dy[i] * y[i] * (Dtype(1) - y[i]);
  }
};

}  // namespace

}  // namespace caffe

#endif  // CAFFE_SIGMOID_KERNELS_HPP_
