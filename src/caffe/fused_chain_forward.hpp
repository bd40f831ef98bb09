// fused_chain_forward.hpp: FusedChain's forward, written once over a
// launch policy (util/elementwise.hpp): fused_chain.cpp instantiates it
// with CpuLaunch, fused_chain.cu with GpuLaunch.
//
// Two forms compute the same values (every element goes through the
// members' plane bodies in member order, after BatchNorm's channel body):
//  * by channel (the CPU, planes of kMinChannelRun elements or more): one
//    task per channel runs BatchNorm's statistics and then every member's
//    work on that channel's planes, while they are in cache;
//  * by plane (a GPU, and a CPU with shorter planes): BatchNorm's channel
//    bodies in one launch, then one launch in which each plane goes
//    through BatchNorm's, the Scale's and the ReLU's plane bodies in turn.
//    The element a GPU lane writes in one member's body is the one it
//    reads in the next (CAFFE_PLANE_LOOP gives a lane the same indices in
//    every body of a plane), so no member waits on another thread.
//    This needs every member after the first to have no channel work in
//    forward, which the static_asserts below hold.
#ifndef CAFFE_FUSED_CHAIN_FORWARD_HPP_
#define CAFFE_FUSED_CHAIN_FORWARD_HPP_

#include <type_traits>
#include <vector>

#include "caffe/fused_chain.hpp"
#include "caffe/layers/relu_layer.hpp"
#include "caffe/util/device_math.hpp"
#include "caffe/util/elementwise.hpp"
#include "layers/batch_norm_compute.hpp"
#include "layers/relu_kernels.hpp"
#include "layers/scale_compute.hpp"

namespace caffe {

// The plane body of a stage that may be off.
template <typename Stage>
Maybe<decltype(Stage::plane)> PlanesOf(const Maybe<Stage>& stage) {
  return {stage.body.plane, stage.on};
}

template <typename Dtype>
template <typename Body>
Maybe<ChannelStage<NoChannelWork, PlaneOf<Body> > > FusedChain<Dtype>::
    ReLUStage(const Body& body, bool on) const {
  return {MakeStage(NoChannelWork(), PlaneOf<Body>{body, inner_}, outer_,
                    channels_, inner_),
          on};
}

template <typename Dtype>
template <typename Launch>
void FusedChain<Dtype>::ForwardWith(const Launch& launch) {
  const bool gpu = Launch::gpu;
  const vector<Blob<Dtype>*>& v = blob_;
  // Each member prepares its stage in order, as its Forward would.
  using BatchNormStage =
      decltype(batch_norm_->ForwardStage(launch, input_, v));
  using ScaleStage = decltype(scale_->ForwardStage(launch, v, v));
  const Maybe<BatchNormStage> batch_norm{
      batch_norm_ ? batch_norm_->ForwardStage(launch, input_, v)
                  : BatchNormStage(),
      batch_norm_ != nullptr};
  const Maybe<ScaleStage> scale{
      scale_ ? scale_->ForwardStage(launch, v, v) : ScaleStage(),
      scale_ != nullptr};
  ReLUForward<Dtype> relu_body{};
  if (relu_) {
    relu_body = {DataOn(gpu, *blob_[0]), MutableDataOn(gpu, blob_[0]),
                 ReLUSlope()};
  }
  const auto relu = ReLUStage(relu_body, relu_ != nullptr);
  const long channel_work = static_cast<long>(outer_) * inner_;
  if (RunsByChannel(gpu, inner_)) {
    launch(channels_, GrainFor(channel_work),
           MakeThen(batch_norm, MakeThen(scale, relu)));
    return;
  }
  static_assert(std::is_same<decltype(ScaleStage::channel),
                             NoChannelWork>::value,
                "by plane, only the chain's first member has channel work");
  if (batch_norm_) {
    launch.Channels(channels_, channel_work, batch_norm.body.channel);
  }
  launch.Planes(static_cast<long>(outer_) * channels_, GrainFor(inner_),
                MakeThen(PlanesOf(batch_norm),
                         MakeThen(PlanesOf(scale), PlanesOf(relu))));
}

}  // namespace caffe

#endif  // CAFFE_FUSED_CHAIN_FORWARD_HPP_
