// ReshapeLayer ("Reshape"): gives the bottom a new shape without copying.
//
// Contract: reshape_param.shape replaces the bottom axes [axis, axis +
// num_axes) (num_axes -1: through the last axis; a negative axis counts from
// the end, -1 meaning after the last axis).  In the new shape a 0 copies the
// corresponding bottom dimension and a single -1 is inferred so the count is
// unchanged.  The top is a view of the bottom (data and diff shared), so
// forward and backward do no work and read nothing.
#ifndef CAFFE_RESHAPE_LAYER_HPP_
#define CAFFE_RESHAPE_LAYER_HPP_

#include <vector>

#include "caffe/blob.hpp"
#include "caffe/layer.hpp"
#include "caffe/proto/caffe.pb.h"

namespace caffe {

template <typename Dtype>
class ReshapeLayer : public Layer<Dtype> {
 public:
  explicit ReshapeLayer(const LayerParameter& param) : Layer<Dtype>(param) {}
  void LayerSetUp(const vector<Blob<Dtype>*>& bottom,
                  const vector<Blob<Dtype>*>& top) override;
  void Reshape(const vector<Blob<Dtype>*>& bottom,
               const vector<Blob<Dtype>*>& top) override;

  const char* type() const override { return "Reshape"; }
  int ExactNumBottomBlobs() const override { return 1; }
  int ExactNumTopBlobs() const override { return 1; }

  // The memory contract (layer.hpp MemoryContract).
  MemoryContract Memory() const override {
    MemoryContract c;
    c.backward_reads = kReadsNothing;
    c.top_views_bottom = true;
    return c;
  }

 protected:
  void Forward_cpu(const vector<Blob<Dtype>*>& bottom,
                   const vector<Blob<Dtype>*>& top) override {}
  void Backward_cpu(const vector<Blob<Dtype>*>& top,
                    const vector<bool>& propagate_down,
                    const vector<Blob<Dtype>*>& bottom) override {}

  // Positions (within the new shape) of 0 entries, copied from the bottom.
  vector<int> copy_axes_;
  // Position of the -1 entry, or -1 when there is none.
  int inferred_axis_ = -1;
  // Product of the explicitly given (positive) dimensions.
  int constant_count_ = 1;
};

}  // namespace caffe

#endif  // CAFFE_RESHAPE_LAYER_HPP_
