// eltwise_kernels.hpp: the Eltwise layer's MAX bodies, written once and
// launched on either device by eltwise_layer.cpp (ForEachOn); the .cu
// compiles their GPU launches.  SUM and PROD use device math instead,
// except SUM's backward on the CPU (ScaledToTwo).
#ifndef CAFFE_ELTWISE_KERNELS_HPP_
#define CAFFE_ELTWISE_KERNELS_HPP_

#include "caffe/util/elementwise.hpp"

namespace caffe {

// The first two bottoms: the larger one, ties to bottom 1 (as Caffe).
template <typename Dtype>
struct EltwiseMaxOfTwo {
  const Dtype* a;
  const Dtype* b;
  Dtype* y;
  int* mask;
  CAFFE_KERNEL void operator()(long j) const {
    if (a[j] > b[j]) {
      y[j] = a[j];
      mask[j] = 0;
    } else {
      y[j] = b[j];
      mask[j] = 1;
    }
  }
};

// Bottom `index` (>= 2) replaces the running maximum where it is larger.
template <typename Dtype>
struct EltwiseMaxNext {
  const Dtype* c;
  Dtype* y;
  int* mask;
  int index;
  CAFFE_KERNEL void operator()(long j) const {
    if (c[j] > y[j]) {
      y[j] = c[j];
      mask[j] = index;
    }
  }
};

// Bottom `index` gets the top's gradient where it was the maximum.
template <typename Dtype>
struct EltwiseMaxBackward {
  const Dtype* dy;
  const int* mask;
  Dtype* dx;
  int index;
  CAFFE_KERNEL void operator()(long j) const {
    dx[j] = mask[j] == index ? dy[j] : Dtype(0);
  }
};

// SUM's backward for two bottoms in one pass over the top's gradient:
// each is c * dy, as Scaled computes it, but dy is read once for both.
template <typename Dtype>
struct ScaledToTwo {
  const Dtype* dy;
  Dtype c0, c1;
  Dtype* dx0;
  Dtype* dx1;
  CAFFE_KERNEL void operator()(long j) const {
    const Dtype g = dy[j];
    dx0[j] = c0 * g;
    dx1[j] = c1 * g;
  }
};

}  // namespace caffe

#endif  // CAFFE_ELTWISE_KERNELS_HPP_
