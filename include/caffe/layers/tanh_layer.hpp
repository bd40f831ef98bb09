// tanh_layer.hpp: hyperbolic tangent, y = tanh(x).
//
// Contract: tanh_param.engine only.  The derivative 1 - y^2 needs only the
// top data, so the layer works in place.  In GPU mode `engine: CUDNN` runs
// cuDNN's tanh (util/cudnn_activation.hpp, the same reads); DEFAULT stays
// on the bodies the CPU shares.
#ifndef CAFFE_TANH_LAYER_HPP_
#define CAFFE_TANH_LAYER_HPP_

#include <memory>
#include <vector>

#include "caffe/layers/neuron_layer.hpp"

namespace caffe {

template <typename Dtype>
class TanHLayer : public NeuronLayer<Dtype> {
 public:
  explicit TanHLayer(const LayerParameter& param)
      : NeuronLayer<Dtype>(param) {}
  const char* type() const override { return "TanH"; }
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

 private:
  // GPU mode with engine CUDNN: run the pass on cuDNN and return true;
  // else false (tanh_layer.cpp, so that no cuDNN call sits in the .cu file).
#ifdef USE_CUDA
  bool CudnnForward(const vector<Blob<Dtype>*>& bottom,
                    const vector<Blob<Dtype>*>& top);
  bool CudnnBackward(const vector<Blob<Dtype>*>& top,
                     const vector<Blob<Dtype>*>& bottom);
#endif
  std::shared_ptr<void> cudnn_;  // CudnnActivation<Dtype>, made on first use
};

}  // namespace caffe

#endif  // CAFFE_TANH_LAYER_HPP_
