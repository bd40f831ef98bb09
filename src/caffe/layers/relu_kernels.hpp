// relu_kernels.hpp: the ReLU layer's kernel bodies, written once and
// run by its Forward_cpu/Backward_cpu (ForEach) and its .cu (ForEachGpu).
#ifndef CAFFE_RELU_KERNELS_HPP_
#define CAFFE_RELU_KERNELS_HPP_

#include <algorithm>
#include <cmath>

#include "caffe/util/elementwise.hpp"

namespace caffe {

// One element's value and gradient.  The fused steps (FusedChain,
// FusedSumReLU) call these too, so that fused and unfused runs make the
// same floating-point operations in the same order: the bit-identity of
// fusion rests on these two expressions existing once.
//
// y = max(x, 0) + slope * min(x, 0)
template <typename Dtype>
CAFFE_KERNEL inline Dtype ReLUValue(Dtype x, Dtype slope) {
  return std::max(x, Dtype(0)) + slope * std::min(x, Dtype(0));
}
// dx = dy * f'(x); the derivative at exactly 0 is taken from the negative
// side, as Caffe.
template <typename Dtype>
CAFFE_KERNEL inline Dtype ReLUGradient(Dtype x, Dtype dy, Dtype slope) {
  return RoundedProduct(dy, Dtype((x > 0) + slope * (x <= 0)));
}

template <typename Dtype>
struct ReLUForward {
  const Dtype* x;
  Dtype* y;
  Dtype slope;
  CAFFE_KERNEL Dtype Load(long i) const { return x[i]; }
  CAFFE_KERNEL void Store(long i, Dtype v) const { y[i] = ReLUValue(v, slope); }
  CAFFE_KERNEL void operator()(long i) const { Store(i, Load(i)); }
};

template <typename Dtype>
struct ReLUBackward {
  const Dtype* x;
  const Dtype* dy;
  Dtype* dx;
  Dtype slope;
  CAFFE_KERNEL Two<Dtype> Load(long i) const { return {x[i], dy[i]}; }
  CAFFE_KERNEL void Store(long i, Two<Dtype> v) const {
    dx[i] = ReLUGradient(v.a, v.b, slope);
  }
  CAFFE_KERNEL void operator()(long i) const { Store(i, Load(i)); }
};

}  // namespace caffe

#endif  // CAFFE_RELU_KERNELS_HPP_
