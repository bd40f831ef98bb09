// FlattenLayer ("Flatten"): merges axes [axis, end_axis] into one axis.
//
// Contract: the top is a view of the bottom (data and diff are shared, no
// copy), so forward and backward do no work and read nothing.  The top must
// be a different blob from the bottom.  flatten_param.axis (default 1) and
// end_axis (default -1) may be negative and must satisfy axis <= end_axis.
#ifndef CAFFE_FLATTEN_LAYER_HPP_
#define CAFFE_FLATTEN_LAYER_HPP_

#include <vector>

#include "caffe/blob.hpp"
#include "caffe/layer.hpp"
#include "caffe/proto/caffe.pb.h"

namespace caffe {

template <typename Dtype>
class FlattenLayer : public Layer<Dtype> {
 public:
  explicit FlattenLayer(const LayerParameter& param) : Layer<Dtype>(param) {}
  void Reshape(const vector<Blob<Dtype>*>& bottom,
               const vector<Blob<Dtype>*>& top) override;

  const char* type() const override { return "Flatten"; }
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
  // The top already views the bottom's memory: nothing to compute.
  void Forward_cpu(const vector<Blob<Dtype>*>& bottom,
                   const vector<Blob<Dtype>*>& top) override {}
  void Backward_cpu(const vector<Blob<Dtype>*>& top,
                    const vector<bool>& propagate_down,
                    const vector<Blob<Dtype>*>& bottom) override {}
};

}  // namespace caffe

#endif  // CAFFE_FLATTEN_LAYER_HPP_
