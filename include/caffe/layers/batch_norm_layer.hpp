// batch_norm_layer.hpp: batch normalization (Ioffe and Szegedy 2015), the
// normalization part only; a following Scale layer (bias_term: true) learns
// the affine transform, as in Caffe 1.0.
//
// Contract: bottom is N x C x (spatial...), N x C, or 1-D (one channel);
// statistics are per channel over N and all spatial positions.  Three
// blobs, none learned (their lr_mult is forced to 0 and propagate_down off):
//   blobs[0] = running mean sum (C), blobs[1] = running variance sum (C),
//   blobs[2] = the normalizer s (1 element); the estimates are blobs[i] / s.
// BatchNormParameter: use_global_stats (default false in TRAIN, true in
// TEST) normalizes with the stored estimates; otherwise each forward uses
// the batch statistics and updates, with f = moving_average_fraction,
//   s = f * s + 1,  mean_sum = batch_mean + f * mean_sum,
//   var_sum = m / (m - 1) * batch_var + f * var_sum   (m = count / C),
// and eps (default 1e-5) is added to the variance before the square root.
// Backward reads no top data.  With batch statistics it needs the
// normalized output y: out of place on a bottom that stays intact until
// backward (Layer::bottom_stays_intact, set by the net), it reads the
// bottom and normalizes it again with the kept statistics, the same bits
// (util/normalized_input.hpp); otherwise it keeps its own copy of y.  It
// keeps the per-channel mean and standard deviation; InternalBytes counts
// what it keeps.  A rerun for recomputation reuses the forward's batch
// statistics (RerunReadsMemory).  In place is allowed.
#ifndef CAFFE_BATCH_NORM_LAYER_HPP_
#define CAFFE_BATCH_NORM_LAYER_HPP_

#include <vector>

#include "caffe/blob.hpp"
#include "caffe/layer.hpp"
#include "caffe/proto/caffe.pb.h"

namespace caffe {

template <typename Dtype>
class BatchNormLayer : public Layer<Dtype> {
 public:
  explicit BatchNormLayer(const LayerParameter& param) : Layer<Dtype>(param) {}
  void LayerSetUp(const vector<Blob<Dtype>*>& bottom,
                  const vector<Blob<Dtype>*>& top) override;
  void Reshape(const vector<Blob<Dtype>*>& bottom,
               const vector<Blob<Dtype>*>& top) override;
  const char* type() const override { return "BatchNorm"; }
  int ExactNumBottomBlobs() const override { return 1; }
  int ExactNumTopBlobs() const override { return 1; }
  // The memory contract (layer.hpp MemoryContract).
  MemoryContract Memory() const override {
    MemoryContract c;
    c.backward_reads = reads_input_ ? kReadsBottomData : kReadsNothing;
    c.in_place = true;
    c.counts_over_int_max = true;
    return c;
  }
  size_t InternalBytes() const override {
    return static_cast<size_t>(x_norm_.count64() + mean_.count64() +
                               std_.count64()) * sizeof(Dtype);
  }
  // The normalized output kept for backward (empty with global stats, or
  // when backward normalizes the bottom again).
  const Blob<Dtype>* normalized_output() const { return &x_norm_; }
  // Whether backward normalizes the bottom again instead of keeping y.
  bool reads_input() const { return reads_input_; }
  // Lent to a following in-place Scale (MemoryContract borrowing trait).
  LentOutput<Dtype> KeptOutput() const override { return Lent(input_); }
  void KeptMemory(vector<SyncedMemory*>* kept) const override {
    this->KeepBlobMemory(x_norm_, kept);
    this->KeepBlobMemory(mean_, kept);
    this->KeepBlobMemory(std_, kept);
  }
  // A rerun with batch statistics normalizes with the forward's (the same
  // input gives the same bits) and skips the two passes that take them.
  void RerunReadsMemory(vector<SyncedMemory*>* reread) const override {
    if (use_global_stats_) return;
    this->KeepBlobMemory(mean_, reread);
    this->KeepBlobMemory(std_, reread);
  }
  // Channel stages (batch_norm_compute.hpp), for fused chains.
  DECLARE_CHANNEL_STAGES;
  int channels() const { return channels_; }

 protected:
  void Forward_cpu(const vector<Blob<Dtype>*>& bottom,
                   const vector<Blob<Dtype>*>& top) override;
  void Backward_cpu(const vector<Blob<Dtype>*>& top,
                    const vector<bool>& propagate_down,
                    const vector<Blob<Dtype>*>& bottom) override;
  DECLARE_GPU_FORWARD_BACKWARD;
  // The bodies of both devices (batch_norm_compute.hpp).
  DECLARE_LAUNCH_POLICY_BODIES;

  // Where backward finds y for the bottom `input`: the copy, or `input`
  // with the statistics.  Empty with global statistics.
  LentOutput<Dtype> Lent(const Blob<Dtype>* input) const {
    LentOutput<Dtype> lent;
    if (use_global_stats_) return lent;
    if (reads_input_) {
      lent.input = input;
      lent.mean = &mean_;
      lent.sd = &std_;
    } else if (x_norm_.count64() > 0) {
      lent.copy = &x_norm_;
    }
    return lent;
  }

  bool use_global_stats_ = false;
  // Set by Reshape: out of place, batch statistics and a bottom that
  // stays intact (see the header comment).
  bool reads_input_ = false;
  const Blob<Dtype>* input_ = nullptr;  // the bottom of the last Reshape
  Dtype moving_average_fraction_ = 0.999;
  Dtype eps_ = 1e-5;
  int channels_ = 0;
  Blob<Dtype> mean_;    // per-channel mean used by the last forward
  Blob<Dtype> std_;     // per-channel sqrt(variance + eps) of the last forward
  Blob<Dtype> x_norm_;  // normalized output; sized only with batch statistics
  // Backward's scratch: the per-channel means of dy and dy * y.
  Blob<Dtype> gradient_means_;
};

}  // namespace caffe

#endif  // CAFFE_BATCH_NORM_LAYER_HPP_
