// relu_kernels.hpp: the ReLU layer's kernel bodies, written once and
// run by its Forward_cpu/Backward_cpu (ForEach) and its .cu (ForEachGpu).
#ifndef CAFFE_RELU_KERNELS_HPP_
#define CAFFE_RELU_KERNELS_HPP_

#include <algorithm>
#include <cmath>

#include "caffe/util/elementwise.hpp"

namespace caffe {

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

}  // namespace caffe

#endif  // CAFFE_RELU_KERNELS_HPP_
