// exp_compute.hpp: the Exp layer's bodies, written once over a launch
// policy (util/elementwise.hpp): exp_layer.cpp runs them with CpuLaunch,
// exp_layer.cu with GpuLaunch.  y = outer * exp(inner * x), with
// inner = log(base) * scale and outer = base^shift (exp_layer.cpp).
#ifndef CAFFE_EXP_COMPUTE_HPP_
#define CAFFE_EXP_COMPUTE_HPP_

#include <cmath>
#include <vector>

#include "caffe/layers/exp_layer.hpp"
#include "caffe/util/device_math.hpp"
#include "caffe/util/elementwise.hpp"

namespace caffe {

template <typename Dtype>
struct ExpForward {
  const Dtype* x;
  Dtype* y;
  Dtype inner_scale, outer_scale;
  CAFFE_KERNEL void operator()(long i) const {
    const Dtype inner = (inner_scale == Dtype(1)) ? x[i] : inner_scale * x[i];
    const Dtype e = std::exp(inner);
    y[i] = (outer_scale == Dtype(1)) ? e : outer_scale * e;
  }
};

// dx = dy * y * inner.
template <typename Dtype>
struct ExpBackward {
  const Dtype* y;
  const Dtype* dy;
  Dtype* dx;
  Dtype inner_scale;
  CAFFE_KERNEL void operator()(long i) const {
    const Dtype d = dy[i] * y[i];
    dx[i] = (inner_scale == Dtype(1)) ? d : inner_scale * d;
  }
};

template <typename Dtype>
template <typename Launch>
void ExpLayer<Dtype>::ForwardWith(const Launch& launch,
                                  const vector<Blob<Dtype>*>& bottom,
                                  const vector<Blob<Dtype>*>& top) {
  const bool gpu = Launch::gpu;
  launch(bottom[0]->count(), GrainFor(4),
         ExpForward<Dtype>{DataOn(gpu, *bottom[0]),
                           MutableDataOn(gpu, top[0]), inner_scale_,
                           outer_scale_});
}

template <typename Dtype>
template <typename Launch>
void ExpLayer<Dtype>::BackwardWith(const Launch& launch,
                                   const vector<Blob<Dtype>*>& top,
                                   const vector<bool>& propagate_down,
                                   const vector<Blob<Dtype>*>& bottom) {
  if (!propagate_down[0]) return;
  const bool gpu = Launch::gpu;
  launch(bottom[0]->count(), kElementGrain,
         ExpBackward<Dtype>{DataOn(gpu, *top[0]), DiffOn(gpu, *top[0]),
                            MutableDiffOn(gpu, bottom[0]), inner_scale_});
}

}  // namespace caffe

#endif  // CAFFE_EXP_COMPUTE_HPP_
