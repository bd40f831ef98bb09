// power_compute.hpp: the Power layer's bodies, written once over a launch
// policy (util/elementwise.hpp): power_layer.cpp runs them with CpuLaunch,
// power_layer.cu with GpuLaunch.  y = (shift + scale * x)^power.
#ifndef CAFFE_POWER_COMPUTE_HPP_
#define CAFFE_POWER_COMPUTE_HPP_

#include <cmath>
#include <vector>

#include "caffe/layers/power_layer.hpp"
#include "caffe/util/device_math.hpp"
#include "caffe/util/elementwise.hpp"

namespace caffe {

template <typename Dtype>
struct PowerForward {
  const Dtype* x;
  Dtype* y;
  Dtype power, scale, shift;
  CAFFE_KERNEL void operator()(long i) const {
    Dtype v = x[i];
    if (scale != Dtype(1)) v *= scale;
    if (shift != Dtype(0)) v += shift;
    if (power != Dtype(1)) v = std::pow(v, power);
    y[i] = v;
  }
};

// How backward finds dy/dx, cheapest first (see BackwardWith).
enum class PowerGradient { kConstant, kSquare, kRatioNoShift, kRatio };

template <typename Dtype>
struct PowerBackward {
  const Dtype* x;
  const Dtype* y;
  const Dtype* dy;
  Dtype* dx;
  PowerGradient kind;
  Dtype power, scale, shift, diff_scale;
  CAFFE_KERNEL void operator()(long i) const {
    switch (kind) {
      case PowerGradient::kConstant:
        dx[i] = dy[i] * diff_scale;
        return;
      case PowerGradient::kSquare: {
        // 2 * scale * (shift + scale * x), without the top data.
        Dtype d = (diff_scale * scale) * x[i];
        if (shift != Dtype(0)) d += diff_scale * shift;
        dx[i] = dy[i] * d;
        return;
      }
      case PowerGradient::kRatioNoShift:
        // (scale * x)^p: dy/dx = power * y / x.
        dx[i] = dy[i] * (power * (y[i] / x[i]));
        return;
      case PowerGradient::kRatio: {
        Dtype v = x[i];
        if (scale != Dtype(1)) v *= scale;
        v += shift;
        Dtype d = y[i] / v;
        if (diff_scale != Dtype(1)) d *= diff_scale;
        dx[i] = dy[i] * d;
        return;
      }
    }
  }
};

template <typename Dtype>
template <typename Launch>
void PowerLayer<Dtype>::ForwardWith(const Launch& launch,
                                    const vector<Blob<Dtype>*>& bottom,
                                    const vector<Blob<Dtype>*>& top) {
  const bool gpu = Launch::gpu;
  Dtype* y = MutableDataOn(gpu, top[0]);
  if (diff_scale_ == Dtype(0)) {
    // The output does not depend on x; 0^0 is taken as 1.
    const Dtype value =
        (power_ == Dtype(0)) ? Dtype(1) : Dtype(std::pow(shift_, power_));
    SetOn(gpu, bottom[0]->count(), value, y);
    return;
  }
  launch(bottom[0]->count(), GrainFor(4),
         PowerForward<Dtype>{DataOn(gpu, *bottom[0]), y, power_, scale_,
                             shift_});
}

template <typename Dtype>
template <typename Launch>
void PowerLayer<Dtype>::BackwardWith(const Launch& launch,
                                     const vector<Blob<Dtype>*>& top,
                                     const vector<bool>& propagate_down,
                                     const vector<Blob<Dtype>*>& bottom) {
  if (!propagate_down[0]) return;
  const bool gpu = Launch::gpu;
  // Only what the kind reads is touched (the memory contract declares it).
  PowerBackward<Dtype> body{nullptr, nullptr, DiffOn(gpu, *top[0]),
                            MutableDiffOn(gpu, bottom[0]),
                            PowerGradient::kConstant, power_, scale_, shift_,
                            diff_scale_};
  if (diff_scale_ != Dtype(0) && power_ != Dtype(1)) {
    body.x = DataOn(gpu, *bottom[0]);
    if (power_ == Dtype(2)) {
      body.kind = PowerGradient::kSquare;
    } else {
      body.y = DataOn(gpu, *top[0]);
      body.kind = (shift_ == Dtype(0)) ? PowerGradient::kRatioNoShift
                                       : PowerGradient::kRatio;
    }
  }
  launch(bottom[0]->count(), kElementGrain, body);
}

}  // namespace caffe

#endif  // CAFFE_POWER_COMPUTE_HPP_
