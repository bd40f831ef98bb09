// MultinomialLogisticLossLayer ("MultinomialLogisticLoss"): the negative
// log-likelihood of the true class under given class probabilities,
//   E = -1/N sum_n log(max(p[n, label_n], kLOG_THRESHOLD)).
//
// Contract (Caffe 1.0): bottom 0 holds probabilities, N x K (any shape whose
// first axis is N; K = count / N); bottom 1 holds one integer label in
// [0, K) per item, N x 1 x 1 x 1 (channels, height and width 1 in the legacy
// view).  The loss is always divided by N.  Probabilities are clamped at
// kLOG_THRESHOLD (1e-20), and the gradient -w / (N * max(p, 1e-20)) at the
// label (0 elsewhere) uses the clamped value too, as Caffe does.  Labels
// cannot be backpropagated to.  Forward keeps each item's label and clamped
// probability, so backward reads no bottom data (InternalBytes).
#ifndef CAFFE_MULTINOMIAL_LOGISTIC_LOSS_LAYER_HPP_
#define CAFFE_MULTINOMIAL_LOGISTIC_LOSS_LAYER_HPP_

#include <vector>

#include "caffe/blob.hpp"
#include "caffe/layer.hpp"
#include "caffe/layers/loss_layer.hpp"
#include "caffe/proto/caffe.pb.h"

namespace caffe {

// Caffe defines this in loss_layer.hpp; LeanCaffe's loss_layer.hpp does not,
// so the probability-based loss layers share it from here.
#ifndef CAFFE_KLOG_THRESHOLD_DEFINED_
#define CAFFE_KLOG_THRESHOLD_DEFINED_
const float kLOG_THRESHOLD = 1e-20f;
#endif

template <typename Dtype>
class MultinomialLogisticLossLayer : public LossLayer<Dtype> {
 public:
  explicit MultinomialLogisticLossLayer(const LayerParameter& param)
      : LossLayer<Dtype>(param) {}
  void Reshape(const vector<Blob<Dtype>*>& bottom,
               const vector<Blob<Dtype>*>& top) override;

  const char* type() const override { return "MultinomialLogisticLoss"; }

  // The memory contract (layer.hpp MemoryContract).
  MemoryContract Memory() const override {
    MemoryContract c;
    c.backward_reads = kReadsNothing;
    return c;
  }
  size_t InternalBytes() const override {
    return static_cast<size_t>(labels_.count()) * sizeof(int) +
           static_cast<size_t>(probs_.count()) * sizeof(Dtype);
  }

 protected:
  void Forward_cpu(const vector<Blob<Dtype>*>& bottom,
                   const vector<Blob<Dtype>*>& top) override;
  void Backward_cpu(const vector<Blob<Dtype>*>& top,
                    const vector<bool>& propagate_down,
                    const vector<Blob<Dtype>*>& bottom) override;
  DECLARE_LAUNCH_POLICY_BODIES;
  DECLARE_GPU_FORWARD_BACKWARD;

  // Per item, from forward: the label (checked on the host) and the
  // clamped probability there (written by the loss body on its device).
  Blob<int> labels_;
  Blob<Dtype> probs_;
};

}  // namespace caffe

#endif  // CAFFE_MULTINOMIAL_LOGISTIC_LOSS_LAYER_HPP_
