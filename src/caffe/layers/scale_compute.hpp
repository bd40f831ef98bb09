// scale_compute.hpp: the Scale layer's forward and backward, written once over a launch policy
// (util/elementwise.hpp): scale_layer.cpp runs it with CpuLaunch,
// scale_layer.cu with GpuLaunch.
#ifndef CAFFE_SCALE_COMPUTE_HPP_
#define CAFFE_SCALE_COMPUTE_HPP_

#include <vector>

#include "caffe/layers/scale_layer.hpp"
#include "caffe/util/device_math.hpp"
#include "caffe/util/elementwise.hpp"

namespace caffe {

template <typename Dtype>
template <typename Launch>
void ScaleLayer<Dtype>::ForwardWith(const Launch& launch,
    const vector<Blob<Dtype>*>& bottom, const vector<Blob<Dtype>*>& top) {
  const bool gpu = Launch::gpu;
  const Dtype* x = DataOn(gpu, *bottom[0]);
  if (bottom[0] == top[0] && !borrowed_) {
    // Backward needs x, which the output is about to replace.
    CopyOn(gpu, bottom[0]->count(), x, MutableDataOn(gpu, &temp_));
  }
  const Dtype* s =
      DataOn(gpu, (bottom.size() > 1) ? *bottom[1] : *this->blobs_[0]);
  Dtype* y = MutableDataOn(gpu, top[0]);
  const ChannelPlanes<Dtype, MulOp<Dtype> > body{x, s, y, scale_dim_,
                                                 inner_dim_, MulOp<Dtype>()};
  launch(static_cast<long>(outer_dim_) * scale_dim_, GrainFor(inner_dim_),
         body);
  if (bias_layer_) bias_layer_->Forward(bias_bottom_vec_, top);
}

template <typename Dtype>
template <typename Launch>
void ScaleLayer<Dtype>::BackwardWith(const Launch& launch,
    const vector<Blob<Dtype>*>& top, const vector<bool>& propagate_down,
    const vector<Blob<Dtype>*>& bottom) {
  const bool gpu = Launch::gpu;
  if (bias_layer_ && this->param_propagate_down_[bias_param_id_]) {
    bias_layer_->Backward(top, bias_propagate_down_, bias_bottom_vec_);
  }
  const bool scale_is_param = (bottom.size() == 1);
  Blob<Dtype>* scale = scale_is_param ? this->blobs_[0].get() : bottom[1];
  const Dtype* dy = DiffOn(gpu, *top[0]);
  // The scale gradient first: in place, the bottom diff overwrites dy.
  if (scale_is_param ? this->param_propagate_down_[0] : propagate_down[1]) {
    const Dtype* x =
        (bottom[0] == top[0]) ? DataOn(gpu, temp_) : DataOn(gpu, *bottom[0]);
    Dtype* ds = MutableDiffOn(gpu, scale);
    // Parameter diffs accumulate; a bottom's diff is overwritten.
    if (!scale_is_param) SetOn(gpu, scale_dim_, Dtype(0), ds);
    // ds[d] += the sum of dy * x over the channel.
    const ChannelSum<Dtype, ProductTerm<Dtype> > body{
        ds, outer_dim_, scale_dim_, inner_dim_, ProductTerm<Dtype>{dy, x}};
    launch(scale_dim_, GrainFor(static_cast<long>(outer_dim_) * inner_dim_),
           body);
  }
  if (propagate_down[0]) {
    const ChannelPlanes<Dtype, MulOp<Dtype> > body{
        dy, DataOn(gpu, *scale), MutableDiffOn(gpu, bottom[0]), scale_dim_,
        inner_dim_, MulOp<Dtype>()};
    launch(static_cast<long>(outer_dim_) * scale_dim_, GrainFor(inner_dim_),
           body);
  }
}

}  // namespace caffe

#endif  // CAFFE_SCALE_COMPUTE_HPP_
