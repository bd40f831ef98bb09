// scale_compute.hpp: the Scale layer's forward and backward, written once
// over a launch policy (util/elementwise.hpp): scale_layer.cpp runs it with
// CpuLaunch, scale_layer.cu with GpuLaunch.
#ifndef CAFFE_SCALE_COMPUTE_HPP_
#define CAFFE_SCALE_COMPUTE_HPP_

#include <vector>

#include "caffe/layers/scale_layer.hpp"
#include "caffe/util/device_math.hpp"
#include "caffe/util/channel_sums.hpp"
#include "caffe/util/elementwise.hpp"
#include "caffe/util/normalized_input.hpp"

namespace caffe {

// Channel d: the parameter gradients, acc_a[d] += the sum of dy (the
// bias's) and acc_b[d] += the sum of dy * x (the scale's), each only when
// given; x from a buffer, or normalized from a BatchNorm's input whose
// output this layer borrows (util/normalized_input.hpp).
template <typename Dtype>
struct ScaleParamSums {
  Dtype* acc_a;
  Dtype* acc_b;
  int outer, channels, inner;
  const Dtype* dy;
  NormalizedSource<Dtype> x;
  template <typename Values>
  CAFFE_KERNEL void Sums(long d, const Values& xd) const {
    const ChannelSumPair<Dtype, ValueTerm<Dtype>, ProductWith<Dtype, Values> >
        sums{acc_a, acc_b, outer, channels, inner, ValueTerm<Dtype>{dy},
             ProductWith<Dtype, Values>{dy, xd}};
    sums(d);
  }
  CAFFE_KERNEL CAFFE_HOST_NOINLINE void SumsOfInput(long d) const {
    Sums(d, x.Normalized(d));
  }
  CAFFE_KERNEL void operator()(long d) const {
    if (x.copied() || !acc_b) {
      Sums(d, x.Copied());
    } else {
      SumsOfInput(d);
    }
  }
};

// Plane by plane, y = x * s (+ b): each plane's copy of x (in place),
// product and bias in one visit, the product rounded before the bias is
// added, as the Bias layer adds it.  The bias is the inner Bias layer's
// blob, applied with its own body.
template <typename Dtype>
template <typename Launch>
auto ScaleLayer<Dtype>::ForwardStage(const Launch& launch,
    const vector<Blob<Dtype>*>& bottom, const vector<Blob<Dtype>*>& top) {
  const bool gpu = Launch::gpu;
  const Dtype* x = DataOn(gpu, *bottom[0]);
  // In place, backward needs x, which the output is about to replace
  // (unless the net runs no backward for this layer, or a rerun writes the
  // copy again before it).
  const bool keep_copy = bottom[0] == top[0] && borrowed_.empty() &&
                         this->backward_runs() &&
                         !this->rerun_before_backward();
  const Dtype* s =
      DataOn(gpu, (bottom.size() > 1) ? *bottom[1] : *this->blobs_[0]);
  Dtype* y = MutableDataOn(gpu, top[0]);
  const Maybe<PlaneCopy<Dtype> > copy{
      {x, keep_copy ? MutableDataOn(gpu, &temp_) : nullptr, inner_dim_},
      keep_copy};
  const ChannelPlanes<Dtype, MulOp<Dtype> > scale{x, s, y, scale_dim_,
                                                  inner_dim_, MulOp<Dtype>()};
  const Dtype* b = bias_layer_ ? DataOn(gpu, *bias_layer_->blobs()[0])
                               : nullptr;
  const Maybe<ChannelPlanes<Dtype, AddOp<Dtype> > > bias{
      {y, b, y, scale_dim_, inner_dim_, AddOp<Dtype>()}, b != nullptr};
  return MakeStage(NoChannelWork(), MakeThen(copy, MakeThen(scale, bias)),
                   outer_dim_, scale_dim_, inner_dim_);
}

template <typename Dtype>
template <typename Launch>
void ScaleLayer<Dtype>::ForwardWith(const Launch& launch,
    const vector<Blob<Dtype>*>& bottom, const vector<Blob<Dtype>*>& top) {
  // Planes only: no channel runs needed.
  const auto stage = ForwardStage(launch, bottom, top);
  launch.Planes(static_cast<long>(outer_dim_) * scale_dim_,
                GrainFor(inner_dim_), stage.plane);
}

// Per channel the parameter gradients (the bias's, as the Bias layer
// sums it, and the scale's), then per plane the bottom gradient: in place
// it overwrites dy, which the sums read first.
template <typename Dtype>
template <typename Launch>
auto ScaleLayer<Dtype>::BackwardStage(const Launch& launch,
    const vector<Blob<Dtype>*>& top, const vector<bool>& propagate_down,
    const vector<Blob<Dtype>*>& bottom) {
  const bool gpu = Launch::gpu;
  const bool scale_is_param = (bottom.size() == 1);
  Blob<Dtype>* scale = scale_is_param ? this->blobs_[0].get() : bottom[1];
  const Dtype* dy = DiffOn(gpu, *top[0]);

  const bool bias_diff =
      bias_layer_ && this->param_propagate_down_[bias_param_id_];
  Dtype* db = bias_diff ? MutableDiffOn(gpu, bias_layer_->blobs()[0].get())
                        : nullptr;
  const bool scale_diff =
      scale_is_param ? this->param_propagate_down_[0] : propagate_down[1];
  Dtype* ds = scale_diff ? MutableDiffOn(gpu, scale) : nullptr;
  // Parameter diffs accumulate; a bottom's diff is overwritten.
  if (scale_diff && !scale_is_param) SetOn(gpu, scale_dim_, Dtype(0), ds);
  // The input: this layer's copy (its own or borrowed), a BatchNorm's
  // input normalized again, or the bottom itself out of place.
  NormalizedSource<Dtype> x;
  if (ds) {
    if (bottom[0] != top[0]) {
      x = CopySource(DataOn(gpu, *bottom[0]));
    } else if (borrowed_.input) {
      x = SourceOn(gpu, borrowed_);
    } else {
      x = CopySource(DataOn(gpu, temp_));
    }
  }
  // db[d] += the sum of dy, ds[d] += the sum of dy * x, over the channel.
  const ScaleParamSums<Dtype> sums{db, ds, outer_dim_, scale_dim_,
                                   inner_dim_, dy, x};
  const Maybe<ChannelPlanes<Dtype, MulOp<Dtype> > > bottom_diff{
      {dy, DataOn(gpu, *scale),
       propagate_down[0] ? MutableDiffOn(gpu, bottom[0]) : nullptr,
       scale_dim_, inner_dim_, MulOp<Dtype>()},
      propagate_down[0]};
  return MakeStage(sums, bottom_diff, outer_dim_, scale_dim_, inner_dim_);
}

template <typename Dtype>
template <typename Launch>
void ScaleLayer<Dtype>::BackwardWith(const Launch& launch,
    const vector<Blob<Dtype>*>& top, const vector<bool>& propagate_down,
    const vector<Blob<Dtype>*>& bottom) {
  LaunchStage(launch, BackwardStage(launch, top, propagate_down, bottom));
}

}  // namespace caffe

#endif  // CAFFE_SCALE_COMPUTE_HPP_
