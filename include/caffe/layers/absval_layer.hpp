// absval_layer.hpp: absolute value, y = |x|.
//
// Contract: no parameters.  The derivative sign(x) (0 at x = 0) needs the
// bottom data, whose sign |x| destroys, so in place is refused (as Caffe).
#ifndef CAFFE_ABSVAL_LAYER_HPP_
#define CAFFE_ABSVAL_LAYER_HPP_

#include <vector>

#include "caffe/layers/neuron_layer.hpp"

namespace caffe {

template <typename Dtype>
class AbsValLayer : public NeuronLayer<Dtype> {
 public:
  explicit AbsValLayer(const LayerParameter& param)
      : NeuronLayer<Dtype>(param) {}
  void LayerSetUp(const vector<Blob<Dtype>*>& bottom,
                  const vector<Blob<Dtype>*>& top) override;
  const char* type() const override { return "AbsVal"; }
  // The memory contract (layer.hpp MemoryContract).
  MemoryContract Memory() const override {
    MemoryContract c;
    c.backward_reads = kReadsBottomData;
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
};

}  // namespace caffe

#endif  // CAFFE_ABSVAL_LAYER_HPP_
