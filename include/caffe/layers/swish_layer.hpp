// swish_layer.hpp: Swish (BVLC master, after 1.0; Ramachandran et al.
// 2017): y = x * sigmoid(beta * x).
//
// Contract: SwishParameter.beta (default 1).  With s = sigmoid(beta * x),
// dy/dx = beta * y + s * (1 - beta * y), Caffe's form.  Forward keeps s
// (one element per input, counted in InternalBytes), so backward reads the
// top data and s but never the bottom data: in place is allowed.  The
// sigmoid is the Sigmoid layer's tanh form, which cannot overflow.
#ifndef CAFFE_SWISH_LAYER_HPP_
#define CAFFE_SWISH_LAYER_HPP_

#include <vector>

#include "caffe/layers/neuron_layer.hpp"

namespace caffe {

template <typename Dtype>
class SwishLayer : public NeuronLayer<Dtype> {
 public:
  explicit SwishLayer(const LayerParameter& param)
      : NeuronLayer<Dtype>(param) {}
  void Reshape(const vector<Blob<Dtype>*>& bottom,
               const vector<Blob<Dtype>*>& top) override;
  const char* type() const override { return "Swish"; }

  // The memory contract (layer.hpp MemoryContract).
  MemoryContract Memory() const override {
    MemoryContract c;
    c.backward_reads = kReadsTopData;
    c.in_place = true;
    return c;
  }
  size_t InternalBytes() const override {
    return static_cast<size_t>(sigmoid_.count()) * sizeof(Dtype);
  }
  void KeptMemory(vector<SyncedMemory*>* kept) const override {
    this->KeepBlobMemory(sigmoid_, kept);
  }

 protected:
  void Forward_cpu(const vector<Blob<Dtype>*>& bottom,
                   const vector<Blob<Dtype>*>& top) override;
  void Backward_cpu(const vector<Blob<Dtype>*>& top,
                    const vector<bool>& propagate_down,
                    const vector<Blob<Dtype>*>& bottom) override;
  DECLARE_LAUNCH_POLICY_BODIES;
  DECLARE_GPU_FORWARD_BACKWARD;

  Blob<Dtype> sigmoid_;  // sigmoid(beta * x), kept for backward
};

}  // namespace caffe

#endif  // CAFFE_SWISH_LAYER_HPP_
