// HingeLossLayer ("HingeLoss"): the one-vs-all hinge loss for multi-class
// scores, as used for SVM-style classifiers.
//
// Contract (Caffe 1.0): bottom 0 holds scores, N x K (K = count / N); bottom
// 1 holds one integer label in [0, K) per item.  With t = +1 at the label and
// -1 elsewhere, h[n, k] = max(0, 1 - t * x[n, k]), and
//   L1 (default): E = 1/N sum h,   L2: E = 1/N sum h^2.
// The gradient is -t / N where h > 0 (L1; 0 where h = 0) or -2 t h / N (L2),
// times the top diff.  Caffe keeps h in the bottom diff between forward and
// backward; here backward recomputes h from the bottom data instead, so it
// reads the bottom data (scores and labels) and keeps nothing.  Labels
// cannot be backpropagated to.
#ifndef CAFFE_HINGE_LOSS_LAYER_HPP_
#define CAFFE_HINGE_LOSS_LAYER_HPP_

#include <vector>

#include "caffe/blob.hpp"
#include "caffe/layer.hpp"
#include "caffe/layers/loss_layer.hpp"
#include "caffe/proto/caffe.pb.h"

namespace caffe {

template <typename Dtype>
class HingeLossLayer : public LossLayer<Dtype> {
 public:
  explicit HingeLossLayer(const LayerParameter& param)
      : LossLayer<Dtype>(param) {}
  void Reshape(const vector<Blob<Dtype>*>& bottom,
               const vector<Blob<Dtype>*>& top) override;

  const char* type() const override { return "HingeLoss"; }

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

  // Checks every item's label (bottom 1) against [0, K) on the host, so the
  // bodies (hinge_loss_compute.hpp) can read them on either device.
  void CheckLabels(const vector<Blob<Dtype>*>& bottom) const;
  bool L2() const {
    return this->layer_param_.hinge_loss_param().norm() ==
           HingeLossParameter_Norm_L2;
  }
};

}  // namespace caffe

#endif  // CAFFE_HINGE_LOSS_LAYER_HPP_
