// mvn_compute.hpp: the MVN layer's forward and backward, written once over
// a launch policy (util/elementwise.hpp): mvn_layer.cpp runs them with
// CpuLaunch, mvn_layer.cu with GpuLaunch.  One index per group, its
// elements walked in order, so both devices add in the serial loop's order
// and the CPU gives the same bits for any thread count.
#ifndef CAFFE_MVN_COMPUTE_HPP_
#define CAFFE_MVN_COMPUTE_HPP_

#include <cmath>
#include <vector>

#include "caffe/layers/mvn_layer.hpp"
#include "caffe/util/device_math.hpp"
#include "caffe/util/elementwise.hpp"

namespace caffe {

// Group g: y = x - mean, then (normalize) y /= std + eps, kept in scale[g].
// x and y may be the same memory: each element is read before written.
template <typename Dtype>
struct MVNForward {
  const Dtype* x;
  Dtype* y;
  Dtype* scale;  // null without normalize_variance
  long dim;
  Dtype eps;
  CAFFE_KERNEL void operator()(long g) const {
    const Dtype* xg = x + g * dim;
    Dtype* yg = y + g * dim;
    Dtype mean = 0;
    for (long i = 0; i < dim; ++i) mean += xg[i];
    mean /= dim;
    for (long i = 0; i < dim; ++i) yg[i] = xg[i] - mean;
    if (scale == nullptr) return;
    Dtype var = 0;
    for (long i = 0; i < dim; ++i) var += yg[i] * yg[i];
    var /= dim;
    const Dtype s = std::sqrt(var) + eps;
    scale[g] = s;
    for (long i = 0; i < dim; ++i) yg[i] /= s;
  }
};

// Group g: both sums are complete before dx (possibly dy's memory) is
// written.  y and scale are null without normalize_variance.
template <typename Dtype>
struct MVNBackward {
  const Dtype* dy;
  const Dtype* y;
  const Dtype* scale;
  Dtype* dx;
  long dim;
  CAFFE_KERNEL void operator()(long g) const {
    const Dtype* dyg = dy + g * dim;
    Dtype* dxg = dx + g * dim;
    Dtype sum_dy = 0;
    for (long i = 0; i < dim; ++i) sum_dy += dyg[i];
    if (y == nullptr) {
      const Dtype mean_dy = sum_dy / dim;
      for (long i = 0; i < dim; ++i) dxg[i] = dyg[i] - mean_dy;
      return;
    }
    const Dtype* yg = y + g * dim;
    Dtype sum_ydy = 0;
    for (long i = 0; i < dim; ++i) sum_ydy += yg[i] * dyg[i];
    const Dtype s = scale[g];
    for (long i = 0; i < dim; ++i)
      dxg[i] = (dyg[i] - (sum_dy + yg[i] * sum_ydy) / dim) / s;
  }
};

template <typename Dtype>
template <typename Launch>
void MVNLayer<Dtype>::ForwardWith(const Launch& launch,
                                  const vector<Blob<Dtype>*>& bottom,
                                  const vector<Blob<Dtype>*>& top) {
  const MVNParameter& p = this->layer_param_.mvn_param();
  const bool gpu = Launch::gpu;
  launch(groups_, GrainFor(3 * dim_),
         MVNForward<Dtype>{
             DataOn(gpu, *bottom[0]), MutableDataOn(gpu, top[0]),
             p.normalize_variance() ? MutableDataOn(gpu, &scale_) : nullptr,
             dim_, Dtype(p.eps())});
}

template <typename Dtype>
template <typename Launch>
void MVNLayer<Dtype>::BackwardWith(const Launch& launch,
                                   const vector<Blob<Dtype>*>& top,
                                   const vector<bool>& propagate_down,
                                   const vector<Blob<Dtype>*>& bottom) {
  if (!propagate_down[0]) return;
  const bool normalize = this->layer_param_.mvn_param().normalize_variance();
  const bool gpu = Launch::gpu;
  launch(groups_, GrainFor(3 * dim_),
         MVNBackward<Dtype>{DiffOn(gpu, *top[0]),
                            normalize ? DataOn(gpu, *top[0]) : nullptr,
                            normalize ? DataOn(gpu, scale_) : nullptr,
                            MutableDiffOn(gpu, bottom[0]), dim_});
}

}  // namespace caffe

#endif  // CAFFE_MVN_COMPUTE_HPP_
