// SoftmaxLabelLossLayer: the base of SoftmaxWithLossLayer and
// InfogainLossLayer, the losses that apply a softmax to bottom 0's scores
// themselves and compare the probabilities with one integer label per
// position.  Not registered itself; the subclasses differ only in the loss
// they take of the probabilities and its gradient, so the softmax, the label
// bookkeeping and the normalization live here once.
//
// Contract: bottom 0 holds scores whose class axis is SoftmaxParam().axis;
// bottom 1 holds outer * inner labels (the counts of the axes before and
// after it), each in [0, classes) unless equal to loss_param.ignore_label.
// The loss is divided as loss_param.normalization says (default VALID; the
// deprecated normalize flag is honoured).  An optional top 1 receives the
// probabilities, sharing their memory, so backward then reads top data;
// without it they are internal (InternalBytes).  Forward copies the labels,
// so backward reads no bottom data.
#ifndef CAFFE_SOFTMAX_LABEL_LOSS_LAYER_HPP_
#define CAFFE_SOFTMAX_LABEL_LOSS_LAYER_HPP_

#include <vector>

#include "caffe/blob.hpp"
#include "caffe/layer.hpp"
#include "caffe/layers/loss_layer.hpp"
#include "caffe/layers/softmax_layer.hpp"
#include "caffe/proto/caffe.pb.h"

namespace caffe {

template <typename Dtype>
class SoftmaxLabelLossLayer : public LossLayer<Dtype> {
 public:
  explicit SoftmaxLabelLossLayer(const LayerParameter& param)
      : LossLayer<Dtype>(param), prob_top_(param.top_size() >= 2) {}
  void LayerSetUp(const vector<Blob<Dtype>*>& bottom,
                  const vector<Blob<Dtype>*>& top) override {
    LossLayer<Dtype>::LayerSetUp(bottom, top);
    prob_top_ = top.size() >= 2;
    // The inner softmax sees only its own parameters: no loss weights, no
    // blobs, no blob names.
    LayerParameter softmax_param;
    softmax_param.set_name(this->layer_param_.name() + "/softmax");
    softmax_param.set_type("Softmax");
    *softmax_param.mutable_softmax_param() = SoftmaxParam();
    softmax_layer_.reset(new SoftmaxLayer<Dtype>(softmax_param));
    softmax_bottom_vec_.assign(1, bottom[0]);
    softmax_top_vec_.assign(1, &prob_);
    softmax_layer_->SetUp(softmax_bottom_vec_, softmax_top_vec_);

    const LossParameter& lp = this->layer_param_.loss_param();
    has_ignore_label_ = lp.has_ignore_label();
    if (has_ignore_label_) ignore_label_ = lp.ignore_label();
    normalization_ = LossLayer<Dtype>::ResolveNormalization(
        lp, LossParameter_NormalizationMode_VALID);
  }
  void Reshape(const vector<Blob<Dtype>*>& bottom,
               const vector<Blob<Dtype>*>& top) override {
    LossLayer<Dtype>::Reshape(bottom, top);
    softmax_bottom_vec_.assign(1, bottom[0]);
    softmax_layer_->Reshape(softmax_bottom_vec_, softmax_top_vec_);
    axis_ = bottom[0]->CanonicalAxisIndex(SoftmaxParam().axis());
    outer_num_ = bottom[0]->count(0, axis_);
    inner_num_ = bottom[0]->count(axis_ + 1);
    num_classes_ = bottom[0]->shape(axis_);
    CAFFE_CHECK_EQ(outer_num_ * inner_num_, bottom[1]->count())
        << this->type() << " layer " << this->layer_param_.name()
        << ": the number of labels must match the number of predictions; "
        << "with axis " << axis_ << " and prediction shape "
        << bottom[0]->shape_string() << " the label blob must hold "
        << outer_num_ * inner_num_ << " labels, but its shape is "
        << bottom[1]->shape_string();
    labels_.Reshape(vector<int>(1, outer_num_ * inner_num_));
    prob_top_ = top.size() >= 2;
    if (prob_top_) {
      top[1]->ReshapeLike(*bottom[0]);
      top[1]->ShareData(prob_);
    }
  }

  int ExactNumTopBlobs() const override { return -1; }
  int MinTopBlobs() const override { return 1; }
  int MaxTopBlobs() const override { return 2; }

  // The memory contract (layer.hpp MemoryContract).
  MemoryContract Memory() const override {
    MemoryContract c;
    c.backward_reads = prob_top_ ? kReadsTopData : kReadsNothing;
    return c;
  }
  size_t InternalBytes() const override {
    const size_t prob_bytes =
        prob_top_ ? 0 : static_cast<size_t>(prob_.count()) * sizeof(Dtype);
    return prob_bytes + static_cast<size_t>(labels_.count()) * sizeof(int);
  }
  void KeptMemory(vector<SyncedMemory*>* kept) const override {
    if (!prob_top_) this->KeepBlobMemory(prob_, kept);
  }

 protected:
  // The inner softmax's parameters; its axis is the class axis.
  virtual SoftmaxParameter SoftmaxParam() const = 0;

  // Forward's shared start: runs the softmax and copies bottom 1's labels
  // into labels_, checking the range of every label not ignored; sets
  // valid_count_ to their number.
  void ForwardSoftmaxAndLabels(const Blob<Dtype>& label_blob) {
    softmax_layer_->Forward(softmax_bottom_vec_, softmax_top_vec_);
    const Dtype* label = label_blob.cpu_data();
    int* labels = labels_.mutable_cpu_data();
    int count = 0;
    for (int n = 0; n < outer_num_ * inner_num_; ++n) {
      const int l = static_cast<int>(label[n]);
      labels[n] = l;
      if (ignored(l)) continue;
      CAFFE_CHECK(l >= 0 && l < num_classes_)
          << this->type() << " layer " << this->layer_param_.name()
          << ": label " << l << " at position " << n << " is outside [0, "
          << num_classes_ << ")";
      ++count;
    }
    valid_count_ = count;
  }
  bool ignored(int label) const {
    return has_ignore_label_ && label == ignore_label_;
  }
  // The divisor of this forward's summed loss.
  Dtype normalizer() const {
    return LossLayer<Dtype>::GetNormalizer(normalization_, outer_num_,
                                           inner_num_, valid_count_);
  }

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
  int axis_ = 1;
  int outer_num_ = 0;
  int inner_num_ = 0;
  int num_classes_ = 0;
  // Labels copied in forward (checked on the host; a GPU backward reads
  // them on the device), and how many were not ignored.
  Blob<int> labels_;
  int valid_count_ = 0;
};

}  // namespace caffe

#endif  // CAFFE_SOFTMAX_LABEL_LOSS_LAYER_HPP_
