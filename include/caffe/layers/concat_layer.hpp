// ConcatLayer ("Concat"): joins its bottoms along one axis.
//
// Contract: all bottoms have the same number of axes and the same shape
// except along the concatenation axis (concat_param.axis, default 1, may be
// negative; or the legacy concat_dim, not both).  The top's size along that
// axis is the sum of the bottoms'.  Backward copies the matching slice of the
// top diff into each bottom diff and reads nothing else.
#ifndef CAFFE_CONCAT_LAYER_HPP_
#define CAFFE_CONCAT_LAYER_HPP_

#include <vector>

#include "caffe/blob.hpp"
#include "caffe/layer.hpp"
#include "caffe/proto/caffe.pb.h"

namespace caffe {

template <typename Dtype>
class ConcatLayer : public Layer<Dtype> {
 public:
  explicit ConcatLayer(const LayerParameter& param) : Layer<Dtype>(param) {}
  void LayerSetUp(const vector<Blob<Dtype>*>& bottom,
                  const vector<Blob<Dtype>*>& top) override;
  void Reshape(const vector<Blob<Dtype>*>& bottom,
               const vector<Blob<Dtype>*>& top) override;

  const char* type() const override { return "Concat"; }
  int MinBottomBlobs() const override { return 1; }
  int ExactNumTopBlobs() const override { return 1; }

  // The memory contract (layer.hpp MemoryContract).
  MemoryContract Memory() const override {
    MemoryContract c;
    c.backward_reads = kReadsNothing;
    return c;
  }

 protected:
  void Forward_cpu(const vector<Blob<Dtype>*>& bottom,
                   const vector<Blob<Dtype>*>& top) override;
  void Backward_cpu(const vector<Blob<Dtype>*>& top,
                    const vector<bool>& propagate_down,
                    const vector<Blob<Dtype>*>& bottom) override;
  DECLARE_GPU_FORWARD_BACKWARD;

 private:
  DECLARE_ON_BODIES;

  int concat_axis_ = 1;
  int num_concats_ = 0;        // product of the axes before concat_axis_
  int concat_input_size_ = 0;  // product of the axes after concat_axis_
};

}  // namespace caffe

#endif  // CAFFE_CONCAT_LAYER_HPP_
