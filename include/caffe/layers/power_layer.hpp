// power_layer.hpp: y = (shift + scale * x) ^ power.
//
// Contract: PowerParameter power (default 1), scale (default 1), shift
// (default 0).  What backward reads depends on the parameters, following
// Caffe's special cases for dy/dx = power * scale * (shift + scale*x)^(p-1):
//  * power * scale == 0 or power == 1: a constant, reads nothing;
//  * power == 2: 2 * scale * (shift + scale * x), reads the bottom data;
//  * otherwise power * scale * y / (shift + scale * x), reads both (so it is
//    NaN where shift + scale * x == 0, as in Caffe).
// In place is allowed only when backward reads nothing.
#ifndef CAFFE_POWER_LAYER_HPP_
#define CAFFE_POWER_LAYER_HPP_

#include <vector>

#include "caffe/layers/neuron_layer.hpp"

namespace caffe {

template <typename Dtype>
class PowerLayer : public NeuronLayer<Dtype> {
 public:
  explicit PowerLayer(const LayerParameter& param)
      : NeuronLayer<Dtype>(param) {}
  void LayerSetUp(const vector<Blob<Dtype>*>& bottom,
                  const vector<Blob<Dtype>*>& top) override;
  const char* type() const override { return "Power"; }
  // The memory contract (layer.hpp MemoryContract).
  MemoryContract Memory() const override {
    MemoryContract c;
    c.backward_reads = DeclaredBackwardReads();
    c.in_place = DeclaredBackwardReads() == kReadsNothing;
    return c;
  }

 protected:
  void Forward_cpu(const vector<Blob<Dtype>*>& bottom,
                   const vector<Blob<Dtype>*>& top) override;
  void Backward_cpu(const vector<Blob<Dtype>*>& top,
                    const vector<bool>& propagate_down,
                    const vector<Blob<Dtype>*>& bottom) override;
  DECLARE_LAUNCH_POLICY_BODIES;
  DECLARE_GPU_FORWARD_BACKWARD;

  Dtype power_ = 1;
  Dtype scale_ = 1;
  Dtype shift_ = 0;
  Dtype diff_scale_ = 1;  // power * scale

 private:
  int DeclaredBackwardReads() const;
};

}  // namespace caffe

#endif  // CAFFE_POWER_LAYER_HPP_
