// hinge_loss_compute.hpp: the HingeLoss layer's loss and gradient, written
// once over a launch policy (util/elementwise.hpp): hinge_loss_layer.cpp
// runs them with CpuLaunch, hinge_loss_layer.cu with GpuLaunch.  Labels are
// checked on the host first (CheckLabels); the bodies read them as stored.
#ifndef CAFFE_HINGE_LOSS_COMPUTE_HPP_
#define CAFFE_HINGE_LOSS_COMPUTE_HPP_

#include <algorithm>
#include <vector>

#include "caffe/layers/hinge_loss_layer.hpp"
#include "caffe/util/device_math.hpp"
#include "caffe/util/elementwise.hpp"

namespace caffe {

// max(0, 1 - t x) with t = +1 at the label, -1 elsewhere; *t_out gets t.
template <typename Dtype>
CAFFE_KERNEL inline Dtype HingeMargin(Dtype x, bool at_label, Dtype* t_out) {
  const Dtype t = at_label ? Dtype(1) : Dtype(-1);
  *t_out = t;
  return std::max(Dtype(0), Dtype(1) - t * x);
}

// The whole loss in one index: h (or h^2) summed over items and classes in
// order, divided by N -- one serial sum, the same order on both devices.
template <typename Dtype>
struct HingeLossSum {
  const Dtype* x;
  const Dtype* label;
  Dtype* loss;
  int num, dim;
  bool l2;
  CAFFE_KERNEL void operator()(long) const {
    Dtype sum = 0;
    for (int n = 0; n < num; ++n) {
      const int l = static_cast<int>(label[n]);
      for (int k = 0; k < dim; ++k) {
        Dtype t;
        const Dtype h = HingeMargin(x[n * dim + k], k == l, &t);
        sum += l2 ? h * h : h;
      }
    }
    *loss = num > 0 ? sum / num : Dtype(0);
  }
};

// One score per index: scale * dE/dx, h recomputed from the score.
template <typename Dtype>
struct HingeLossGradient {
  const Dtype* x;
  const Dtype* label;
  Dtype* dx;
  int dim;
  bool l2;
  Dtype scale;
  CAFFE_KERNEL void operator()(long i) const {
    const long n = i / dim;
    Dtype t;
    const Dtype h =
        HingeMargin(x[i], i % dim == static_cast<long>(label[n]), &t);
    Dtype g = 0;
    if (h > 0) g = l2 ? Dtype(-2) * t * h : -t;
    dx[i] = scale * g;
  }
};

template <typename Dtype>
template <typename Launch>
void HingeLossLayer<Dtype>::ForwardWith(const Launch& launch,
                                        const vector<Blob<Dtype>*>& bottom,
                                        const vector<Blob<Dtype>*>& top) {
  const bool gpu = Launch::gpu;
  const int num = bottom[0]->shape(0);
  const int dim = num > 0 ? bottom[0]->count() / num : 0;
  CheckLabels(bottom);
  launch(1, 1,
         HingeLossSum<Dtype>{DataOn(gpu, *bottom[0]), DataOn(gpu, *bottom[1]),
                             MutableDataOn(gpu, top[0]), num, dim, L2()});
}

template <typename Dtype>
template <typename Launch>
void HingeLossLayer<Dtype>::BackwardWith(const Launch& launch,
                                         const vector<Blob<Dtype>*>& top,
                                         const vector<bool>& propagate_down,
                                         const vector<Blob<Dtype>*>& bottom) {
  CAFFE_CHECK(!propagate_down[1])
      << "HingeLoss layer " << this->layer_param_.name()
      << " cannot backpropagate to label inputs";
  if (!propagate_down[0]) return;
  const int num = bottom[0]->shape(0);
  if (num == 0) return;
  const bool gpu = Launch::gpu;
  const int dim = bottom[0]->count() / num;
  CheckLabels(bottom);
  // The loss weight is one number: read on the host.
  const Dtype scale = top[0]->cpu_diff()[0] / num;
  launch(bottom[0]->count(), GrainFor(1),
         HingeLossGradient<Dtype>{DataOn(gpu, *bottom[0]),
                                  DataOn(gpu, *bottom[1]),
                                  MutableDiffOn(gpu, bottom[0]), dim, L2(),
                                  scale});
}

}  // namespace caffe

#endif  // CAFFE_HINGE_LOSS_COMPUTE_HPP_
