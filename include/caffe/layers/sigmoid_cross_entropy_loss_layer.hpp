// SigmoidCrossEntropyLossLayer ("SigmoidCrossEntropyLoss"): logistic loss
// on independent binary targets, computed from logits in a stable form.
//
// Contract: bottom 0 holds logits x, bottom 1 targets t in [0, 1] with the
// same count.  The loss is -sum(t log s(x) + (1 - t) log(1 - s(x))) over
// elements whose integer target differs from loss_param.ignore_label, divided
// per loss_param.normalization; when neither normalization nor the deprecated
// normalize is given it divides by the batch size (axis 0), as Caffe 1.0
// always did.  Forward keeps s(x) internally (InternalBytes); backward reads
// it and the target data (bottom data).
#ifndef CAFFE_SIGMOID_CROSS_ENTROPY_LOSS_LAYER_HPP_
#define CAFFE_SIGMOID_CROSS_ENTROPY_LOSS_LAYER_HPP_

#include <vector>

#include "caffe/blob.hpp"
#include "caffe/layer.hpp"
#include "caffe/layers/loss_layer.hpp"
#include "caffe/proto/caffe.pb.h"

namespace caffe {

template <typename Dtype>
class SigmoidCrossEntropyLossLayer : public LossLayer<Dtype> {
 public:
  explicit SigmoidCrossEntropyLossLayer(const LayerParameter& param)
      : LossLayer<Dtype>(param) {}
  void LayerSetUp(const vector<Blob<Dtype>*>& bottom,
                  const vector<Blob<Dtype>*>& top) override;
  void Reshape(const vector<Blob<Dtype>*>& bottom,
               const vector<Blob<Dtype>*>& top) override;

  const char* type() const override { return "SigmoidCrossEntropyLoss"; }

  // The memory contract (layer.hpp MemoryContract).
  MemoryContract Memory() const override {
    MemoryContract c;
    c.backward_reads = kReadsBottomData;
    return c;
  }
  size_t InternalBytes() const override {
    return static_cast<size_t>(sigmoid_output_.count()) * sizeof(Dtype);
  }
  void KeptMemory(vector<SyncedMemory*>* kept) const override {
    this->KeepBlobMemory(sigmoid_output_, kept);
  }

 protected:
  void Forward_cpu(const vector<Blob<Dtype>*>& bottom,
                   const vector<Blob<Dtype>*>& top) override;
  void Backward_cpu(const vector<Blob<Dtype>*>& top,
                    const vector<bool>& propagate_down,
                    const vector<Blob<Dtype>*>& bottom) override;
  DECLARE_LAUNCH_POLICY_BODIES;
  DECLARE_GPU_FORWARD_BACKWARD;

  Blob<Dtype> sigmoid_output_;
  // The last forward's summed loss and number of counted elements (one
  // number each, written on the device that computed them).
  Blob<Dtype> loss_sum_{vector<int>()};
  Blob<int> valid_count_{vector<int>()};
  bool has_ignore_label_ = false;
  int ignore_label_ = 0;
  LossParameter_NormalizationMode normalization_ =
      LossParameter_NormalizationMode_BATCH_SIZE;
  Dtype normalizer_ = 1;  // from the last forward
  int outer_num_ = 0;
  int inner_num_ = 0;
};

}  // namespace caffe

#endif  // CAFFE_SIGMOID_CROSS_ENTROPY_LOSS_LAYER_HPP_
