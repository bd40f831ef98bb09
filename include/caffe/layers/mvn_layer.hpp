// MVNLayer ("MVN"): mean-variance normalization of each sample (or each
// channel of each sample).
//
// Contract (Caffe 1.0): mvn_param.normalize_variance (default true),
// across_channels (default false) and eps (default 1e-9).  The bottom is read
// through the legacy N x C x H x W view (at most 4 axes).  Each group -- one
// (n, c) plane, or all of sample n when across_channels -- gets
//   y = x - mean(x)                      without normalize_variance,
//   y = (x - mean(x)) / (std(x) + eps)   with it,
// where std is the population standard deviation; note eps is added to the
// standard deviation, not the variance, as in Caffe.  The top takes the
// bottom's shape.
//
// Backward uses Caffe's formula
//   dx = (dy - mean(dy) - y * mean(y * dy)) / (std + eps),
// which needs the top data and the per-group std + eps (kept internally,
// InternalBytes), or just dx = dy - mean(dy) without normalize_variance
// (reads nothing).  Each group's sums are taken before its diff is written,
// so unlike Caffe's version this one may run in place.
#ifndef CAFFE_MVN_LAYER_HPP_
#define CAFFE_MVN_LAYER_HPP_

#include <vector>

#include "caffe/blob.hpp"
#include "caffe/layer.hpp"
#include "caffe/proto/caffe.pb.h"

namespace caffe {

template <typename Dtype>
class MVNLayer : public Layer<Dtype> {
 public:
  explicit MVNLayer(const LayerParameter& param) : Layer<Dtype>(param) {}
  void Reshape(const vector<Blob<Dtype>*>& bottom,
               const vector<Blob<Dtype>*>& top) override;

  const char* type() const override { return "MVN"; }
  int ExactNumBottomBlobs() const override { return 1; }
  int ExactNumTopBlobs() const override { return 1; }

  // The memory contract (layer.hpp MemoryContract).
  MemoryContract Memory() const override {
    MemoryContract c;
    c.backward_reads = this->layer_param_.mvn_param().normalize_variance() ? kReadsTopData : kReadsNothing;
    c.in_place = true;
    return c;
  }
  size_t InternalBytes() const override {
    return static_cast<size_t>(scale_.count()) * sizeof(Dtype);
  }

 protected:
  void Forward_cpu(const vector<Blob<Dtype>*>& bottom,
                   const vector<Blob<Dtype>*>& top) override;
  void Backward_cpu(const vector<Blob<Dtype>*>& top,
                    const vector<bool>& propagate_down,
                    const vector<Blob<Dtype>*>& bottom) override;
  DECLARE_LAUNCH_POLICY_BODIES;
  DECLARE_GPU_FORWARD_BACKWARD;

  int groups_ = 0;  // normalized groups
  int dim_ = 0;     // elements per group
  // Per group std + eps, saved by forward for backward (normalize_variance).
  Blob<Dtype> scale_;
};

}  // namespace caffe

#endif  // CAFFE_MVN_LAYER_HPP_
