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
#ifndef CAFFE_SOFTMAX_LOSS_LAYER_HPP_
#define CAFFE_SOFTMAX_LOSS_LAYER_HPP_

#include <vector>

#include "caffe/blob.hpp"
#include "caffe/layer.hpp"
#include "caffe/layers/loss_layer.hpp"
#include "caffe/layers/softmax_layer.hpp"
#include "caffe/proto/caffe.pb.h"

namespace caffe {

template <typename Dtype>
class SoftmaxWithLossLayer : public LossLayer<Dtype> {
 public:
  explicit SoftmaxWithLossLayer(const LayerParameter& param)
      : LossLayer<Dtype>(param), prob_top_(param.top_size() >= 2) {}
  void LayerSetUp(const vector<Blob<Dtype>*>& bottom,
                  const vector<Blob<Dtype>*>& top) override;
  void Reshape(const vector<Blob<Dtype>*>& bottom,
               const vector<Blob<Dtype>*>& top) override;

  const char* type() const override { return "SoftmaxWithLoss"; }
  int ExactNumTopBlobs() const override { return -1; }
  int MinTopBlobs() const override { return 1; }
  int MaxTopBlobs() const override { return 2; }

  int BackwardReads() const override {
    return prob_top_ ? kReadsTopData : kReadsNothing;
  }
  bool AllowsInPlace() const override { return false; }
  size_t InternalBytes() const override {
    const size_t prob_bytes =
        prob_top_ ? 0 : static_cast<size_t>(prob_.count()) * sizeof(Dtype);
    return prob_bytes + labels_.size() * sizeof(int);
  }

 protected:
  void Forward_cpu(const vector<Blob<Dtype>*>& bottom,
                   const vector<Blob<Dtype>*>& top) override;
  void Backward_cpu(const vector<Blob<Dtype>*>& top,
                    const vector<bool>& propagate_down,
                    const vector<Blob<Dtype>*>& bottom) override;

  shared_ptr<SoftmaxLayer<Dtype> > softmax_layer_;
  Blob<Dtype> prob_;
  vector<Blob<Dtype>*> softmax_bottom_vec_;
  vector<Blob<Dtype>*> softmax_top_vec_;
  // Whether top 1 (the probabilities) exists.
  bool prob_top_;
  bool has_ignore_label_ = false;
  int ignore_label_ = 0;
  LossParameter_NormalizationMode normalization_ =
      LossParameter_NormalizationMode_VALID;
  int softmax_axis_ = 1;
  int outer_num_ = 0;
  int inner_num_ = 0;
  // Labels copied in forward, and how many were not ignored.
  vector<int> labels_;
  int valid_count_ = 0;
};

}  // namespace caffe

#endif  // CAFFE_SOFTMAX_LOSS_LAYER_HPP_
