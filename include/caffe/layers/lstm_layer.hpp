// LSTMLayer ("LSTM"): long short-term memory, as in Caffe 1.0.
//
// Contract: see RecurrentLayer for bottoms, tops and state handling.  With
// H = recurrent_param.num_output, for t = 1..T:
//     gates_t = W_hc (cont_t * h_{t-1}) + W_xc x_t + b_c [+ W_xc_static x_static]
//     c_t, h_t = LSTMUnit(c_{t-1}, gates_t, cont_t)   (gate order i, f, o, g)
// The top is h (T x N x H).  With expose_hidden the extra bottoms are h_0,
// c_0 and the extra tops h_T, c_T (each 1 x N x H), in that order.
// blobs() are, in Caffe's order: W_xc (4H x K), b_c (4H),
// [W_xc_static (4H x K_static)], W_hc (4H x H).
#ifndef CAFFE_LSTM_LAYER_HPP_
#define CAFFE_LSTM_LAYER_HPP_

#include <string>
#include <vector>

#include "caffe/layers/lstm_unit_layer.hpp"  // Caffe declared it here
#include "caffe/layers/recurrent_layer.hpp"

namespace caffe {

template <typename Dtype>
class LSTMLayer : public RecurrentLayer<Dtype> {
 public:
  explicit LSTMLayer(const LayerParameter& param)
      : RecurrentLayer<Dtype>(param) {}
  const char* type() const override { return "LSTM"; }

 protected:
  void FillUnrolledNet(NetParameter* net_param) const override;
  void RecurrentInputBlobNames(vector<string>* names) const override;
  void RecurrentOutputBlobNames(vector<string>* names) const override;
  void RecurrentInputShapes(vector<BlobShape>* shapes) const override;
  void OutputBlobNames(vector<string>* names) const override;
};

}  // namespace caffe

#endif  // CAFFE_LSTM_LAYER_HPP_
