// input_layer.hpp: "Input" declares the net's externally fed blobs.
//
// Contract (Caffe 1.0): no bottoms, one or more tops.  input_param.shape is
// given once per top, once for all tops, or not at all (tops are then shaped
// by the caller).  Forward leaves the tops untouched, since the caller
// writes their data; Backward does nothing and reads nothing.
#ifndef CAFFE_LAYERS_INPUT_LAYER_HPP_
#define CAFFE_LAYERS_INPUT_LAYER_HPP_

#include <vector>

#include "caffe/layer.hpp"

namespace caffe {

template <typename Dtype>
class InputLayer : public Layer<Dtype> {
 public:
  explicit InputLayer(const LayerParameter& param) : Layer<Dtype>(param) {}
  void LayerSetUp(const vector<Blob<Dtype>*>& bottom,
                  const vector<Blob<Dtype>*>& top) override;
  // The caller owns the top shapes after setup.
  void Reshape(const vector<Blob<Dtype>*>& bottom,
               const vector<Blob<Dtype>*>& top) override {}

  const char* type() const override { return "Input"; }
  int ExactNumBottomBlobs() const override { return 0; }
  int MinTopBlobs() const override { return 1; }
  // The memory contract (layer.hpp MemoryContract).
  MemoryContract Memory() const override {
    MemoryContract c;
    c.backward_reads = kReadsNothing;
    c.counts_over_int_max = true;  // it shapes its tops, nothing more
    return c;
  }

 protected:
  void Forward_cpu(const vector<Blob<Dtype>*>& bottom,
                   const vector<Blob<Dtype>*>& top) override {}
  void Backward_cpu(const vector<Blob<Dtype>*>& top,
                    const vector<bool>& propagate_down,
                    const vector<Blob<Dtype>*>& bottom) override {}
};

}  // namespace caffe

#endif  // CAFFE_LAYERS_INPUT_LAYER_HPP_
