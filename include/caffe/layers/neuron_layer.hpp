// neuron_layer.hpp: base for element-wise layers (ReLU, Sigmoid, Power, ...).
//
// Contract: exactly one bottom and one top; the top always takes the
// bottom's shape, so top[0][i] depends on bottom[0][i] alone.  Not
// registered: it is only a base class.  Subclasses still declare their own
// BackwardReads / AllowsInPlace, since those differ from layer to layer.
#ifndef CAFFE_NEURON_LAYER_HPP_
#define CAFFE_NEURON_LAYER_HPP_

#include <vector>

#include "caffe/blob.hpp"
#include "caffe/layer.hpp"
#include "caffe/proto/caffe.pb.h"

namespace caffe {

template <typename Dtype>
class NeuronLayer : public Layer<Dtype> {
 public:
  explicit NeuronLayer(const LayerParameter& param) : Layer<Dtype>(param) {}
  void Reshape(const vector<Blob<Dtype>*>& bottom,
               const vector<Blob<Dtype>*>& top) override {
    // In place the top already is the bottom; reshaping it is a no-op.
    if (top[0] != bottom[0]) top[0]->ReshapeLike(*bottom[0]);
  }
  int ExactNumBottomBlobs() const override { return 1; }
  int ExactNumTopBlobs() const override { return 1; }
};

}  // namespace caffe

#endif  // CAFFE_NEURON_LAYER_HPP_
