// elu_layer.hpp: exponential linear unit (Clevert et al. 2015),
// y = x for x > 0 and alpha * (exp(x) - 1) otherwise.
//
// Contract: ELUParameter.alpha (default 1).  The derivative is 1 for x > 0
// and alpha + y otherwise.  With alpha >= 0, y > 0 exactly when x > 0, so
// backward needs only the top data and in place is safe; with a negative
// alpha the sign of x must come from the bottom data and in place is not
// allowed.
#ifndef CAFFE_ELU_LAYER_HPP_
#define CAFFE_ELU_LAYER_HPP_

#include <vector>

#include "caffe/layers/neuron_layer.hpp"

namespace caffe {

template <typename Dtype>
class ELULayer : public NeuronLayer<Dtype> {
 public:
  explicit ELULayer(const LayerParameter& param)
      : NeuronLayer<Dtype>(param) {}
  const char* type() const override { return "ELU"; }
  // The memory contract (layer.hpp MemoryContract).
  MemoryContract Memory() const override {
    MemoryContract c;
    c.backward_reads = SignFromTop() ? kReadsTopData : (kReadsTopData | kReadsBottomData);
    c.in_place = SignFromTop();
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

  bool SignFromTop() const {
    return this->layer_param_.elu_param().alpha() >= 0;
  }
};

}  // namespace caffe

#endif  // CAFFE_ELU_LAYER_HPP_
