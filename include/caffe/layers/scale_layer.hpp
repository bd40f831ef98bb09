// scale_layer.hpp: multiplies bottom[0] by a scale blob broadcast over the
// axes it does not cover, optionally adding a learned bias (the affine part
// of batch normalization, among other uses).
//
// Contract: the scale s is either bottom[1] or a learned blob (one bottom).
// Its shape must equal bottom[0]'s axes [axis, axis + s.num_axes()); a
// 0-axis (scalar) scale multiplies everything.  ScaleParameter: axis
// (default 1, may be negative), num_axes (default 1; -1 means up to the last
// axis; only for the learned scale, whose shape it picks), filler (default
// constant 1), bias_term (default false) with bias_filler (default constant
// 0) adds a learned bias of the scale's shape after scaling; it is the last
// of blobs().  y[n, d, i] = x[n, d, i] * s[d] (+ b[d]).
// Backward reads the bottom data: x for the scale gradient and, with two
// bottoms, s for the bottom[0] gradient.  In place is allowed; the layer then
// keeps a copy of x for backward, reported by InternalBytes.
#ifndef CAFFE_SCALE_LAYER_HPP_
#define CAFFE_SCALE_LAYER_HPP_

#include <vector>

#include "caffe/blob.hpp"
#include "caffe/layer.hpp"
#include "caffe/layers/bias_layer.hpp"
#include "caffe/proto/caffe.pb.h"

namespace caffe {

template <typename Dtype>
class ScaleLayer : public Layer<Dtype> {
 public:
  explicit ScaleLayer(const LayerParameter& param) : Layer<Dtype>(param) {}
  void LayerSetUp(const vector<Blob<Dtype>*>& bottom,
                  const vector<Blob<Dtype>*>& top) override;
  void Reshape(const vector<Blob<Dtype>*>& bottom,
               const vector<Blob<Dtype>*>& top) override;
  const char* type() const override { return "Scale"; }
  int MinBottomBlobs() const override { return 1; }
  int MaxBottomBlobs() const override { return 2; }
  int ExactNumTopBlobs() const override { return 1; }
  // The memory contract (layer.hpp MemoryContract).
  MemoryContract Memory() const override {
    MemoryContract c;
    // In place with one bottom, backward reads its copy of the input
    // (temp_, kept or borrowed), never the blob: the blob then holds what
    // later in-place layers wrote over it.
    c.backward_reads = in_place_single_bottom_ ? kReadsNothing
                                               : kReadsBottomData;
    c.in_place = true;
    c.borrows_previous_output = true;
    c.counts_over_int_max = true;
    return c;
  }
  size_t InternalBytes() const override {
    return static_cast<size_t>(temp_.count64()) * sizeof(Dtype);
  }
  void KeptMemory(vector<SyncedMemory*>* kept) const override {
    if (borrowed_.empty()) this->KeepBlobMemory(temp_, kept);
  }
  // In place right after a BatchNorm, this layer's input is the normalized
  // output that BatchNorm already keeps for its own backward, as a copy or
  // as its input and statistics: read that instead of making a copy (the
  // net lends it, with or without mem_param; one activation-sized buffer
  // less per BatchNorm/Scale pair).  `output` must give this layer's
  // bottom data as Forward sees it.
  void BorrowPreviousOutput(const LentOutput<Dtype>& output) override {
    borrowed_ = output;
  }
  bool borrows_input_copy() const { return !borrowed_.empty(); }
  // Forward's copy of the input (its own, or a borrowed copy), for a
  // fused chain; empty unless the layer runs in place, and when it borrows
  // a BatchNorm's input and statistics.
  const Blob<Dtype>& input_copy() const { return temp_; }
  // Channel stages (scale_compute.hpp), for fused chains.
  DECLARE_CHANNEL_STAGES;
  // The (outer, scale, inner) layout of the last Reshape.
  int outer_dim() const { return outer_dim_; }
  int scale_dim() const { return scale_dim_; }
  int inner_dim() const { return inner_dim_; }

 protected:
  void Forward_cpu(const vector<Blob<Dtype>*>& bottom,
                   const vector<Blob<Dtype>*>& top) override;
  void Backward_cpu(const vector<Blob<Dtype>*>& top,
                    const vector<bool>& propagate_down,
                    const vector<Blob<Dtype>*>& bottom) override;
  DECLARE_GPU_FORWARD_BACKWARD;
  // The bodies of both devices (scale_compute.hpp).
  DECLARE_LAUNCH_POLICY_BODIES;

  shared_ptr<BiasLayer<Dtype> > bias_layer_;
  vector<Blob<Dtype>*> bias_bottom_vec_;
  vector<bool> bias_propagate_down_;
  int bias_param_id_ = -1;
  int outer_dim_ = 0;
  int scale_dim_ = 0;
  int inner_dim_ = 0;
  // Copy of bottom[0]'s data, only sized when computing in place; a view
  // of another layer's copy when borrowed_ is one.
  Blob<Dtype> temp_;
  LentOutput<Dtype> borrowed_;
  bool in_place_single_bottom_ = false;  // set by Reshape
};

}  // namespace caffe

#endif  // CAFFE_SCALE_LAYER_HPP_
