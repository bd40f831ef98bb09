// ReductionLayer ("Reduction"): reduces all axes from `axis` on to a scalar
// per leading index, with SUM, ASUM (sum of |x|), SUMSQ (sum of x^2) or MEAN,
// then scales by coeff.
//
// Contract: reduction_param.operation (default SUM), axis (default 0, may be
// negative; must name an existing axis) and coeff (default 1).  The top's
// shape is the bottom's axes before `axis` (a scalar, shape {}, for axis 0).
// Backward reads the bottom data for ASUM and SUMSQ (their gradients depend
// on x) and nothing for SUM and MEAN.  Not in place: the shapes differ.
#ifndef CAFFE_REDUCTION_LAYER_HPP_
#define CAFFE_REDUCTION_LAYER_HPP_

#include <vector>

#include "caffe/blob.hpp"
#include "caffe/layer.hpp"
#include "caffe/proto/caffe.pb.h"

namespace caffe {

template <typename Dtype>
class ReductionLayer : public Layer<Dtype> {
 public:
  explicit ReductionLayer(const LayerParameter& param) : Layer<Dtype>(param) {}
  void LayerSetUp(const vector<Blob<Dtype>*>& bottom,
                  const vector<Blob<Dtype>*>& top) override;
  void Reshape(const vector<Blob<Dtype>*>& bottom,
               const vector<Blob<Dtype>*>& top) override;

  const char* type() const override { return "Reduction"; }
  int ExactNumBottomBlobs() const override { return 1; }
  int ExactNumTopBlobs() const override { return 1; }

  // The memory contract (layer.hpp MemoryContract).
  MemoryContract Memory() const override {
    MemoryContract c;
    c.backward_reads = DeclaredBackwardReads();
    return c;
  }

 protected:
  void Forward_cpu(const vector<Blob<Dtype>*>& bottom,
                   const vector<Blob<Dtype>*>& top) override;
  void Backward_cpu(const vector<Blob<Dtype>*>& top,
                    const vector<bool>& propagate_down,
                    const vector<Blob<Dtype>*>& bottom) override;
  DECLARE_GPU_FORWARD_BACKWARD;
  DECLARE_ON_BODIES;

  ReductionParameter_ReductionOp op_ = ReductionParameter_ReductionOp_SUM;
  // coeff, divided by dim_ for MEAN.
  Dtype coeff_ = 1;
  int axis_ = 0;
  int num_ = 0;  // outputs: product of the axes before axis_
  int dim_ = 0;  // inputs reduced into each output

 private:
  int DeclaredBackwardReads() const {
    const ReductionParameter_ReductionOp op =
        this->layer_param_.reduction_param().operation();
    return (op == ReductionParameter_ReductionOp_ASUM ||
            op == ReductionParameter_ReductionOp_SUMSQ)
               ? kReadsBottomData
               : kReadsNothing;
  }
};

}  // namespace caffe

#endif  // CAFFE_REDUCTION_LAYER_HPP_
