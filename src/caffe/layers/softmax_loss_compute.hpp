// softmax_loss_compute.hpp: the SoftmaxWithLoss layer's loss and
// gradient, written once over a launch policy (util/elementwise.hpp):
// softmax_loss_layer.cpp runs them with CpuLaunch, softmax_loss_layer.cu
// with GpuLaunch.  The softmax itself is the inner Softmax layer's (on the
// GPU in GPU mode); labels are checked on the host (ForwardSoftmaxAndLabels).
#ifndef CAFFE_SOFTMAX_LOSS_COMPUTE_HPP_
#define CAFFE_SOFTMAX_LOSS_COMPUTE_HPP_

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <vector>

#include "caffe/layers/softmax_loss_layer.hpp"
#include "caffe/util/device_math.hpp"
#include "caffe/util/elementwise.hpp"
#include "label_filter.hpp"

namespace caffe {

// The whole loss in one index: -sum log(max(p_label, FLT_MIN)) over the
// positions in order, divided by the normalizer -- one serial sum, so the
// CPU gives Caffe's bits and the GPU the same order.
template <typename Dtype>
struct SoftmaxLossSum {
  const Dtype* prob;
  const int* labels;
  Dtype* loss;
  int outer, inner, dim;
  LabelFilter filter;
  Dtype normalizer;
  CAFFE_KERNEL void operator()(long) const {
    Dtype sum = 0;
    for (int i = 0; i < outer; ++i) {
      for (int j = 0; j < inner; ++j) {
        const int l = labels[i * inner + j];
        if (filter.ignored(l)) continue;
        const Dtype p = prob[i * dim + l * inner + j];
        sum -= std::log(std::max(p, Dtype(FLT_MIN)));
      }
    }
    *loss = sum / normalizer;
  }
};

// Position n = i * inner + j of a diff holding the probabilities:
// prob - onehot(label), or 0 where the label is ignored.
template <typename Dtype>
struct SoftmaxLossGradient {
  Dtype* diff;
  const int* labels;
  int inner, channels, dim;
  LabelFilter filter;
  CAFFE_KERNEL void operator()(long n) const {
    const long i = n / inner, j = n % inner;
    const int l = labels[n];
    if (filter.ignored(l)) {
      for (int c = 0; c < channels; ++c) diff[i * dim + c * inner + j] = 0;
    } else {
      diff[i * dim + l * inner + j] -= 1;
    }
  }
};

template <typename Dtype>
template <typename Launch>
void SoftmaxWithLossLayer<Dtype>::ForwardWith(
    const Launch& launch, const vector<Blob<Dtype>*>& bottom,
    const vector<Blob<Dtype>*>& top) {
  this->ForwardSoftmaxAndLabels(*bottom[1]);
  const bool gpu = Launch::gpu;
  launch(1, 1,
         SoftmaxLossSum<Dtype>{
             DataOn(gpu, this->prob_), DataOn(gpu, this->labels_),
             MutableDataOn(gpu, top[0]), this->outer_num_, this->inner_num_,
             this->num_classes_ * this->inner_num_,
             LabelFilter{this->has_ignore_label_, this->ignore_label_},
             this->normalizer()});
}

template <typename Dtype>
template <typename Launch>
void SoftmaxWithLossLayer<Dtype>::BackwardWith(
    const Launch& launch, const vector<Blob<Dtype>*>& top,
    const vector<bool>& propagate_down, const vector<Blob<Dtype>*>& bottom) {
  CAFFE_CHECK(!propagate_down[1])
      << "SoftmaxWithLoss layer " << this->layer_param_.name()
      << " cannot backpropagate to label inputs";
  if (!propagate_down[0]) return;
  const bool gpu = Launch::gpu;
  Dtype* diff = MutableDiffOn(gpu, bottom[0]);
  const long count = this->prob_.count();
  CopyOn(gpu, count, DataOn(gpu, this->prob_), diff);
  launch(static_cast<long>(this->outer_num_) * this->inner_num_,
         GrainFor(this->num_classes_),
         SoftmaxLossGradient<Dtype>{
             diff, DataOn(gpu, this->labels_), this->inner_num_,
             this->num_classes_, this->num_classes_ * this->inner_num_,
             LabelFilter{this->has_ignore_label_, this->ignore_label_}});
  // The loss weight is one number: read on the host.
  const Dtype loss_weight = top[0]->cpu_diff()[0] / this->normalizer();
  ScalOn(gpu, count, loss_weight, diff);
}

}  // namespace caffe

#endif  // CAFFE_SOFTMAX_LOSS_COMPUTE_HPP_
