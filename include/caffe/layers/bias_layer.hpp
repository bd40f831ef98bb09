// bias_layer.hpp: adds a bias blob to bottom[0], broadcast over the axes it
// does not cover.
//
// Contract: the bias b is either bottom[1] or a learned blob (one bottom).
// Its shape must equal bottom[0]'s axes [axis, axis + b.num_axes()); a
// 0-axis (scalar) bias is added everywhere.  BiasParameter: axis (default 1,
// may be negative), num_axes (default 1; -1 means up to the last axis; only
// for the learned bias, whose shape it picks), filler (default constant 0).
// y[n, d, i] = x[n, d, i] + b[d] with n over the outer and i over the inner
// axes.  Backward reads no data and in place is allowed.  Also used by
// ScaleLayer for its bias_term.
#ifndef CAFFE_BIAS_LAYER_HPP_
#define CAFFE_BIAS_LAYER_HPP_

#include <vector>

#include "caffe/blob.hpp"
#include "caffe/layer.hpp"
#include "caffe/proto/caffe.pb.h"

namespace caffe {

template <typename Dtype>
class BiasLayer : public Layer<Dtype> {
 public:
  explicit BiasLayer(const LayerParameter& param) : Layer<Dtype>(param) {}
  void LayerSetUp(const vector<Blob<Dtype>*>& bottom,
                  const vector<Blob<Dtype>*>& top) override;
  void Reshape(const vector<Blob<Dtype>*>& bottom,
               const vector<Blob<Dtype>*>& top) override;
  const char* type() const override { return "Bias"; }
  int MinBottomBlobs() const override { return 1; }
  int MaxBottomBlobs() const override { return 2; }
  int ExactNumTopBlobs() const override { return 1; }
  // The memory contract (layer.hpp MemoryContract).
  MemoryContract Memory() const override {
    MemoryContract c;
    c.backward_reads = kReadsNothing;
    c.in_place = true;
    c.counts_over_int_max = true;
    return c;
  }

 protected:
  void Forward_cpu(const vector<Blob<Dtype>*>& bottom,
                   const vector<Blob<Dtype>*>& top) override;
  void Backward_cpu(const vector<Blob<Dtype>*>& top,
                    const vector<bool>& propagate_down,
                    const vector<Blob<Dtype>*>& bottom) override;
  DECLARE_GPU_FORWARD_BACKWARD;
  // The bodies of both devices (bias_compute.hpp).
  DECLARE_LAUNCH_POLICY_BODIES;

  int outer_dim_ = 0;
  int bias_dim_ = 0;
  int inner_dim_ = 0;
};

}  // namespace caffe

#endif  // CAFFE_BIAS_LAYER_HPP_
