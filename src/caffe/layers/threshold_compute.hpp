// threshold_compute.hpp: the Threshold layer's forward body, written once
// over a launch policy (util/elementwise.hpp): threshold_layer.cpp runs it
// with CpuLaunch, threshold_layer.cu with GpuLaunch.  The step function
// has no gradient, so backward only refuses to propagate.
#ifndef CAFFE_THRESHOLD_COMPUTE_HPP_
#define CAFFE_THRESHOLD_COMPUTE_HPP_

#include <vector>

#include "caffe/layers/threshold_layer.hpp"
#include "caffe/util/device_math.hpp"
#include "caffe/util/elementwise.hpp"

namespace caffe {

template <typename Dtype>
struct ThresholdForward {
  const Dtype* x;
  Dtype* y;
  Dtype threshold;
  CAFFE_KERNEL void operator()(long i) const {
    y[i] = (x[i] > threshold) ? Dtype(1) : Dtype(0);
  }
};

template <typename Dtype>
template <typename Launch>
void ThresholdLayer<Dtype>::ForwardWith(const Launch& launch,
                                        const vector<Blob<Dtype>*>& bottom,
                                        const vector<Blob<Dtype>*>& top) {
  const bool gpu = Launch::gpu;
  launch(bottom[0]->count(), kElementGrain,
         ThresholdForward<Dtype>{DataOn(gpu, *bottom[0]),
                                 MutableDataOn(gpu, top[0]), threshold_});
}

template <typename Dtype>
template <typename Launch>
void ThresholdLayer<Dtype>::BackwardWith(const Launch&,
                                         const vector<Blob<Dtype>*>& top,
                                         const vector<bool>& propagate_down,
                                         const vector<Blob<Dtype>*>& bottom) {
  for (size_t i = 0; i < propagate_down.size(); ++i) {
    CAFFE_CHECK(!propagate_down[i])
        << "Threshold layer " << this->layer_param_.name()
        << " has no backward pass (the step function has no gradient); "
        << "bottom " << i << " (shape " << bottom[i]->shape_string()
        << ") was asked to propagate down";
  }
}

}  // namespace caffe

#endif  // CAFFE_THRESHOLD_COMPUTE_HPP_
