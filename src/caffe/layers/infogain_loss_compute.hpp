// infogain_loss_compute.hpp: the InfogainLoss layer's loss and gradient,
// written once over a launch policy (util/elementwise.hpp): the layer's
// .cpp runs them with CpuLaunch, its .cu with GpuLaunch.  The softmax is
// the inner Softmax layer's (on the GPU in GPU mode), the labels are
// checked on the host (ForwardSoftmaxAndLabels), H lives in a blob so both
// devices read it.
#ifndef CAFFE_INFOGAIN_LOSS_COMPUTE_HPP_
#define CAFFE_INFOGAIN_LOSS_COMPUTE_HPP_

#include <algorithm>
#include <cmath>
#include <vector>

#include "caffe/layers/infogain_loss_layer.hpp"
#include "caffe/util/device_math.hpp"
#include "caffe/util/elementwise.hpp"
#include "label_filter.hpp"

namespace caffe {

// One row of H per index: its K entries added in order.
template <typename Dtype>
struct InfogainRowSum {
  const Dtype* h;
  Dtype* sums;
  int k;
  CAFFE_KERNEL void operator()(long r) const {
    Dtype s = 0;
    for (int c = 0; c < k; ++c) s += h[r * k + c];
    sums[r] = s;
  }
};

// The whole loss in one index: -sum_k H[label, k] log(max(p_k, 1e-20))
// over the positions not ignored, in order, divided by the normalizer --
// one serial sum, the same order on both devices.
template <typename Dtype>
struct InfogainLossSum {
  const Dtype* prob;
  const int* labels;
  const Dtype* h;
  Dtype* loss;
  int outer, inner, k;
  LabelFilter filter;
  Dtype normalizer;
  CAFFE_KERNEL void operator()(long) const {
    const int dim = k * inner;
    Dtype sum = 0;
    for (int i = 0; i < outer; ++i) {
      for (int j = 0; j < inner; ++j) {
        const int l = labels[i * inner + j];
        if (filter.ignored(l)) continue;
        for (int c = 0; c < k; ++c) {
          const Dtype p =
              std::max(prob[i * dim + c * inner + j], Dtype(kLOG_THRESHOLD));
          sum -= h[l * k + c] * std::log(p);
        }
      }
    }
    *loss = sum / normalizer;
  }
};

// Position n = i * inner + j: p_c * rowsum(H)[label] - H[label, c] for
// every class c (0 where the label is ignored), not yet scaled.
template <typename Dtype>
struct InfogainLossGradient {
  const Dtype* prob;
  const int* labels;
  const Dtype* h;
  const Dtype* row_sums;
  Dtype* diff;
  int inner, k;
  LabelFilter filter;
  CAFFE_KERNEL void operator()(long n) const {
    const long i = n / inner, j = n % inner;
    const int l = labels[n];
    const bool skip = filter.ignored(l);
    for (int c = 0; c < k; ++c) {
      const long at = (i * k + c) * inner + j;
      diff[at] = skip ? Dtype(0) : prob[at] * row_sums[l] - h[l * k + c];
    }
  }
};

template <typename Dtype>
template <typename Launch>
void InfogainLossLayer<Dtype>::ForwardWith(const Launch& launch,
                                           const vector<Blob<Dtype>*>& bottom,
                                           const vector<Blob<Dtype>*>& top) {
  this->ForwardSoftmaxAndLabels(*bottom[1]);
  const bool gpu = Launch::gpu;
  const int K = this->num_classes_;
  if (bottom.size() >= 3) {
    infogain_.ReshapeLike(*bottom[2]);
    CopyOn(gpu, bottom[2]->count(), DataOn(gpu, *bottom[2]),
           MutableDataOn(gpu, &infogain_));
  }
  launch(K, GrainFor(K),
         InfogainRowSum<Dtype>{DataOn(gpu, infogain_),
                               MutableDataOn(gpu, &sum_rows_H_), K});
  launch(1, 1,
         InfogainLossSum<Dtype>{
             DataOn(gpu, this->prob_), DataOn(gpu, this->labels_),
             DataOn(gpu, infogain_), MutableDataOn(gpu, top[0]),
             this->outer_num_, this->inner_num_, K,
             LabelFilter{this->has_ignore_label_, this->ignore_label_},
             this->normalizer()});
}

template <typename Dtype>
template <typename Launch>
void InfogainLossLayer<Dtype>::BackwardWith(
    const Launch& launch, const vector<Blob<Dtype>*>& top,
    const vector<bool>& propagate_down, const vector<Blob<Dtype>*>& bottom) {
  for (size_t b = 1; b < propagate_down.size(); ++b) {
    CAFFE_CHECK(!propagate_down[b])
        << "InfogainLoss layer " << this->layer_param_.name()
        << " cannot backpropagate to "
        << (b == 1 ? "label inputs" : "the infogain matrix");
  }
  if (!propagate_down[0]) return;
  const bool gpu = Launch::gpu;
  const int K = this->num_classes_;
  Dtype* diff = MutableDiffOn(gpu, bottom[0]);
  launch(static_cast<long>(this->outer_num_) * this->inner_num_, GrainFor(K),
         InfogainLossGradient<Dtype>{
             DataOn(gpu, this->prob_), DataOn(gpu, this->labels_),
             DataOn(gpu, infogain_), DataOn(gpu, sum_rows_H_), diff,
             this->inner_num_, K,
             LabelFilter{this->has_ignore_label_, this->ignore_label_}});
  // The loss weight is one number: read on the host.
  const Dtype scale = top[0]->cpu_diff()[0] / this->normalizer();
  ScalOn(gpu, bottom[0]->count(), scale, diff);
}

}  // namespace caffe

#endif  // CAFFE_INFOGAIN_LOSS_COMPUTE_HPP_
