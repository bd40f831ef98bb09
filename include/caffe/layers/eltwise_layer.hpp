// EltwiseLayer ("Eltwise"): combines two or more same-shaped bottoms element
// by element.
//
// Contract: eltwise_param.operation is SUM (weighted by one coeff per bottom,
// default 1), PROD (coeff not allowed) or MAX (ties go to the earlier bottom,
// except that bottom 1 wins a tie with bottom 0, as in Caffe).  All bottoms
// must have identical shapes.  What backward reads depends on the operation:
// SUM reads nothing; PROD reads bottom data, plus top data when
// stable_prod_grad is false (it then divides the top by each bottom); MAX
// reads only its internal argmax mask, reported by InternalBytes.  SUM with
// unit coefficients only copies the top's gradient to each bottom: under
// mem_param bottom 0's diff is the top's diff memory
// (MemoryContract::diff_alias_bottom) and its copy is skipped.
#ifndef CAFFE_ELTWISE_LAYER_HPP_
#define CAFFE_ELTWISE_LAYER_HPP_

#include <vector>

#include "caffe/blob.hpp"
#include "caffe/layer.hpp"
#include "caffe/proto/caffe.pb.h"

namespace caffe {

template <typename Dtype>
class EltwiseLayer : public Layer<Dtype> {
 public:
  explicit EltwiseLayer(const LayerParameter& param)
      : Layer<Dtype>(param), op_(param.eltwise_param().operation()),
        stable_prod_grad_(param.eltwise_param().stable_prod_grad()) {}
  void LayerSetUp(const vector<Blob<Dtype>*>& bottom,
                  const vector<Blob<Dtype>*>& top) override;
  void Reshape(const vector<Blob<Dtype>*>& bottom,
               const vector<Blob<Dtype>*>& top) override;

  const char* type() const override { return "Eltwise"; }
  int MinBottomBlobs() const override { return 2; }
  int ExactNumTopBlobs() const override { return 1; }
  // The operation and, after LayerSetUp, SUM's coefficients (one per
  // bottom), for a fused step (fused_sum_relu.hpp).
  EltwiseParameter_EltwiseOp operation() const { return op_; }
  const vector<Dtype>& coefficients() const { return coeffs_; }

  // The memory contract (layer.hpp MemoryContract).
  MemoryContract Memory() const override {
    MemoryContract c;
    c.backward_reads = DeclaredBackwardReads();
    if (UnitSum()) c.diff_alias_bottom = 0;
    // Each op's first pass reads bottoms 0 and 1 element by element before
    // writing the top's element; later bottoms are read after the top
    // holds partial results, so only the first two may lie under it.
    c.top_overwrites_bottoms = 2;
    c.counts_over_int_max = true;
    return c;
  }
  size_t InternalBytes() const override {
    return op_ == EltwiseParameter_EltwiseOp_MAX
               ? static_cast<size_t>(max_idx_.count64()) * sizeof(int)
               : 0;
  }
  void KeptMemory(vector<SyncedMemory*>* kept) const override {
    this->KeepBlobMemory(max_idx_, kept);
  }

 protected:
  void Forward_cpu(const vector<Blob<Dtype>*>& bottom,
                   const vector<Blob<Dtype>*>& top) override;
  void Backward_cpu(const vector<Blob<Dtype>*>& top,
                    const vector<bool>& propagate_down,
                    const vector<Blob<Dtype>*>& bottom) override;
  DECLARE_GPU_FORWARD_BACKWARD;
  DECLARE_ON_BODIES;

  EltwiseParameter_EltwiseOp op_;
  bool stable_prod_grad_;
  vector<Dtype> coeffs_;
  // For MAX: which bottom supplied each top element.
  Blob<int> max_idx_;

 private:
  void BackwardSum(bool gpu, const vector<Blob<Dtype>*>& top,
                   const vector<bool>& propagate_down,
                   const vector<Blob<Dtype>*>& bottom);
  bool UnitSum() const {
    if (op_ != EltwiseParameter_EltwiseOp_SUM) return false;
    for (float c : this->layer_param_.eltwise_param().coeff())
      if (c != 1.0f) return false;
    return true;
  }
  int DeclaredBackwardReads() const {
    if (op_ != EltwiseParameter_EltwiseOp_PROD) return kReadsNothing;
    return stable_prod_grad_ ? kReadsBottomData
                             : (kReadsBottomData | kReadsTopData);
  }
};

}  // namespace caffe

#endif  // CAFFE_ELTWISE_LAYER_HPP_
