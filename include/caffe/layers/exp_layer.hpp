// exp_layer.hpp: y = base ^ (shift + scale * x).
//
// Contract: ExpParameter base (default -1, meaning e; otherwise it must be
// positive), scale (default 1), shift (default 0).  Computed as
// outer * exp(inner * x) with inner = scale * ln(base) and
// outer = base ^ shift; the derivative inner * y needs only the top data, so
// in place is allowed.
#ifndef CAFFE_EXP_LAYER_HPP_
#define CAFFE_EXP_LAYER_HPP_

#include <vector>

#include "caffe/layers/neuron_layer.hpp"

namespace caffe {

template <typename Dtype>
class ExpLayer : public NeuronLayer<Dtype> {
 public:
  explicit ExpLayer(const LayerParameter& param)
      : NeuronLayer<Dtype>(param) {}
  void LayerSetUp(const vector<Blob<Dtype>*>& bottom,
                  const vector<Blob<Dtype>*>& top) override;
  const char* type() const override { return "Exp"; }
  // The memory contract (layer.hpp MemoryContract).
  MemoryContract Memory() const override {
    MemoryContract c;
    c.backward_reads = kReadsTopData;
    c.in_place = true;
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

  Dtype inner_scale_ = 1;
  Dtype outer_scale_ = 1;
};

}  // namespace caffe

#endif  // CAFFE_EXP_LAYER_HPP_
