// log_compute.hpp: the Log layer's bodies, written once over a launch
// policy (util/elementwise.hpp): log_layer.cpp runs them with CpuLaunch,
// log_layer.cu with GpuLaunch.  y = log(shift + scale * x) / log(base).
#ifndef CAFFE_LOG_COMPUTE_HPP_
#define CAFFE_LOG_COMPUTE_HPP_

#include <cmath>
#include <vector>

#include "caffe/layers/log_layer.hpp"
#include "caffe/util/device_math.hpp"
#include "caffe/util/elementwise.hpp"

namespace caffe {

// The argument of the log, shift + scale * x, skipping unit terms.
template <typename Dtype>
CAFFE_KERNEL inline Dtype LogArgument(Dtype x, Dtype scale, Dtype shift) {
  if (scale != Dtype(1)) x *= scale;
  if (shift != Dtype(0)) x += shift;
  return x;
}

template <typename Dtype>
struct LogForward {
  const Dtype* x;
  Dtype* y;
  Dtype scale, shift, base_scale;
  CAFFE_KERNEL void operator()(long i) const {
    const Dtype v = std::log(LogArgument(x[i], scale, shift));
    y[i] = (base_scale != Dtype(1)) ? base_scale * v : v;
  }
};

// dx = dy * (scale / log(base)) / (shift + scale * x).
template <typename Dtype>
struct LogBackward {
  const Dtype* x;
  const Dtype* dy;
  Dtype* dx;
  Dtype scale, shift, numerator;
  CAFFE_KERNEL void operator()(long i) const {
    Dtype d = Dtype(1) / LogArgument(x[i], scale, shift);
    if (numerator != Dtype(1)) d *= numerator;
    dx[i] = dy[i] * d;
  }
};

template <typename Dtype>
template <typename Launch>
void LogLayer<Dtype>::ForwardWith(const Launch& launch,
                                  const vector<Blob<Dtype>*>& bottom,
                                  const vector<Blob<Dtype>*>& top) {
  const bool gpu = Launch::gpu;
  launch(bottom[0]->count(), GrainFor(4),
         LogForward<Dtype>{DataOn(gpu, *bottom[0]),
                           MutableDataOn(gpu, top[0]), input_scale_,
                           input_shift_, base_scale_});
}

template <typename Dtype>
template <typename Launch>
void LogLayer<Dtype>::BackwardWith(const Launch& launch,
                                   const vector<Blob<Dtype>*>& top,
                                   const vector<bool>& propagate_down,
                                   const vector<Blob<Dtype>*>& bottom) {
  if (!propagate_down[0]) return;
  const bool gpu = Launch::gpu;
  launch(bottom[0]->count(), kElementGrain,
         LogBackward<Dtype>{DataOn(gpu, *bottom[0]), DiffOn(gpu, *top[0]),
                            MutableDiffOn(gpu, bottom[0]), input_scale_,
                            input_shift_, backward_num_scale_});
}

}  // namespace caffe

#endif  // CAFFE_LOG_COMPUTE_HPP_
