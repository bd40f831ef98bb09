// LSTMUnitLayer ("LSTMUnit"): one time step of the LSTM non-linearity, the
// piece LSTMLayer's unrolled net repeats at every step.
//
// Contract: bottoms c_{t-1} (1 x N x D), gate inputs X (1 x N x 4D, in
// Caffe's order i, f, o, g) and cont_t (1 x N); tops c_t and h_t (both
// 1 x N x D):
//     i = sigmoid(X_i)   f = cont * sigmoid(X_f)   o = sigmoid(X_o)
//     g = tanh(X_g)      c_t = f * c_{t-1} + i * g   h_t = o * tanh(c_t)
// so cont = 0 starts a new sequence by forgetting c_{t-1}.  cont is not
// differentiable (AllowForceBackward is false for it).  Backward recomputes
// the gates from the bottoms, so it reads bottom data and the layer keeps no
// state between forward and backward.
#ifndef CAFFE_LSTM_UNIT_LAYER_HPP_
#define CAFFE_LSTM_UNIT_LAYER_HPP_

#include <vector>

#include "caffe/blob.hpp"
#include "caffe/layer.hpp"
#include "caffe/proto/caffe.pb.h"

namespace caffe {

template <typename Dtype>
class LSTMUnitLayer : public Layer<Dtype> {
 public:
  explicit LSTMUnitLayer(const LayerParameter& param) : Layer<Dtype>(param) {}
  void Reshape(const vector<Blob<Dtype>*>& bottom,
               const vector<Blob<Dtype>*>& top) override;

  const char* type() const override { return "LSTMUnit"; }
  int ExactNumBottomBlobs() const override { return 3; }
  int ExactNumTopBlobs() const override { return 2; }
  bool AllowForceBackward(const int bottom_index) const override {
    return bottom_index != 2;
  }

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

  int num_ = 0;         // N: independent streams
  int hidden_dim_ = 0;  // D
};

}  // namespace caffe

#endif  // CAFFE_LSTM_UNIT_LAYER_HPP_
