// FilterLayer ("Filter"): keeps the batch items whose selector is non-zero.
//
// Contract (Caffe 1.0): bottoms 0..K-1 are data blobs, the last bottom is the
// selector, one value per item (shape N, or N x 1 x ... x 1); every data
// bottom must have N items; there are exactly K tops.  Top k holds the items
// of bottom k whose selector value is non-zero, in order, so the tops' first
// dimension changes with the selector's data: Reshape reads the selector
// (at SetUp, when the selector may not hold data yet, the tops get all N
// items, as in Caffe).  Backward copies each top diff back to the selected
// items and zeroes the others; it reads only the item list saved by Reshape
// (InternalBytes).  The selector cannot be backpropagated to: asking is an
// error, and AllowForceBackward is false for it.  Not in place.
#ifndef CAFFE_FILTER_LAYER_HPP_
#define CAFFE_FILTER_LAYER_HPP_

#include <vector>

#include "caffe/blob.hpp"
#include "caffe/layer.hpp"
#include "caffe/proto/caffe.pb.h"

namespace caffe {

template <typename Dtype>
class FilterLayer : public Layer<Dtype> {
 public:
  explicit FilterLayer(const LayerParameter& param) : Layer<Dtype>(param) {}
  void LayerSetUp(const vector<Blob<Dtype>*>& bottom,
                  const vector<Blob<Dtype>*>& top) override;
  void Reshape(const vector<Blob<Dtype>*>& bottom,
               const vector<Blob<Dtype>*>& top) override;

  const char* type() const override { return "Filter"; }
  int MinBottomBlobs() const override { return 2; }
  int MinTopBlobs() const override { return 1; }
  // The selector is the last bottom; the layer parameter says which that is
  // when the layer comes from a net.
  bool AllowForceBackward(const int bottom_index) const override {
    return this->layer_param_.bottom_size() == 0 ||
           bottom_index != this->layer_param_.bottom_size() - 1;
  }

  // The memory contract (layer.hpp MemoryContract).
  MemoryContract Memory() const override {
    MemoryContract c;
    c.backward_reads = kReadsNothing;
    return c;
  }
  size_t InternalBytes() const override {
    return indices_to_forward_.size() * sizeof(int);
  }

 protected:
  void Forward_cpu(const vector<Blob<Dtype>*>& bottom,
                   const vector<Blob<Dtype>*>& top) override;
  void Backward_cpu(const vector<Blob<Dtype>*>& top,
                    const vector<bool>& propagate_down,
                    const vector<Blob<Dtype>*>& bottom) override;
  DECLARE_GPU_FORWARD_BACKWARD;
  DECLARE_ON_BODIES;

  // Items (in increasing order) whose selector value is non-zero.
  vector<int> indices_to_forward_;
  bool first_reshape_ = true;
};

}  // namespace caffe

#endif  // CAFFE_FILTER_LAYER_HPP_
