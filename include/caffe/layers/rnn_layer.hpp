// RNNLayer ("RNN"): a simple (Elman) recurrent layer, as in Caffe 1.0.
//
// Contract: see RecurrentLayer for bottoms, tops and state handling.  With
// H = recurrent_param.num_output, for t = 1..T:
//     h_t = tanh(W_hh (cont_t * h_{t-1}) + W_xh x_t + b_h [+ W_xh_static x_static])
//     o_t = tanh(W_ho h_t + b_o)
// The top is o (T x N x H); with expose_hidden the extra bottom/top is h_0 /
// h_T (1 x N x H).  blobs() are, in Caffe's order: W_xh (H x K), b_h (H),
// [W_xh_static (H x K_static)], W_hh (H x H), W_ho (H x H), b_o (H).
#ifndef CAFFE_RNN_LAYER_HPP_
#define CAFFE_RNN_LAYER_HPP_

#include <string>
#include <vector>

#include "caffe/layers/recurrent_layer.hpp"

namespace caffe {

template <typename Dtype>
class RNNLayer : public RecurrentLayer<Dtype> {
 public:
  explicit RNNLayer(const LayerParameter& param)
      : RecurrentLayer<Dtype>(param) {}
  const char* type() const override { return "RNN"; }

 protected:
  void FillUnrolledNet(NetParameter* net_param) const override;
  void RecurrentInputBlobNames(vector<string>* names) const override;
  void RecurrentOutputBlobNames(vector<string>* names) const override;
  void RecurrentInputShapes(vector<BlobShape>* shapes) const override;
  void OutputBlobNames(vector<string>* names) const override;
};

}  // namespace caffe

#endif  // CAFFE_RNN_LAYER_HPP_
