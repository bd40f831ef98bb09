// clip_layer.hpp: Clip (BVLC master, after 1.0): y = max(min, min(max, x)).
//
// Contract: ClipParameter.min and .max (both required; min <= max, else
// an error naming the layer).  The gradient passes where min <= x <= max,
// as in Caffe, and is zero elsewhere.  Forward keeps which elements passed
// (one unsigned int each, like Dropout's mask), so backward reads no blob
// data and the layer may run in place: Caffe's own in-place Clip read the
// clipped top as its input and let every gradient through; LeanCaffe's
// gives the same gradient in place as out of place.
#ifndef CAFFE_CLIP_LAYER_HPP_
#define CAFFE_CLIP_LAYER_HPP_

#include <vector>

#include "caffe/layers/neuron_layer.hpp"

namespace caffe {

template <typename Dtype>
class ClipLayer : public NeuronLayer<Dtype> {
 public:
  explicit ClipLayer(const LayerParameter& param)
      : NeuronLayer<Dtype>(param) {}
  void LayerSetUp(const vector<Blob<Dtype>*>& bottom,
                  const vector<Blob<Dtype>*>& top) override;
  void Reshape(const vector<Blob<Dtype>*>& bottom,
               const vector<Blob<Dtype>*>& top) override;
  const char* type() const override { return "Clip"; }

  // The memory contract (layer.hpp MemoryContract).
  MemoryContract Memory() const override {
    MemoryContract c;
    c.backward_reads = kReadsNothing;
    c.in_place = true;
    return c;
  }
  size_t InternalBytes() const override {
    return static_cast<size_t>(passed_.count()) * sizeof(unsigned int);
  }
  void KeptMemory(vector<SyncedMemory*>* kept) const override {
    this->KeepBlobMemory(passed_, kept);
  }

 protected:
  void Forward_cpu(const vector<Blob<Dtype>*>& bottom,
                   const vector<Blob<Dtype>*>& top) override;
  void Backward_cpu(const vector<Blob<Dtype>*>& top,
                    const vector<bool>& propagate_down,
                    const vector<Blob<Dtype>*>& bottom) override;
  DECLARE_LAUNCH_POLICY_BODIES;
  DECLARE_GPU_FORWARD_BACKWARD;

  Blob<unsigned int> passed_;  // 1 where min <= x <= max
};

}  // namespace caffe

#endif  // CAFFE_CLIP_LAYER_HPP_
