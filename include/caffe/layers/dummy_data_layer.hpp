// dummy_data_layer.hpp: "DummyData" produces filler-generated tops, for
// testing and for nets that need a constant input.
//
// Contract (Caffe 1.0): no bottoms.  Shapes come from dummy_data_param.shape
// (once, or once per top) or from the legacy num/channels/height/width (each
// once, or once per top; not mixed with shape).  data_filler is given zero
// times (constant 0), once (shared) or once per top.  Constant fillers fill
// their tops once at setup; all others refill on every Forward.  Backward
// does nothing and reads nothing.
#ifndef CAFFE_LAYERS_DUMMY_DATA_LAYER_HPP_
#define CAFFE_LAYERS_DUMMY_DATA_LAYER_HPP_

#include <memory>
#include <vector>

#include "caffe/filler.hpp"
#include "caffe/layer.hpp"

namespace caffe {

template <typename Dtype>
class DummyDataLayer : public Layer<Dtype> {
 public:
  explicit DummyDataLayer(const LayerParameter& param) : Layer<Dtype>(param) {}
  void LayerSetUp(const vector<Blob<Dtype>*>& bottom,
                  const vector<Blob<Dtype>*>& top) override;
  // Shapes are fixed at setup.
  void Reshape(const vector<Blob<Dtype>*>& bottom,
               const vector<Blob<Dtype>*>& top) override {}

  const char* type() const override { return "DummyData"; }
  int ExactNumBottomBlobs() const override { return 0; }
  int MinTopBlobs() const override { return 1; }
  // The memory contract (layer.hpp MemoryContract).
  MemoryContract Memory() const override {
    MemoryContract c;
    c.backward_reads = kReadsNothing;
    return c;
  }

 protected:
  void Forward_cpu(const vector<Blob<Dtype>*>& bottom,
                   const vector<Blob<Dtype>*>& top) override;
  void Backward_cpu(const vector<Blob<Dtype>*>& top,
                    const vector<bool>& propagate_down,
                    const vector<Blob<Dtype>*>& bottom) override {}

  vector<shared_ptr<Filler<Dtype> > > fillers_;
  // Per filler: whether Forward fills again (false for constant fillers).
  vector<bool> refill_;
};

}  // namespace caffe

#endif  // CAFFE_LAYERS_DUMMY_DATA_LAYER_HPP_
