// ArgMaxLayer ("ArgMax"): the indices (and optionally values) of the top_k
// largest entries.
//
// Contract: with argmax_param.axis set, the maximum is taken along that axis
// and the top has the bottom's shape with that axis replaced by top_k; it
// holds indices, or the values when out_max_val.  Without axis, each sample
// (axis 0) is flattened and the top is N x 1 x top_k (N x 2 x top_k with
// out_max_val: indices, then values), padded to at least 3 axes.  Ties go to
// the larger index.  top_k must be at least 1 and at most the searched
// dimension.  There is no backward (Caffe has none): Backward throws.
#ifndef CAFFE_ARGMAX_LAYER_HPP_
#define CAFFE_ARGMAX_LAYER_HPP_

#include <vector>

#include "caffe/blob.hpp"
#include "caffe/layer.hpp"
#include "caffe/proto/caffe.pb.h"

namespace caffe {

template <typename Dtype>
class ArgMaxLayer : public Layer<Dtype> {
 public:
  explicit ArgMaxLayer(const LayerParameter& param) : Layer<Dtype>(param) {}
  void LayerSetUp(const vector<Blob<Dtype>*>& bottom,
                  const vector<Blob<Dtype>*>& top) override;
  void Reshape(const vector<Blob<Dtype>*>& bottom,
               const vector<Blob<Dtype>*>& top) override;

  const char* type() const override { return "ArgMax"; }
  int ExactNumBottomBlobs() const override { return 1; }
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

  bool out_max_val_ = false;
  int top_k_ = 1;
  bool has_axis_ = false;
  int axis_ = 0;
};

}  // namespace caffe

#endif  // CAFFE_ARGMAX_LAYER_HPP_
