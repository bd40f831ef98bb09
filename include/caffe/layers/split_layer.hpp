// SplitLayer ("Split"): hands one bottom to several consumers.
//
// Contract: every top has the bottom's shape and shares the bottom's data (no
// copy); each top has its own diff, and backward writes their sum into the
// bottom diff (top 0's + top 1's, then each further top's added in order).
// Backward reads only top diffs.  Under mem_param top 0's diff is the
// bottom's diff memory (MemoryContract::diff_alias_bottom): the sum is then
// formed in place, in the same order, with the same bits.  Nets insert Split layers
// automatically where a blob feeds more than one layer.
#ifndef CAFFE_SPLIT_LAYER_HPP_
#define CAFFE_SPLIT_LAYER_HPP_

#include <vector>

#include "caffe/blob.hpp"
#include "caffe/layer.hpp"
#include "caffe/proto/caffe.pb.h"

namespace caffe {

template <typename Dtype>
class SplitLayer : public Layer<Dtype> {
 public:
  explicit SplitLayer(const LayerParameter& param) : Layer<Dtype>(param) {}
  void Reshape(const vector<Blob<Dtype>*>& bottom,
               const vector<Blob<Dtype>*>& top) override;

  const char* type() const override { return "Split"; }
  int ExactNumBottomBlobs() const override { return 1; }
  int MinTopBlobs() const override { return 1; }

  // The memory contract (layer.hpp MemoryContract).
  MemoryContract Memory() const override {
    MemoryContract c;
    c.backward_reads = kReadsNothing;
    // Every top views the bottom's data (the diffs are summed back).
    c.top_views_bottom = true;
    c.diff_alias_bottom = 0;
    c.counts_over_int_max = true;
    return c;
  }

 protected:
  // The tops already view the bottom's data: nothing to compute.
  void Forward_cpu(const vector<Blob<Dtype>*>& bottom,
                   const vector<Blob<Dtype>*>& top) override {}
  void Backward_cpu(const vector<Blob<Dtype>*>& top,
                    const vector<bool>& propagate_down,
                    const vector<Blob<Dtype>*>& bottom) override;
  DECLARE_GPU_FORWARD_BACKWARD;

 private:
  void BackwardOn(bool gpu, const vector<Blob<Dtype>*>& top,
                  const vector<bool>& propagate_down,
                  const vector<Blob<Dtype>*>& bottom);
};

}  // namespace caffe

#endif  // CAFFE_SPLIT_LAYER_HPP_
