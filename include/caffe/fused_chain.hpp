// fused_chain.hpp: an in-place chain of BatchNorm, Scale and ReLU layers
// run as one pass over memory per direction on the CPU, and on a GPU as
// one pass after BatchNorm's statistics forward and one after the chain's
// sums backward.
//
// ResNet-style nets follow most convolutions with BatchNorm -> Scale ->
// ReLU, all in place on the convolution's output.  Run one by one, each
// layer streams the whole activation through memory (and BatchNorm and
// Scale several times, for their sums); fused, each channel is read from
// memory once and every member's work on it runs while it is in cache.
//
// Contract:
//  * Find(net layers, bottoms, tops, first) returns the chain that starts
//    at layer `first`, or null.  A chain is two or three consecutive
//    layers in the order [BatchNorm] [Scale] [ReLU], each with one bottom
//    and one top, all the same blob (in place), none with a loss weight;
//    its Scale has one bottom (a learned scale) on axis 1.  A BatchNorm
//    may start the chain out of place (its top another blob than its
//    bottom; the later members in place on that top), as nets converted
//    from other frameworks and CHEAP recomputation's rewrite write it.
//    Such a chain reads its input while the later members' steps run, so
//    the caller fuses it only where the memory plan hands no memory over
//    inside the chain's steps (NetMemory::HandsOverWithin).
//  * Fits(reshape) says whether the chain can run fused at the current
//    shapes: a Scale covering exactly the channels; otherwise the caller
//    runs the members one by one.  Before a forward it reshapes the
//    members first (reshape = true, as Layer::Forward does); before a
//    backward it checks the shapes of the last forward (false).
//  * Forward() and Backward() compute exactly what the members' Forward
//    and Backward compute in order, bit for bit: the work is the layers'
//    own channel stages (their ForwardStage/BackwardStage), composed per
//    channel (on a GPU, and for planes shorter than kMinChannelRun, per
//    plane after BatchNorm's statistics: fused_chain_forward.hpp); only
//    the interleaving of channels and members changes, and a channel's
//    values depend on that channel alone.  Backward assumes every
//    member propagates down (the caller checks).  By channel, its ReLU
//    step takes the ReLU's input from the chain's kept copy (BatchNorm's normalized
//    output or Scale's copy of its input, through the Scale's affine step
//    again: the same two roundings) instead of reading the blob, one
//    stream from memory less; the mask is the one the blob gives.
//  * Forward and Backward run on the device of Caffe::mode().  On a GPU,
//    and on the CPU for planes shorter than kMinChannelRun, Backward runs
//    by plane (fused_chain_backward.hpp): the Scale's and BatchNorm's
//    four sums in one channel launch, then one plane launch, seven
//    streams of the activation instead of the layers' twelve; there the
//    ReLU's mask comes from the blob, not from the copy.
//  * The caller (Net) decides when a chain may run fused (no observer of
//    the values between members) and runs every member's step hooks and
//    callbacks around it.
#ifndef CAFFE_FUSED_CHAIN_HPP_
#define CAFFE_FUSED_CHAIN_HPP_

#include <memory>
#include <string>
#include <vector>

#include "caffe/blob.hpp"
#include "caffe/fused_steps.hpp"
#include "caffe/layer.hpp"
#include "caffe/util/elementwise.hpp"

namespace caffe {

template <typename Dtype> class BatchNormLayer;
template <typename Dtype> class ScaleLayer;
template <typename Dtype> class ReLULayer;

template <typename Dtype>
class FusedChain : public FusedSteps<Dtype> {
 public:
  static std::shared_ptr<FusedChain> Find(
      const vector<shared_ptr<Layer<Dtype> > >& layers,
      const vector<vector<Blob<Dtype>*> >& bottoms,
      const vector<vector<Blob<Dtype>*> >& tops, int first);

  // False when a BatchNorm starts the chain out of place.
  bool in_place() const override { return input_[0] == blob_[0]; }

  bool Fits(bool reshape) override;
  void Forward() override;
  void Backward() override;

 private:
  FusedChain() {}
  Dtype ReLUSlope() const;
  template <typename Launch>
  void ForwardWith(const Launch& launch);
  template <typename Launch>
  void BackwardByPlane(const Launch& launch);
#ifdef USE_CUDA
  void ForwardGpu();   // ForwardWith(GpuLaunch()), in fused_chain.cu
  void BackwardGpu();  // BackwardByPlane(GpuLaunch()), in fused_chain.cu
#endif
  // The ReLU's element body over the chain's planes, run when `on`.
  template <typename Body>
  Maybe<ChannelStage<NoChannelWork, PlaneOf<Body> > > ReLUStage(
      const Body& body, bool on) const;
  // The kept copy from which backward recomputes the ReLU's input, or
  // null when it must read the blob (no ReLU, no copy, a negative slope).
  const Blob<Dtype>* ReLUInputCopy() const;

  BatchNormLayer<Dtype>* batch_norm_ = nullptr;
  ScaleLayer<Dtype>* scale_ = nullptr;
  ReLULayer<Dtype>* relu_ = nullptr;
  vector<Blob<Dtype>*> input_;  // the first member's bottom
  vector<Blob<Dtype>*> blob_;   // every member's top, the later ones' bottom
  int outer_ = 0, channels_ = 0, inner_ = 0;  // set by Fits
};

}  // namespace caffe

#endif  // CAFFE_FUSED_CHAIN_HPP_
