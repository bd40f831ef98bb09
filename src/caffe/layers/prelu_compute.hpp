// prelu_compute.hpp: the PReLU layer's bodies, written once over a launch
// policy (util/elementwise.hpp): prelu_layer.cpp runs them with CpuLaunch,
// prelu_layer.cu with GpuLaunch.  Element i of a (num, channels, dim)
// bottom uses slope c = (i / dim) % channels, or slope 0 when shared.
#ifndef CAFFE_PRELU_COMPUTE_HPP_
#define CAFFE_PRELU_COMPUTE_HPP_

#include <algorithm>
#include <vector>

#include "caffe/layers/prelu_layer.hpp"
#include "caffe/util/device_math.hpp"
#include "caffe/util/elementwise.hpp"

namespace caffe {

template <typename Dtype>
struct PReLUForward {
  const Dtype* x;
  const Dtype* slope;
  Dtype* y;
  long dim, channels;  // channels 1: one shared slope
  CAFFE_KERNEL void operator()(long i) const {
    const long c = (i / dim) % channels;
    y[i] = std::max(x[i], Dtype(0)) + slope[c] * std::min(x[i], Dtype(0));
  }
};

template <typename Dtype>
struct PReLUBackward {
  const Dtype* x;
  const Dtype* slope;
  const Dtype* dy;
  Dtype* dx;
  long dim, channels;
  CAFFE_KERNEL void operator()(long i) const {
    const long c = (i / dim) % channels;
    dx[i] = dy[i] * ((x[i] > 0) + slope[c] * (x[i] <= 0));
  }
};

// Slope c's gradient: its elements in ascending index, each term added to
// the accumulating diff in turn -- the order one serial loop over the
// whole bottom adds them in, so every thread count and device gives the
// same bits.
template <typename Dtype>
struct PReLUSlopeGradient {
  const Dtype* x;
  const Dtype* dy;
  Dtype* slope_diff;
  long num, dim, channels;
  CAFFE_KERNEL void operator()(long c) const {
    Dtype acc = slope_diff[c];
    for (long n = 0; n < num; ++n) {
      const long off = (n * channels + c) * dim;
      for (long j = 0; j < dim; ++j)
        acc += dy[off + j] * x[off + j] * (x[off + j] <= 0);
    }
    slope_diff[c] = acc;
  }
};

template <typename Dtype>
template <typename Launch>
void PReLULayer<Dtype>::ForwardWith(const Launch& launch,
                                    const vector<Blob<Dtype>*>& bottom,
                                    const vector<Blob<Dtype>*>& top) {
  const bool gpu = Launch::gpu;
  const long count = bottom[0]->count();
  const Dtype* x = DataOn(gpu, *bottom[0]);
  if (bottom[0] == top[0]) {
    // In place: keep the bottom for backward.
    CopyOn(gpu, count, x, MutableDataOn(gpu, &bottom_memory_));
    x = DataOn(gpu, bottom_memory_);
  }
  const long channels = channel_shared_ ? 1 : bottom[0]->shape(1);
  const long dim = channel_shared_ ? count : bottom[0]->count(2);
  launch(count, kElementGrain,
         PReLUForward<Dtype>{x, DataOn(gpu, *this->blobs_[0]),
                             MutableDataOn(gpu, top[0]), std::max(1L, dim),
                             channels});
}

template <typename Dtype>
template <typename Launch>
void PReLULayer<Dtype>::BackwardWith(const Launch& launch,
                                     const vector<Blob<Dtype>*>& top,
                                     const vector<bool>& propagate_down,
                                     const vector<Blob<Dtype>*>& bottom) {
  const bool gpu = Launch::gpu;
  const long count = bottom[0]->count();
  const Dtype* x = DataOn(gpu, bottom[0] == top[0] ? bottom_memory_
                                                   : *bottom[0]);
  const Dtype* dy = DiffOn(gpu, *top[0]);
  const long channels = channel_shared_ ? 1 : bottom[0]->shape(1);
  const long dim = channel_shared_ ? count : bottom[0]->count(2);
  // The slope gradient first: in place, the bottom diff below overwrites
  // the top diff it needs.
  if (this->param_propagate_down_[0]) {
    const long num = channel_shared_ ? 1 : bottom[0]->shape(0);
    launch(channels, GrainFor(num * dim),
           PReLUSlopeGradient<Dtype>{
               x, dy, MutableDiffOn(gpu, this->blobs_[0].get()), num, dim,
               channels});
  }
  if (propagate_down[0]) {
    launch(count, kElementGrain,
           PReLUBackward<Dtype>{x, DataOn(gpu, *this->blobs_[0]), dy,
                                MutableDiffOn(gpu, bottom[0]),
                                std::max(1L, dim), channels});
  }
}

}  // namespace caffe

#endif  // CAFFE_PRELU_COMPUTE_HPP_
