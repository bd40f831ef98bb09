// relu_layer.hpp: rectified linear unit, y = max(x, 0) + slope * min(x, 0).
//
// Contract: ReLUParameter.negative_slope (default 0; leaky ReLU otherwise).
// Backward tests the sign of the bottom data.  In place the bottom data is
// the top data, which has the same sign as x whenever negative_slope >= 0,
// so in-place computation is allowed exactly then.  In GPU mode `engine:
// CUDNN` with negative_slope 0 runs cuDNN's ReLU (util/cudnn_activation.hpp,
// the same reads); DEFAULT stays on the bodies the CPU shares (and the CPU's
// fused chains).
#ifndef CAFFE_RELU_LAYER_HPP_
#define CAFFE_RELU_LAYER_HPP_

#include <memory>
#include <vector>

#include "caffe/layers/neuron_layer.hpp"

namespace caffe {

template <typename Dtype>
class ReLULayer : public NeuronLayer<Dtype> {
 public:
  explicit ReLULayer(const LayerParameter& param)
      : NeuronLayer<Dtype>(param) {}
  const char* type() const override { return "ReLU"; }
  // The memory contract (layer.hpp MemoryContract).
  MemoryContract Memory() const override {
    MemoryContract c;
    c.backward_reads = kReadsBottomData;
    c.in_place = this->layer_param_.relu_param().negative_slope() >= 0;
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

 private:
#ifdef USE_CUDA
  // GPU mode with engine CUDNN and negative_slope 0: run the pass on cuDNN
  // and return true; else false (relu_layer.cpp, so that no cuDNN call
  // sits in the .cu file).
  bool CudnnForward(const vector<Blob<Dtype>*>& bottom,
                    const vector<Blob<Dtype>*>& top);
  bool CudnnBackward(const vector<Blob<Dtype>*>& top,
                     const vector<Blob<Dtype>*>& bottom);
#endif
  std::shared_ptr<void> cudnn_;  // CudnnActivation<Dtype>, made on first use
};

}  // namespace caffe

#endif  // CAFFE_RELU_LAYER_HPP_
