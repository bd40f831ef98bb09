// elu_compute.hpp: the ELU layer's bodies, written once over a launch
// policy (util/elementwise.hpp): elu_layer.cpp runs them with CpuLaunch,
// elu_layer.cu with GpuLaunch.
#ifndef CAFFE_ELU_COMPUTE_HPP_
#define CAFFE_ELU_COMPUTE_HPP_

#include <algorithm>
#include <cmath>
#include <vector>

#include "caffe/layers/elu_layer.hpp"
#include "caffe/util/device_math.hpp"
#include "caffe/util/elementwise.hpp"

namespace caffe {

template <typename Dtype>
struct ELUForward {
  const Dtype* x;
  Dtype* y;
  Dtype alpha;
  CAFFE_KERNEL void operator()(long i) const {
    y[i] = std::max(x[i], Dtype(0)) +
           alpha * (std::exp(std::min(x[i], Dtype(0))) - Dtype(1));
  }
};

// dx = dy for x > 0, dy * (alpha + y) otherwise; the sign of x is read
// from `sign` (the top data when alpha >= 0, see the header).
template <typename Dtype>
struct ELUBackward {
  const Dtype* y;
  const Dtype* sign;
  const Dtype* dy;
  Dtype* dx;
  Dtype alpha;
  CAFFE_KERNEL void operator()(long i) const {
    const bool positive = sign[i] > 0;
    dx[i] = dy[i] * (positive ? Dtype(1) : alpha + y[i]);
  }
};

template <typename Dtype>
template <typename Launch>
void ELULayer<Dtype>::ForwardWith(const Launch& launch,
                                  const vector<Blob<Dtype>*>& bottom,
                                  const vector<Blob<Dtype>*>& top) {
  const bool gpu = Launch::gpu;
  const Dtype alpha = this->layer_param_.elu_param().alpha();
  launch(bottom[0]->count(), GrainFor(4),
         ELUForward<Dtype>{DataOn(gpu, *bottom[0]),
                           MutableDataOn(gpu, top[0]), alpha});
}

template <typename Dtype>
template <typename Launch>
void ELULayer<Dtype>::BackwardWith(const Launch& launch,
                                   const vector<Blob<Dtype>*>& top,
                                   const vector<bool>& propagate_down,
                                   const vector<Blob<Dtype>*>& bottom) {
  if (!propagate_down[0]) return;
  const bool gpu = Launch::gpu;
  const Dtype alpha = this->layer_param_.elu_param().alpha();
  const Dtype* y = DataOn(gpu, *top[0]);
  // With alpha >= 0 the bottom data is never touched (it may be the top).
  const Dtype* sign = this->SignFromTop() ? y : DataOn(gpu, *bottom[0]);
  launch(bottom[0]->count(), kElementGrain,
         ELUBackward<Dtype>{y, sign, DiffOn(gpu, *top[0]),
                            MutableDiffOn(gpu, bottom[0]), alpha});
}

}  // namespace caffe

#endif  // CAFFE_ELU_COMPUTE_HPP_
