// swish_compute.hpp: the Swish layer's bodies, written once over a launch
// policy (util/elementwise.hpp): swish_layer.cpp runs them with
// CpuLaunch, swish_layer.cu with GpuLaunch.
#ifndef CAFFE_SWISH_COMPUTE_HPP_
#define CAFFE_SWISH_COMPUTE_HPP_

#include <cmath>
#include <vector>

#include "caffe/layers/swish_layer.hpp"
#include "caffe/util/device_math.hpp"
#include "caffe/util/elementwise.hpp"

namespace caffe {

// s is written before y, and x read once first: y may be x (in place).
template <typename Dtype>
struct SwishForward {
  const Dtype* x;
  Dtype* s;
  Dtype* y;
  Dtype beta;
  CAFFE_KERNEL void operator()(long i) const {
    const Dtype v = x[i];
    const Dtype sig = Dtype(0.5) * std::tanh(Dtype(0.5) * (beta * v)) +
                      Dtype(0.5);
    s[i] = sig;
    y[i] = v * sig;
  }
};

template <typename Dtype>
struct SwishBackward {
  const Dtype* y;
  const Dtype* s;
  const Dtype* dy;
  Dtype* dx;
  Dtype beta;
  CAFFE_KERNEL void operator()(long i) const {
    const Dtype by = beta * y[i];
    dx[i] = dy[i] * (by + s[i] * (Dtype(1) - by));
  }
};

template <typename Dtype>
template <typename Launch>
void SwishLayer<Dtype>::ForwardWith(const Launch& launch,
                                    const vector<Blob<Dtype>*>& bottom,
                                    const vector<Blob<Dtype>*>& top) {
  const bool gpu = Launch::gpu;
  const Dtype beta = this->layer_param_.swish_param().beta();
  launch(bottom[0]->count(), GrainFor(4),
         SwishForward<Dtype>{DataOn(gpu, *bottom[0]),
                             MutableDataOn(gpu, &sigmoid_),
                             MutableDataOn(gpu, top[0]), beta});
}

template <typename Dtype>
template <typename Launch>
void SwishLayer<Dtype>::BackwardWith(const Launch& launch,
                                     const vector<Blob<Dtype>*>& top,
                                     const vector<bool>& propagate_down,
                                     const vector<Blob<Dtype>*>& bottom) {
  if (!propagate_down[0]) return;
  const bool gpu = Launch::gpu;
  const Dtype beta = this->layer_param_.swish_param().beta();
  launch(bottom[0]->count(), kElementGrain,
         SwishBackward<Dtype>{DataOn(gpu, *top[0]), DataOn(gpu, sigmoid_),
                              DiffOn(gpu, *top[0]),
                              MutableDiffOn(gpu, bottom[0]), beta});
}

}  // namespace caffe

#endif  // CAFFE_SWISH_COMPUTE_HPP_
