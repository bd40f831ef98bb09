// fused_sum_relu_compute.hpp: FusedSumReLU's forward and backward, written
// once over a launch policy (util/elementwise.hpp): fused_sum_relu.cpp
// runs them with CpuLaunch, fused_sum_relu.cu with GpuLaunch.  Both are
// element-wise: element i reads and writes index i only.
#ifndef CAFFE_FUSED_SUM_RELU_COMPUTE_HPP_
#define CAFFE_FUSED_SUM_RELU_COMPUTE_HPP_

#include <vector>

#include "caffe/fused_sum_relu.hpp"
#include "caffe/layers/eltwise_layer.hpp"
#include "caffe/layers/relu_layer.hpp"
#include "caffe/util/device_math.hpp"
#include "caffe/util/elementwise.hpp"
#include "layers/relu_kernels.hpp"

namespace caffe {

// Element i of the sum and then of the ReLU: the members' expressions
// (ScaledSumOfTwoValue, ReLUValue) in one, the sum rounded to Dtype before
// the ReLU reads it as when it went through memory, and one store: a
// store read back in the same element would keep the loop from
// vectorizing.  The top may lie over a bottom (mem_param): both are read
// before it is written.
template <typename Dtype>
struct SumThenReLU {
  const Dtype* a;
  const Dtype* b;
  Dtype ca, cb;
  Dtype* y;
  Dtype slope;
  CAFFE_KERNEL Two<Dtype> Load(long i) const { return {a[i], b[i]}; }
  CAFFE_KERNEL void Store(long i, Two<Dtype> v) const {
    y[i] = ReLUValue(ScaledSumOfTwoValue(v.a, v.b, ca, cb), slope);
  }
  CAFFE_KERNEL void operator()(long i) const { Store(i, Load(i)); }
};

// Element i of the ReLU's backward (ReLUBackward, into the top's diff in
// place) and then of the sum's (c * g, as the Eltwise computes it) for the
// first `kBottoms` of dx0, dx1.
template <typename Dtype, int kBottoms>
struct ReLUThenSumBackward {
  const Dtype* x;  // the top's data
  Dtype* dy;       // the top's diff, rewritten with the ReLU's gradient
  Dtype slope;
  Dtype c0, c1;
  Dtype* dx0;
  Dtype* dx1;
  CAFFE_KERNEL Two<Dtype> Load(long i) const { return {x[i], dy[i]}; }
  CAFFE_KERNEL void Store(long i, Two<Dtype> v) const {
    const Dtype g = ReLUGradient(v.a, v.b, slope);
    dy[i] = g;
    if (kBottoms >= 1) dx0[i] = c0 * g;
    if (kBottoms >= 2) dx1[i] = c1 * g;
  }
  CAFFE_KERNEL void operator()(long i) const { Store(i, Load(i)); }
};

template <typename Dtype>
template <typename Launch>
void FusedSumReLU<Dtype>::ForwardWith(const Launch& launch) {
  const bool gpu = Launch::gpu;
  const vector<Dtype>& c = sum_->coefficients();
  Blob<Dtype>& top = *top_[0];
  const SumThenReLU<Dtype> body{DataOn(gpu, *bottoms_[0]),
                                 DataOn(gpu, *bottoms_[1]), c[0], c[1],
                                 MutableDataOn(gpu, &top), Slope()};
  launch(top.count64(), kElementGrain, body);
}

template <typename Dtype>
template <typename Launch>
void FusedSumReLU<Dtype>::BackwardWith(const Launch& launch) {
  const bool gpu = Launch::gpu;
  const vector<Dtype>& c = sum_->coefficients();
  Blob<Dtype>& top = *top_[0];
  Dtype* dy = MutableDiffOn(gpu, &top);
  const Dtype* x = DataOn(gpu, top);
  // A bottom whose diff is the top's (gradient aliasing) already holds
  // its gradient, as the Eltwise's own backward knows.
  Dtype* dx[2];
  Dtype coefficient[2];
  int writes = 0;
  for (int i = 0; i < 2; ++i) {
    Dtype* diff = MutableDiffOn(gpu, bottoms_[i]);
    if (diff == dy) continue;
    dx[writes] = diff;
    coefficient[writes++] = c[i];
  }
  const long count = top.count64();
  if (writes == 2) {
    launch(count, kElementGrain,
           ReLUThenSumBackward<Dtype, 2>{x, dy, Slope(), coefficient[0],
                                         coefficient[1], dx[0], dx[1]});
  } else if (writes == 1) {
    launch(count, kElementGrain,
           ReLUThenSumBackward<Dtype, 1>{x, dy, Slope(), coefficient[0],
                                         Dtype(0), dx[0], nullptr});
  } else {
    launch(count, kElementGrain, ReLUBackward<Dtype>{x, dy, dy, Slope()});
  }
}

}  // namespace caffe

#endif  // CAFFE_FUSED_SUM_RELU_COMPUTE_HPP_
