// InfogainLossLayer ("InfogainLoss"): a multinomial logistic loss weighted by
// an "information gain" matrix H, so that each (true label, predicted class)
// pair can carry its own reward; H = I gives the plain log loss.
//
// Contract (Caffe 1.0, which already includes upstream PR #3855): bottom 0
// holds raw SCORES, not probabilities -- the layer applies a softmax along
// infogain_loss_param.axis (default 1) itself, as SoftmaxWithLoss does (the
// Caffe 1.0 header comment still speaks of probabilities; its code, and the
// `axis` field of the 1.0 schema, are the softmax version).  Bottom 1 holds
// one integer label in [0, K) per position of the other axes (outer * inner
// labels, K = bottom0.shape(axis)).  H is K x K (any shape with K * K
// elements, e.g. 1 x 1 x K x K), read from the binaryproto file
// infogain_loss_param.source at setup, or given as an optional bottom 2 (which
// then wins).  With p the softmax probabilities,
//   E = -1/norm sum_{positions} sum_k H[label, k] log(max(p_k, 1e-20)),
// skipping positions whose label is loss_param.ignore_label; norm follows
// loss_param.normalization (default VALID; the deprecated normalize flag is
// honoured).  The gradient w.r.t. the scores is
//   (p_k * sum_l H[label, l] - H[label, k]) / norm  (0 at ignored positions).
// An optional top 1 receives the probabilities.  Neither the labels nor H
// can be backpropagated to.
//
// Memory: forward copies the labels and H, so backward reads no bottom data;
// the probabilities are internal (InternalBytes) unless top 1 exists, in
// which case they are top 1's data and backward reads top data.
// SoftmaxLabelLossLayer holds all but H, the loss and its gradient.
#ifndef CAFFE_INFOGAIN_LOSS_LAYER_HPP_
#define CAFFE_INFOGAIN_LOSS_LAYER_HPP_

#include <vector>

#include "caffe/blob.hpp"
#include "caffe/layer.hpp"
#include "caffe/layers/loss_layer.hpp"
#include "caffe/layers/multinomial_logistic_loss_layer.hpp"
#include "caffe/layers/softmax_label_loss_layer.hpp"
#include "caffe/layers/softmax_layer.hpp"
#include "caffe/proto/caffe.pb.h"

namespace caffe {

template <typename Dtype>
class InfogainLossLayer : public SoftmaxLabelLossLayer<Dtype> {
 public:
  explicit InfogainLossLayer(const LayerParameter& param)
      : SoftmaxLabelLossLayer<Dtype>(param) {}
  void LayerSetUp(const vector<Blob<Dtype>*>& bottom,
                  const vector<Blob<Dtype>*>& top) override;
  void Reshape(const vector<Blob<Dtype>*>& bottom,
               const vector<Blob<Dtype>*>& top) override;

  const char* type() const override { return "InfogainLoss"; }
  int ExactNumBottomBlobs() const override { return -1; }
  int MinBottomBlobs() const override { return 2; }
  int MaxBottomBlobs() const override { return 3; }
  // Only the scores are differentiable (not the labels, not H).
  bool AllowForceBackward(const int bottom_index) const override {
    return bottom_index == 0;
  }

  size_t InternalBytes() const override {
    return SoftmaxLabelLossLayer<Dtype>::InternalBytes() +
           static_cast<size_t>(infogain_.count() + sum_rows_H_.count()) *
               sizeof(Dtype);
  }

 protected:
  // The inner softmax sees only the axis.
  SoftmaxParameter SoftmaxParam() const override {
    SoftmaxParameter p;
    p.set_axis(this->layer_param_.infogain_loss_param().axis());
    return p;
  }
  void Forward_cpu(const vector<Blob<Dtype>*>& bottom,
                   const vector<Blob<Dtype>*>& top) override;
  void Backward_cpu(const vector<Blob<Dtype>*>& top,
                    const vector<bool>& propagate_down,
                    const vector<Blob<Dtype>*>& bottom) override;
  DECLARE_LAUNCH_POLICY_BODIES;
  DECLARE_GPU_FORWARD_BACKWARD;

  // H (row-major, K x K): from the source file, or copied from bottom 2 by
  // each forward; and its row sums (infogain_loss_compute.hpp).
  Blob<Dtype> infogain_;
  Blob<Dtype> sum_rows_H_;
};

}  // namespace caffe

#endif  // CAFFE_INFOGAIN_LOSS_LAYER_HPP_
