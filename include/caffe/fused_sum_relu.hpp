// fused_sum_relu.hpp: an Eltwise SUM of two bottoms followed by a ReLU in
// place on its top (the end of every ResNet block) run as one pass over
// memory per direction, on the CPU or a GPU.
//
// Run one by one, the sum writes its top and the ReLU reads and rewrites
// it; backward, the ReLU rewrites the top's gradient and the sum reads it
// again for the bottoms.  Fused, forward reads the two bottoms and writes
// the rectified sum once; backward reads the top and its gradient once and
// writes the masked gradient and both bottoms' gradients in the same pass.
//
// Contract (FusedSteps, fused_steps.hpp, for the rest):
//  * Find(net layers, bottoms, tops, first) returns the pair that starts at
//    layer `first`, or null: layer `first` an Eltwise SUM with exactly two
//    bottoms, layer first + 1 a ReLU with that Eltwise's top as bottom and
//    top, neither with a loss weight.
//  * in_place() is false (the sum reads its bottoms while it writes its
//    top); Fits always holds once the members are reshaped.
//  * Forward computes (0 + c0 * a) + c1 * b as the Eltwise does, then the
//    ReLU's max(z, 0) + slope * min(z, 0) on that rounded value: the
//    members' bits.  Backward writes the ReLU's gradient into the top's
//    diff, as the in-place ReLU does, and c_i times it into each bottom's
//    diff, skipping a bottom whose diff is the top's (gradient aliasing
//    under mem_param), as the Eltwise does.
#ifndef CAFFE_FUSED_SUM_RELU_HPP_
#define CAFFE_FUSED_SUM_RELU_HPP_

#include <memory>
#include <vector>

#include "caffe/blob.hpp"
#include "caffe/fused_steps.hpp"
#include "caffe/layer.hpp"

namespace caffe {

template <typename Dtype> class EltwiseLayer;
template <typename Dtype> class ReLULayer;

template <typename Dtype>
class FusedSumReLU : public FusedSteps<Dtype> {
 public:
  static std::shared_ptr<FusedSumReLU> Find(
      const vector<shared_ptr<Layer<Dtype> > >& layers,
      const vector<vector<Blob<Dtype>*> >& bottoms,
      const vector<vector<Blob<Dtype>*> >& tops, int first);

  bool in_place() const override { return false; }
  bool Fits(bool reshape) override;
  void Forward() override;
  void Backward() override;

 private:
  FusedSumReLU() {}
  Dtype Slope() const;
  // fused_sum_relu_compute.hpp; the GPU forms in fused_sum_relu.cu.
  template <typename Launch>
  void ForwardWith(const Launch& launch);
  template <typename Launch>
  void BackwardWith(const Launch& launch);
#ifdef USE_CUDA
  void ForwardGpu();
  void BackwardGpu();
#endif

  EltwiseLayer<Dtype>* sum_ = nullptr;
  ReLULayer<Dtype>* relu_ = nullptr;
  vector<Blob<Dtype>*> bottoms_;  // the sum's two bottoms
  vector<Blob<Dtype>*> top_;      // the sum's top, the ReLU's blob
};

}  // namespace caffe

#endif  // CAFFE_FUSED_SUM_RELU_HPP_
