// SoftmaxWithLossLayer ("SoftmaxWithLoss"): softmax followed by the
// multinomial logistic (cross-entropy) loss, fused for a stable gradient.
//
// Contract: bottom 0 holds scores with the class axis softmax_param.axis
// (default 1); bottom 1 holds one integer label in [0, classes) per position
// of the other axes (outer * inner labels), except that labels equal to
// loss_param.ignore_label are skipped.  Top 0 is the loss, divided as
// loss_param.normalization says (default VALID; the deprecated normalize
// flag is honoured).  An optional top 1 receives the probabilities.
// Backward reads only the internal probabilities and the labels it copied in
// forward, so neither bottom's data needs to survive until backward.  With
// top 1 the probabilities are that top's data (shared), so backward then
// reads top data; without it they are internal memory (InternalBytes).
// SoftmaxLabelLossLayer holds all but the loss and its gradient.
#ifndef CAFFE_SOFTMAX_LOSS_LAYER_HPP_
#define CAFFE_SOFTMAX_LOSS_LAYER_HPP_

#include <vector>

#include "caffe/blob.hpp"
#include "caffe/layer.hpp"
#include "caffe/layers/loss_layer.hpp"
#include "caffe/layers/softmax_label_loss_layer.hpp"
#include "caffe/layers/softmax_layer.hpp"
#include "caffe/proto/caffe.pb.h"

namespace caffe {

template <typename Dtype>
class SoftmaxWithLossLayer : public SoftmaxLabelLossLayer<Dtype> {
 public:
  explicit SoftmaxWithLossLayer(const LayerParameter& param)
      : SoftmaxLabelLossLayer<Dtype>(param) {}

  const char* type() const override { return "SoftmaxWithLoss"; }

 protected:
  SoftmaxParameter SoftmaxParam() const override {
    return this->layer_param_.softmax_param();
  }
  void Forward_cpu(const vector<Blob<Dtype>*>& bottom,
                   const vector<Blob<Dtype>*>& top) override;
  void Backward_cpu(const vector<Blob<Dtype>*>& top,
                    const vector<bool>& propagate_down,
                    const vector<Blob<Dtype>*>& bottom) override;
  DECLARE_LAUNCH_POLICY_BODIES;
  DECLARE_GPU_FORWARD_BACKWARD;
};

}  // namespace caffe

#endif  // CAFFE_SOFTMAX_LOSS_LAYER_HPP_
