// ThresholdLayer ("Threshold"): a step function, y = (x > threshold) ? 1 : 0.
//
// Contract: threshold_param.threshold (default 0); top takes the bottom's
// shape.  The step has no useful gradient, so, as in Caffe 1.0, Backward
// refuses any propagate_down request (here with caffe::Error instead of
// Caffe's abort) and does nothing otherwise.  Since backward never touches
// data, nothing is declared read and in-place computation is allowed.
#ifndef CAFFE_THRESHOLD_LAYER_HPP_
#define CAFFE_THRESHOLD_LAYER_HPP_

#include <vector>

#include "caffe/layers/neuron_layer.hpp"

namespace caffe {

template <typename Dtype>
class ThresholdLayer : public NeuronLayer<Dtype> {
 public:
  explicit ThresholdLayer(const LayerParameter& param)
      : NeuronLayer<Dtype>(param) {}
  void LayerSetUp(const vector<Blob<Dtype>*>& bottom,
                  const vector<Blob<Dtype>*>& top) override;

  const char* type() const override { return "Threshold"; }
  // The memory contract (layer.hpp MemoryContract).
  MemoryContract Memory() const override {
    MemoryContract c;
    c.backward_reads = kReadsNothing;
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

  Dtype threshold_ = 0;
};

}  // namespace caffe

#endif  // CAFFE_THRESHOLD_LAYER_HPP_
