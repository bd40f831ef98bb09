// reduction_kernels.hpp: the Reduction layer's kernel bodies, written once
// and launched by reduction_layer.cpp with ForEachOn on either device
// (reduction_layer.cu compiles their GPU launches).
#ifndef CAFFE_REDUCTION_KERNELS_HPP_
#define CAFFE_REDUCTION_KERNELS_HPP_

#include <cmath>

#include "caffe/proto/caffe.pb.h"
#include "caffe/util/elementwise.hpp"

namespace caffe {

// One output per index: its `dim` inputs added in order, so both devices
// add in the same order.
template <typename Dtype>
struct ReductionForward {
  const Dtype* x;
  Dtype* y;
  long dim;
  int op;  // ReductionParameter_ReductionOp
  Dtype coeff;
  CAFFE_KERNEL void operator()(long i) const {
    const Dtype* row = x + i * dim;
    Dtype v = 0;
    if (op == ReductionParameter_ReductionOp_ASUM) {
      for (long j = 0; j < dim; ++j) v += std::fabs(row[j]);
    } else if (op == ReductionParameter_ReductionOp_SUMSQ) {
      for (long j = 0; j < dim; ++j) v += row[j] * row[j];
    } else {  // SUM, MEAN (coeff already divided by dim)
      for (long j = 0; j < dim; ++j) v += row[j];
    }
    y[i] = coeff * v;
  }
};

// One input per index.  x is read only by ASUM and SUMSQ (null otherwise:
// for SUM and MEAN it may already be reused memory).
template <typename Dtype>
struct ReductionBackward {
  const Dtype* x;
  const Dtype* dy;
  Dtype* dx;
  long dim;
  int op;
  Dtype coeff;
  CAFFE_KERNEL void operator()(long k) const {
    const Dtype g = coeff * dy[k / dim];
    if (op == ReductionParameter_ReductionOp_ASUM) {
      dx[k] = g * Dtype((Dtype(0) < x[k]) - (x[k] < Dtype(0)));
    } else if (op == ReductionParameter_ReductionOp_SUMSQ) {
      dx[k] = (Dtype(2) * g) * x[k];
    } else {
      dx[k] = g;
    }
  }
};

}  // namespace caffe

#endif  // CAFFE_REDUCTION_KERNELS_HPP_
