// AccuracyLayer ("Accuracy"): fraction of positions whose label is among the
// top_k highest scores.
//
// Contract: bottom 0 holds scores with the class axis accuracy_param.axis
// (default 1); bottom 1 one integer label per position of the other axes.
// Labels equal to ignore_label are skipped.  A prediction counts as correct
// when fewer than top_k other classes score at least as high as the true
// class (so ties count against it, as in Caffe).  Top 0 is the scalar
// accuracy; an optional top 1 (one entry per class) holds per-class
// accuracy.  Not differentiable: Backward throws if asked for a gradient.
#ifndef CAFFE_ACCURACY_LAYER_HPP_
#define CAFFE_ACCURACY_LAYER_HPP_

#include <vector>

#include "caffe/blob.hpp"
#include "caffe/layer.hpp"
#include "caffe/proto/caffe.pb.h"

namespace caffe {

template <typename Dtype>
class AccuracyLayer : public Layer<Dtype> {
 public:
  explicit AccuracyLayer(const LayerParameter& param) : Layer<Dtype>(param) {}
  void LayerSetUp(const vector<Blob<Dtype>*>& bottom,
                  const vector<Blob<Dtype>*>& top) override;
  void Reshape(const vector<Blob<Dtype>*>& bottom,
               const vector<Blob<Dtype>*>& top) override;

  const char* type() const override { return "Accuracy"; }
  int ExactNumBottomBlobs() const override { return 2; }
  int MinTopBlobs() const override { return 1; }
  int MaxTopBlobs() const override { return 2; }

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
                    const vector<Blob<Dtype>*>& bottom) override;

  int label_axis_ = 1;
  int outer_num_ = 0;
  int inner_num_ = 0;
  int top_k_ = 1;
  bool has_ignore_label_ = false;
  int ignore_label_ = 0;
};

}  // namespace caffe

#endif  // CAFFE_ACCURACY_LAYER_HPP_
