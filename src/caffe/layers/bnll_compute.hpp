// bnll_compute.hpp: the BNLL layer's bodies, written once over a launch
// policy (util/elementwise.hpp): bnll_layer.cpp runs them with CpuLaunch,
// bnll_layer.cu with GpuLaunch.
#ifndef CAFFE_BNLL_COMPUTE_HPP_
#define CAFFE_BNLL_COMPUTE_HPP_

#include <algorithm>
#include <cmath>
#include <vector>

#include "caffe/layers/bnll_layer.hpp"
#include "caffe/util/device_math.hpp"
#include "caffe/util/elementwise.hpp"

namespace caffe {

// y = log(1 + exp(x)), in the form that does not overflow exp().
template <typename Dtype>
struct BNLLForward {
  const Dtype* x;
  Dtype* y;
  CAFFE_KERNEL void operator()(long i) const {
    y[i] = x[i] > 0 ? x[i] + std::log(Dtype(1) + std::exp(-x[i]))
                    : std::log(Dtype(1) + std::exp(x[i]));
  }
};

// exp(x) is clamped at x = 50 in backward, as Caffe does; the derivative
// is 1 to working precision beyond it.
template <typename Dtype>
struct BNLLBackward {
  const Dtype* x;
  const Dtype* dy;
  Dtype* dx;
  CAFFE_KERNEL void operator()(long i) const {
    const Dtype e = std::exp(std::min(x[i], Dtype(50)));
    dx[i] = dy[i] * e / (e + Dtype(1));
  }
};

template <typename Dtype>
template <typename Launch>
void BNLLLayer<Dtype>::ForwardWith(const Launch& launch,
                                   const vector<Blob<Dtype>*>& bottom,
                                   const vector<Blob<Dtype>*>& top) {
  const bool gpu = Launch::gpu;
  launch(bottom[0]->count(), GrainFor(8),
         BNLLForward<Dtype>{DataOn(gpu, *bottom[0]),
                            MutableDataOn(gpu, top[0])});
}

template <typename Dtype>
template <typename Launch>
void BNLLLayer<Dtype>::BackwardWith(const Launch& launch,
                                    const vector<Blob<Dtype>*>& top,
                                    const vector<bool>& propagate_down,
                                    const vector<Blob<Dtype>*>& bottom) {
  if (!propagate_down[0]) return;
  const bool gpu = Launch::gpu;
  launch(bottom[0]->count(), GrainFor(8),
         BNLLBackward<Dtype>{DataOn(gpu, *bottom[0]), DiffOn(gpu, *top[0]),
                             MutableDiffOn(gpu, bottom[0])});
}

}  // namespace caffe

#endif  // CAFFE_BNLL_COMPUTE_HPP_
