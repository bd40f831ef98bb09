// prelu_layer.hpp: parametric ReLU, y = max(x, 0) + a_c * min(x, 0) with a
// learned slope a per channel (axis 1), or one slope for all channels.
//
// Contract: bottom has at least 2 axes.  PReLUParameter.channel_shared picks
// one slope (a 0-axis blob of count 1) instead of one per channel; the slope
// filler defaults to constant 0.25.  Backward reads the bottom data (for the
// slope gradient and the sign).  In place the bottom data is gone after
// forward (the slope may be negative), so the layer then keeps its own copy
// of the bottom, reported by InternalBytes.
#ifndef CAFFE_PRELU_LAYER_HPP_
#define CAFFE_PRELU_LAYER_HPP_

#include <vector>

#include "caffe/layers/neuron_layer.hpp"

namespace caffe {

template <typename Dtype>
class PReLULayer : public NeuronLayer<Dtype> {
 public:
  explicit PReLULayer(const LayerParameter& param)
      : NeuronLayer<Dtype>(param) {}
  void LayerSetUp(const vector<Blob<Dtype>*>& bottom,
                  const vector<Blob<Dtype>*>& top) override;
  void Reshape(const vector<Blob<Dtype>*>& bottom,
               const vector<Blob<Dtype>*>& top) override;
  const char* type() const override { return "PReLU"; }
  // The memory contract (layer.hpp MemoryContract).
  MemoryContract Memory() const override {
    MemoryContract c;
    c.backward_reads = kReadsBottomData;
    c.in_place = true;
    return c;
  }
  size_t InternalBytes() const override {
    return static_cast<size_t>(bottom_memory_.count()) * sizeof(Dtype);
  }
  void KeptMemory(vector<SyncedMemory*>* kept) const override {
    this->KeepBlobMemory(bottom_memory_, kept);
  }

 protected:
  void Forward_cpu(const vector<Blob<Dtype>*>& bottom,
                   const vector<Blob<Dtype>*>& top) override;
  void Backward_cpu(const vector<Blob<Dtype>*>& top,
                    const vector<bool>& propagate_down,
                    const vector<Blob<Dtype>*>& bottom) override;
  DECLARE_LAUNCH_POLICY_BODIES;
  DECLARE_GPU_FORWARD_BACKWARD;

  bool channel_shared_ = false;
  // Copy of the bottom data, only sized when computing in place.
  Blob<Dtype> bottom_memory_;
};

}  // namespace caffe

#endif  // CAFFE_PRELU_LAYER_HPP_
