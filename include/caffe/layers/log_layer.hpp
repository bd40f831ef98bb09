// log_layer.hpp: y = log_base(shift + scale * x).
//
// Contract: LogParameter base (default -1, meaning e; otherwise positive and
// not 1), scale (default 1), shift (default 0).  The derivative
// scale / ((shift + scale * x) * ln(base)) needs the bottom data, so in
// place is not allowed.
#ifndef CAFFE_LOG_LAYER_HPP_
#define CAFFE_LOG_LAYER_HPP_

#include <vector>

#include "caffe/layers/neuron_layer.hpp"

namespace caffe {

template <typename Dtype>
class LogLayer : public NeuronLayer<Dtype> {
 public:
  explicit LogLayer(const LayerParameter& param)
      : NeuronLayer<Dtype>(param) {}
  void LayerSetUp(const vector<Blob<Dtype>*>& bottom,
                  const vector<Blob<Dtype>*>& top) override;
  const char* type() const override { return "Log"; }
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

  Dtype base_scale_ = 1;          // 1 / ln(base)
  Dtype input_scale_ = 1;
  Dtype input_shift_ = 0;
  Dtype backward_num_scale_ = 1;  // scale / ln(base)
};

}  // namespace caffe

#endif  // CAFFE_LOG_LAYER_HPP_
