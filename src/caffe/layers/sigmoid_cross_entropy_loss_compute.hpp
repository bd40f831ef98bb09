// sigmoid_cross_entropy_loss_compute.hpp: the SigmoidCrossEntropyLoss
// layer's bodies, written once over a launch policy (util/elementwise.hpp):
// its .cpp runs them with CpuLaunch, its .cu with GpuLaunch.  The sigmoid
// is computed per element; the loss is one serial sum in element order (so
// the CPU gives the bits of the plain loop), read back as two numbers.
#ifndef CAFFE_SIGMOID_CROSS_ENTROPY_LOSS_COMPUTE_HPP_
#define CAFFE_SIGMOID_CROSS_ENTROPY_LOSS_COMPUTE_HPP_

#include <cmath>
#include <vector>

#include "caffe/layers/sigmoid_cross_entropy_loss_layer.hpp"
#include "caffe/util/device_math.hpp"
#include "caffe/util/elementwise.hpp"

namespace caffe {

// exp of a non-positive number only: no overflow for large |x|.
template <typename Dtype>
struct StableSigmoid {
  const Dtype* x;
  Dtype* s;
  CAFFE_KERNEL void operator()(long i) const {
    const Dtype e = std::exp(-std::fabs(x[i]));
    s[i] = x[i] >= 0 ? Dtype(1) / (Dtype(1) + e) : e / (Dtype(1) + e);
  }
};

// -[t log s(x) + (1 - t) log(1 - s(x))] = max(x, 0) - x t + log(1 + exp(-|x|)),
// summed over the elements whose target is not ignored, with their count.
template <typename Dtype>
struct SigmoidCrossEntropySum {
  const Dtype* x;
  const Dtype* target;
  Dtype* loss;
  int* valid;
  long count;
  bool has_ignore;
  int ignore;
  CAFFE_KERNEL void operator()(long) const {
    Dtype sum = 0;
    int n = 0;
    for (long i = 0; i < count; ++i) {
      if (has_ignore && static_cast<int>(target[i]) == ignore) continue;
      const Dtype e = std::exp(-std::fabs(x[i]));
      sum += (x[i] >= 0 ? x[i] : Dtype(0)) - x[i] * target[i] + std::log1p(e);
      ++n;
    }
    *loss = sum;
    *valid = n;
  }
};

template <typename Dtype>
struct SigmoidCrossEntropyGradient {
  const Dtype* s;
  const Dtype* target;
  Dtype* dx;
  Dtype scale;
  bool has_ignore;
  int ignore;
  CAFFE_KERNEL void operator()(long i) const {
    const bool ignored = has_ignore && static_cast<int>(target[i]) == ignore;
    dx[i] = ignored ? Dtype(0) : scale * (s[i] - target[i]);
  }
};

template <typename Dtype>
template <typename Launch>
void SigmoidCrossEntropyLossLayer<Dtype>::ForwardWith(
    const Launch& launch, const vector<Blob<Dtype>*>& bottom,
    const vector<Blob<Dtype>*>& top) {
  const bool gpu = Launch::gpu;
  const long count = bottom[0]->count();
  const Dtype* x = DataOn(gpu, *bottom[0]);
  launch(count, GrainFor(4),
         StableSigmoid<Dtype>{x, MutableDataOn(gpu, &sigmoid_output_)});
  launch(1, 1,
         SigmoidCrossEntropySum<Dtype>{
             x, DataOn(gpu, *bottom[1]), MutableDataOn(gpu, &loss_sum_),
             MutableDataOn(gpu, &valid_count_), count, has_ignore_label_,
             ignore_label_});
  normalizer_ = LossLayer<Dtype>::GetNormalizer(
      normalization_, outer_num_, inner_num_, valid_count_.cpu_data()[0]);
  top[0]->mutable_cpu_data()[0] = loss_sum_.cpu_data()[0] / normalizer_;
}

template <typename Dtype>
template <typename Launch>
void SigmoidCrossEntropyLossLayer<Dtype>::BackwardWith(
    const Launch& launch, const vector<Blob<Dtype>*>& top,
    const vector<bool>& propagate_down, const vector<Blob<Dtype>*>& bottom) {
  CAFFE_CHECK(!propagate_down[1])
      << "SigmoidCrossEntropyLoss layer " << this->layer_param_.name()
      << " cannot backpropagate to label inputs";
  if (!propagate_down[0]) return;
  const bool gpu = Launch::gpu;
  const Dtype scale = top[0]->cpu_diff()[0] / normalizer_;
  launch(bottom[0]->count(), kElementGrain,
         SigmoidCrossEntropyGradient<Dtype>{
             DataOn(gpu, sigmoid_output_), DataOn(gpu, *bottom[1]),
             MutableDiffOn(gpu, bottom[0]), scale, has_ignore_label_,
             ignore_label_});
}

}  // namespace caffe

#endif  // CAFFE_SIGMOID_CROSS_ENTROPY_LOSS_COMPUTE_HPP_
