// ParameterLayer ("Parameter"): exposes one learnable blob as a top, so a net
// can feed a trained tensor into layers that only take bottoms.
//
// Contract: no bottoms, one top.  parameter_param.shape gives the blob's
// shape; a fresh blob starts at zero (Caffe 1.0 has no filler here and its
// memory starts zeroed).  A blob loaded from a model must have that shape.
// Deviation from Caffe 1.0, which makes the top share the blob's data and
// diff: forward copies the blob into the top and backward adds the top diff
// to the blob diff.  The results are the same, but the top owns its memory,
// so the memory planner may reuse it and an in-place consumer cannot
// overwrite the parameter, and gradients accumulate like every other
// layer's parameter gradients (iter_size > 1).  Backward reads only the top
// diff.
#ifndef CAFFE_PARAMETER_LAYER_HPP_
#define CAFFE_PARAMETER_LAYER_HPP_

#include <vector>

#include "caffe/blob.hpp"
#include "caffe/layer.hpp"
#include "caffe/proto/caffe.pb.h"

namespace caffe {

template <typename Dtype>
class ParameterLayer : public Layer<Dtype> {
 public:
  explicit ParameterLayer(const LayerParameter& param) : Layer<Dtype>(param) {}
  void LayerSetUp(const vector<Blob<Dtype>*>& bottom,
                  const vector<Blob<Dtype>*>& top) override;
  void Reshape(const vector<Blob<Dtype>*>& bottom,
               const vector<Blob<Dtype>*>& top) override;

  const char* type() const override { return "Parameter"; }
  int ExactNumBottomBlobs() const override { return 0; }
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
};

}  // namespace caffe

#endif  // CAFFE_PARAMETER_LAYER_HPP_
