// tanh_kernels.hpp: the TanH layer's kernel bodies, written once and
// run by its Forward_cpu/Backward_cpu (ForEach) and its .cu (ForEachGpu).
#ifndef CAFFE_TANH_KERNELS_HPP_
#define CAFFE_TANH_KERNELS_HPP_

#include <algorithm>
#include <cmath>

#include "caffe/util/elementwise.hpp"

namespace caffe {

namespace {

template <typename Dtype>
struct TanHForward {
  const Dtype* x;
  Dtype* y;
  CAFFE_KERNEL void operator()(long i) const { y[i] = std::tanh(x[i]); }
};

template <typename Dtype>
struct TanHBackward {
  const Dtype* y;
  const Dtype* dy;
  Dtype* dx;
  CAFFE_KERNEL void operator()(long i) const {
    dx[i] = dy[i] * (Dtype(1) - y[i] * y[i]);
  }
};

}  // namespace

}  // namespace caffe

#endif  // CAFFE_TANH_KERNELS_HPP_
