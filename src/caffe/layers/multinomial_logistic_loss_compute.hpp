// multinomial_logistic_loss_compute.hpp: the MultinomialLogisticLoss
// layer's loss and gradient, written once over a launch policy
// (util/elementwise.hpp): the layer's .cpp runs them with CpuLaunch, its
// .cu with GpuLaunch.  Labels are checked and kept on the host; the
// clamped probabilities are kept on the device that computed them.
#ifndef CAFFE_MULTINOMIAL_LOGISTIC_LOSS_COMPUTE_HPP_
#define CAFFE_MULTINOMIAL_LOGISTIC_LOSS_COMPUTE_HPP_

#include <algorithm>
#include <cmath>
#include <vector>

#include "caffe/layers/multinomial_logistic_loss_layer.hpp"
#include "caffe/util/device_math.hpp"
#include "caffe/util/elementwise.hpp"

namespace caffe {

// The whole loss in one index: -log of each item's clamped probability at
// its label, summed in item order and divided by N (Caffe's order on both
// devices); keeps the clamped probabilities for backward.
template <typename Dtype>
struct MultinomialLogisticLossSum {
  const Dtype* prob;
  const int* labels;
  Dtype* kept_prob;
  Dtype* loss;
  int num, dim;
  CAFFE_KERNEL void operator()(long) const {
    Dtype sum = 0;
    for (int i = 0; i < num; ++i) {
      kept_prob[i] =
          std::max(prob[i * dim + labels[i]], Dtype(kLOG_THRESHOLD));
      sum -= std::log(kept_prob[i]);
    }
    *loss = num > 0 ? sum / num : Dtype(0);
  }
};

// One item per index: the gradient at its label (the rest is zeroed
// before).
template <typename Dtype>
struct MultinomialLogisticLossGradient {
  const int* labels;
  const Dtype* kept_prob;
  Dtype* diff;
  int dim;
  Dtype scale;
  CAFFE_KERNEL void operator()(long i) const {
    diff[i * dim + labels[i]] = scale / kept_prob[i];
  }
};

template <typename Dtype>
template <typename Launch>
void MultinomialLogisticLossLayer<Dtype>::ForwardWith(
    const Launch& launch, const vector<Blob<Dtype>*>& bottom,
    const vector<Blob<Dtype>*>& top) {
  const int num = bottom[0]->shape(0);
  const int dim = num > 0 ? bottom[0]->count() / num : 0;
  const Dtype* label = bottom[1]->cpu_data();
  int* labels = labels_.mutable_cpu_data();
  for (int i = 0; i < num; ++i) {
    const int l = static_cast<int>(label[i]);
    CAFFE_CHECK(l >= 0 && l < dim)
        << "MultinomialLogisticLoss layer " << this->layer_param_.name()
        << ": label " << label[i] << " of item " << i << " is outside [0, "
        << dim << ") for probabilities of shape "
        << bottom[0]->shape_string();
    labels[i] = l;
  }
  const bool gpu = Launch::gpu;
  launch(1, 1,
         MultinomialLogisticLossSum<Dtype>{
             DataOn(gpu, *bottom[0]), DataOn(gpu, labels_),
             MutableDataOn(gpu, &probs_), MutableDataOn(gpu, top[0]), num,
             dim});
}

template <typename Dtype>
template <typename Launch>
void MultinomialLogisticLossLayer<Dtype>::BackwardWith(
    const Launch& launch, const vector<Blob<Dtype>*>& top,
    const vector<bool>& propagate_down, const vector<Blob<Dtype>*>& bottom) {
  CAFFE_CHECK(!propagate_down[1])
      << "MultinomialLogisticLoss layer " << this->layer_param_.name()
      << " cannot backpropagate to label inputs";
  if (!propagate_down[0]) return;
  const bool gpu = Launch::gpu;
  const int num = bottom[0]->shape(0);
  Dtype* diff = MutableDiffOn(gpu, bottom[0]);
  SetOn(gpu, bottom[0]->count(), Dtype(0), diff);
  if (num == 0) return;
  // The loss weight is one number: read on the host.
  const Dtype scale = -top[0]->cpu_diff()[0] / num;
  launch(num, GrainFor(1),
         MultinomialLogisticLossGradient<Dtype>{
             DataOn(gpu, labels_), DataOn(gpu, probs_), diff,
             bottom[0]->count() / num, scale});
}

}  // namespace caffe

#endif  // CAFFE_MULTINOMIAL_LOGISTIC_LOSS_COMPUTE_HPP_
