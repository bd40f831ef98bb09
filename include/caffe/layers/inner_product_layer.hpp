// InnerProductLayer ("InnerProduct"): a fully connected layer.
//
// Contract: the bottom is viewed as an M x K matrix, where M is the product of
// the axes before `axis` and K the product of the axes from `axis` on; the top
// has the bottom's leading axes followed by num_output.  The weight blob is
// N x K (or K x N when transpose is set, as Caffe stores it then), plus an
// N-vector bias when bias_term.  Weights loaded from a model are kept; K may
// not change after setup (the weights fix it).  Backward reads the bottom data
// (for the weight gradient).
#ifndef CAFFE_INNER_PRODUCT_LAYER_HPP_
#define CAFFE_INNER_PRODUCT_LAYER_HPP_

#include <vector>

#include "caffe/blob.hpp"
#include "caffe/layer.hpp"
#include "caffe/proto/caffe.pb.h"

namespace caffe {

template <typename Dtype>
class InnerProductLayer : public Layer<Dtype> {
 public:
  explicit InnerProductLayer(const LayerParameter& param)
      : Layer<Dtype>(param) {}
  void LayerSetUp(const vector<Blob<Dtype>*>& bottom,
                  const vector<Blob<Dtype>*>& top) override;
  void Reshape(const vector<Blob<Dtype>*>& bottom,
               const vector<Blob<Dtype>*>& top) override;

  const char* type() const override { return "InnerProduct"; }
  int ExactNumBottomBlobs() const override { return 1; }
  int ExactNumTopBlobs() const override { return 1; }

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
  DECLARE_GPU_FORWARD_BACKWARD;

 private:
  DECLARE_ON_BODIES;

 protected:
  int M_ = 0;  // rows (samples)
  int K_ = 0;  // inputs per sample
  int N_ = 0;  // outputs per sample
  int axis_ = 1;
  bool bias_term_ = true;
  bool transpose_ = false;
  // M ones: lets the bias be added and reduced with one BLAS call.
  Blob<Dtype> bias_multiplier_;
};

}  // namespace caffe

#endif  // CAFFE_INNER_PRODUCT_LAYER_HPP_
