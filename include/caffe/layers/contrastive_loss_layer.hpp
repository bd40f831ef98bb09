// ContrastiveLossLayer ("ContrastiveLoss"): the siamese-network loss that
// pulls similar pairs together and pushes dissimilar pairs at least
// `margin` apart.
//
// Contract (Caffe 1.0): bottoms a and b are N x C (x 1 x 1), bottom 2 holds
// one similarity label y per pair (N x 1 x 1 x 1; non-zero means similar).
// With d = ||a_n - b_n||,
//   E = 1/(2N) sum_n [ y_n d^2 + (1 - y_n) max(margin - d, 0)^2 ],
// or with legacy_version (1 - y_n) max(margin - d^2, 0) for the dissimilar
// term.  contrastive_loss_param: margin (default 1), legacy_version (default
// false).  Backward reaches a and b (b's gradient is a's negated); the
// dissimilar non-legacy gradient is -(margin - d) / (d + 1e-4) (a - b) / N,
// Caffe's guard against d = 0.  The labels cannot be backpropagated to
// (AllowForceBackward(2) is false; asking is an error).  Forward keeps
// a - b, d^2 and the labels, so backward reads no bottom data
// (InternalBytes).
#ifndef CAFFE_CONTRASTIVE_LOSS_LAYER_HPP_
#define CAFFE_CONTRASTIVE_LOSS_LAYER_HPP_

#include <vector>

#include "caffe/blob.hpp"
#include "caffe/layer.hpp"
#include "caffe/layers/loss_layer.hpp"
#include "caffe/proto/caffe.pb.h"

namespace caffe {

template <typename Dtype>
class ContrastiveLossLayer : public LossLayer<Dtype> {
 public:
  explicit ContrastiveLossLayer(const LayerParameter& param)
      : LossLayer<Dtype>(param) {}
  void Reshape(const vector<Blob<Dtype>*>& bottom,
               const vector<Blob<Dtype>*>& top) override;

  const char* type() const override { return "ContrastiveLoss"; }
  int ExactNumBottomBlobs() const override { return 3; }
  // Both feature inputs can be backpropagated to; the labels cannot.
  bool AllowForceBackward(const int bottom_index) const override {
    return bottom_index != 2;
  }

  // The memory contract (layer.hpp MemoryContract).
  MemoryContract Memory() const override {
    MemoryContract c;
    c.backward_reads = kReadsNothing;
    return c;
  }
  size_t InternalBytes() const override {
    return static_cast<size_t>(diff_.count() + dist_sq_.size()) *
               sizeof(Dtype) +
           similar_.size() * sizeof(char);
  }

 protected:
  void Forward_cpu(const vector<Blob<Dtype>*>& bottom,
                   const vector<Blob<Dtype>*>& top) override;
  void Backward_cpu(const vector<Blob<Dtype>*>& top,
                    const vector<bool>& propagate_down,
                    const vector<Blob<Dtype>*>& bottom) override;
  DECLARE_GPU_FORWARD_BACKWARD;
  DECLARE_ON_BODIES;

  Blob<Dtype> diff_;       // a - b, N x C
  vector<Dtype> dist_sq_;  // ||a_n - b_n||^2
  vector<char> similar_;   // y_n != 0
};

}  // namespace caffe

#endif  // CAFFE_CONTRASTIVE_LOSS_LAYER_HPP_
