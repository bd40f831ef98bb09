// dropout_layer.hpp: dropout (Hinton et al. 2012) with inverted scaling.
//
// Contract: DropoutParameter.dropout_ratio p in [0, 1) (default 0.5).  In
// TRAIN each element is kept with probability 1 - p and scaled by
// 1 / (1 - p), so TEST is the identity.  The keep mask (one unsigned int per
// element, TRAIN only) is kept between forward and backward and reported by
// InternalBytes; backward reads neither bottom nor top data, so in place is
// allowed.  The mask draws from Caffe::rng(), so random_seed repeats it.
#ifndef CAFFE_DROPOUT_LAYER_HPP_
#define CAFFE_DROPOUT_LAYER_HPP_

#include <vector>

#include "caffe/layers/neuron_layer.hpp"

namespace caffe {

template <typename Dtype>
class DropoutLayer : public NeuronLayer<Dtype> {
 public:
  explicit DropoutLayer(const LayerParameter& param)
      : NeuronLayer<Dtype>(param) {}
  void LayerSetUp(const vector<Blob<Dtype>*>& bottom,
                  const vector<Blob<Dtype>*>& top) override;
  void Reshape(const vector<Blob<Dtype>*>& bottom,
               const vector<Blob<Dtype>*>& top) override;
  const char* type() const override { return "Dropout"; }
  // The memory contract (layer.hpp MemoryContract).
  MemoryContract Memory() const override {
    MemoryContract c;
    c.backward_reads = kReadsNothing;
    c.in_place = true;
    return c;
  }
  size_t InternalBytes() const override {
    return static_cast<size_t>(rand_vec_.count()) * sizeof(unsigned int);
  }
  void KeptMemory(vector<SyncedMemory*>* kept) const override {
    this->KeepBlobMemory(rand_vec_, kept);
  }

 protected:
  void Forward_cpu(const vector<Blob<Dtype>*>& bottom,
                   const vector<Blob<Dtype>*>& top) override;
  void Backward_cpu(const vector<Blob<Dtype>*>& top,
                    const vector<bool>& propagate_down,
                    const vector<Blob<Dtype>*>& bottom) override;
  DECLARE_GPU_FORWARD_BACKWARD;

  // 1 where the element is kept; sized only in TRAIN.
  Blob<unsigned int> rand_vec_;
  Dtype threshold_ = 0.5;  // the dropout ratio p
  Dtype scale_ = 2;        // 1 / (1 - p)
};

}  // namespace caffe

#endif  // CAFFE_DROPOUT_LAYER_HPP_
