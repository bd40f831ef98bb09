// fused_steps.hpp: the interface Net runs fused steps through: consecutive
// layers whose element-wise work runs as one pass over memory per
// direction (fused_chain.hpp: BatchNorm -> Scale -> ReLU;
// fused_sum_relu.hpp: Eltwise SUM -> ReLU), on the device of
// Caffe::mode().
//
// Contract, for every kind:
//  * The members are layers first()..last(), consecutive in the net.
//  * in_place() is true when every member reads and writes one blob; when
//    it is false the fused pass reads one blob while it writes another,
//    so the caller runs it fused only where the memory plan hands no
//    memory over within the members' steps (NetMemory::HandsOverWithin).
//  * Fits(reshape) says whether the members can run fused at the current
//    shapes, reshaping them first when `reshape` (before a forward, as
//    Layer::Forward does); before a backward it checks the shapes of the
//    last forward.
//  * Forward() and Backward() leave every blob, kept copy and parameter
//    gradient with the bits the members' own Forward and Backward, run in
//    order, leave.  Backward assumes every member propagates down to
//    every bottom (the caller checks).  Both run on the device of
//    Caffe::mode().
//  * The caller (Net) decides when they may run fused and runs every
//    member's step hooks and callbacks around them.
#ifndef CAFFE_FUSED_STEPS_HPP_
#define CAFFE_FUSED_STEPS_HPP_

namespace caffe {

template <typename Dtype>
class FusedSteps {
 public:
  virtual ~FusedSteps() {}
  int first() const { return first_; }
  int last() const { return last_; }
  virtual bool in_place() const = 0;
  virtual bool Fits(bool reshape) = 0;
  virtual void Forward() = 0;
  virtual void Backward() = 0;

 protected:
  int first_ = 0, last_ = 0;
};

}  // namespace caffe

#endif  // CAFFE_FUSED_STEPS_HPP_
