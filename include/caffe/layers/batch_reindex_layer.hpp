// BatchReindexLayer ("BatchReindex"): gathers items of a batch by index,
// e.g. to shuffle, drop or repeat samples.
//
// Contract: bottom 0 is the data (N x ...); bottom 1 is a 1-axis blob of M
// indices, each in [0, N); the top is M x ... with top[m] = bottom0[idx[m]].
// Backward accumulates: an item picked k times gets the sum of the k top
// diffs, one never picked gets 0.  The indices cannot be backpropagated to
// (AllowForceBackward(1) is false; asking is an error).  Forward copies the
// indices, so backward reads no bottom or top data (InternalBytes: the
// copy).  Not in place: the shapes differ in general.
#ifndef CAFFE_BATCH_REINDEX_LAYER_HPP_
#define CAFFE_BATCH_REINDEX_LAYER_HPP_

#include <vector>

#include "caffe/blob.hpp"
#include "caffe/layer.hpp"
#include "caffe/proto/caffe.pb.h"

namespace caffe {

template <typename Dtype>
class BatchReindexLayer : public Layer<Dtype> {
 public:
  explicit BatchReindexLayer(const LayerParameter& param)
      : Layer<Dtype>(param) {}
  void Reshape(const vector<Blob<Dtype>*>& bottom,
               const vector<Blob<Dtype>*>& top) override;

  const char* type() const override { return "BatchReindex"; }
  int ExactNumBottomBlobs() const override { return 2; }
  int ExactNumTopBlobs() const override { return 1; }
  bool AllowForceBackward(const int bottom_index) const override {
    return bottom_index != 1;
  }

  // The memory contract (layer.hpp MemoryContract).
  MemoryContract Memory() const override {
    MemoryContract c;
    c.backward_reads = kReadsNothing;
    return c;
  }
  size_t InternalBytes() const override {
    return indices_.size() * sizeof(int);
  }

 protected:
  void Forward_cpu(const vector<Blob<Dtype>*>& bottom,
                   const vector<Blob<Dtype>*>& top) override;
  void Backward_cpu(const vector<Blob<Dtype>*>& top,
                    const vector<bool>& propagate_down,
                    const vector<Blob<Dtype>*>& bottom) override;
  DECLARE_GPU_FORWARD_BACKWARD;
  DECLARE_ON_BODIES;

  // The indices as read by the last forward.
  vector<int> indices_;
};

}  // namespace caffe

#endif  // CAFFE_BATCH_REINDEX_LAYER_HPP_
