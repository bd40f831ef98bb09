// absval_compute.hpp: the AbsVal layer's bodies, written once over a
// launch policy (util/elementwise.hpp): absval_layer.cpp runs them with
// CpuLaunch, absval_layer.cu with GpuLaunch.
#ifndef CAFFE_ABSVAL_COMPUTE_HPP_
#define CAFFE_ABSVAL_COMPUTE_HPP_

#include <cmath>
#include <vector>

#include "caffe/layers/absval_layer.hpp"
#include "caffe/util/device_math.hpp"
#include "caffe/util/elementwise.hpp"

namespace caffe {

template <typename Dtype>
struct AbsValForward {
  const Dtype* x;
  Dtype* y;
  CAFFE_KERNEL void operator()(long i) const { y[i] = std::fabs(x[i]); }
};

// dx = dy * sign(x), sign(0) = 0.
template <typename Dtype>
struct AbsValBackward {
  const Dtype* x;
  const Dtype* dy;
  Dtype* dx;
  CAFFE_KERNEL void operator()(long i) const {
    dx[i] = dy[i] * static_cast<Dtype>((Dtype(0) < x[i]) - (x[i] < Dtype(0)));
  }
};

template <typename Dtype>
template <typename Launch>
void AbsValLayer<Dtype>::ForwardWith(const Launch& launch,
                                     const vector<Blob<Dtype>*>& bottom,
                                     const vector<Blob<Dtype>*>& top) {
  const bool gpu = Launch::gpu;
  launch(bottom[0]->count(), kElementGrain,
         AbsValForward<Dtype>{DataOn(gpu, *bottom[0]),
                              MutableDataOn(gpu, top[0])});
}

template <typename Dtype>
template <typename Launch>
void AbsValLayer<Dtype>::BackwardWith(const Launch& launch,
                                      const vector<Blob<Dtype>*>& top,
                                      const vector<bool>& propagate_down,
                                      const vector<Blob<Dtype>*>& bottom) {
  if (!propagate_down[0]) return;
  const bool gpu = Launch::gpu;
  launch(bottom[0]->count(), kElementGrain,
         AbsValBackward<Dtype>{DataOn(gpu, *bottom[0]), DiffOn(gpu, *top[0]),
                               MutableDiffOn(gpu, bottom[0])});
}

}  // namespace caffe

#endif  // CAFFE_ABSVAL_COMPUTE_HPP_
