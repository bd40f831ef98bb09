// clip_compute.hpp: the Clip layer's bodies, written once over a launch
// policy (util/elementwise.hpp): clip_layer.cpp runs them with CpuLaunch,
// clip_layer.cu with GpuLaunch.
#ifndef CAFFE_CLIP_COMPUTE_HPP_
#define CAFFE_CLIP_COMPUTE_HPP_

#include <vector>

#include "caffe/layers/clip_layer.hpp"
#include "caffe/util/device_math.hpp"
#include "caffe/util/elementwise.hpp"

namespace caffe {

// The pass flag is taken before y is written: y may be x (in place).
template <typename Dtype>
struct ClipForward {
  const Dtype* x;
  Dtype* y;
  unsigned int* passed;
  Dtype lo, hi;
  CAFFE_KERNEL void operator()(long i) const {
    const Dtype v = x[i];
    passed[i] = (v >= lo && v <= hi) ? 1u : 0u;
    y[i] = v < lo ? lo : (v > hi ? hi : v);
  }
};

template <typename Dtype>
struct ClipBackward {
  const unsigned int* passed;
  const Dtype* dy;
  Dtype* dx;
  CAFFE_KERNEL void operator()(long i) const {
    dx[i] = passed[i] ? dy[i] : Dtype(0);
  }
};

template <typename Dtype>
template <typename Launch>
void ClipLayer<Dtype>::ForwardWith(const Launch& launch,
                                   const vector<Blob<Dtype>*>& bottom,
                                   const vector<Blob<Dtype>*>& top) {
  const bool gpu = Launch::gpu;
  const ClipParameter& p = this->layer_param_.clip_param();
  unsigned int* passed =
      gpu ? passed_.mutable_gpu_data() : passed_.mutable_cpu_data();
  launch(bottom[0]->count(), kElementGrain,
         ClipForward<Dtype>{DataOn(gpu, *bottom[0]), MutableDataOn(gpu, top[0]),
                            passed, Dtype(p.min()), Dtype(p.max())});
}

template <typename Dtype>
template <typename Launch>
void ClipLayer<Dtype>::BackwardWith(const Launch& launch,
                                    const vector<Blob<Dtype>*>& top,
                                    const vector<bool>& propagate_down,
                                    const vector<Blob<Dtype>*>& bottom) {
  if (!propagate_down[0]) return;
  const bool gpu = Launch::gpu;
  const unsigned int* passed = gpu ? passed_.gpu_data() : passed_.cpu_data();
  launch(bottom[0]->count(), kElementGrain,
         ClipBackward<Dtype>{passed, DiffOn(gpu, *top[0]),
                             MutableDiffOn(gpu, bottom[0])});
}

}  // namespace caffe

#endif  // CAFFE_CLIP_COMPUTE_HPP_
