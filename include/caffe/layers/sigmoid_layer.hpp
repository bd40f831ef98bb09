// sigmoid_layer.hpp: logistic function, y = 1 / (1 + exp(-x)).
//
// Contract: no parameters.  The derivative y * (1 - y) needs only the top
// data, so the layer works in place.
#ifndef CAFFE_SIGMOID_LAYER_HPP_
#define CAFFE_SIGMOID_LAYER_HPP_

#include <vector>

#include "caffe/layers/neuron_layer.hpp"

namespace caffe {

template <typename Dtype>
class SigmoidLayer : public NeuronLayer<Dtype> {
 public:
  explicit SigmoidLayer(const LayerParameter& param)
      : NeuronLayer<Dtype>(param) {}
  const char* type() const override { return "Sigmoid"; }
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
  DECLARE_GPU_FORWARD_BACKWARD;
};

}  // namespace caffe

#endif  // CAFFE_SIGMOID_LAYER_HPP_
