// bias_compute.hpp: the Bias layer's forward and backward, written once over a launch policy
// (util/elementwise.hpp): bias_layer.cpp runs it with CpuLaunch,
// bias_layer.cu with GpuLaunch.
#ifndef CAFFE_BIAS_COMPUTE_HPP_
#define CAFFE_BIAS_COMPUTE_HPP_

#include <vector>

#include "caffe/layers/bias_layer.hpp"
#include "caffe/util/device_math.hpp"
#include "caffe/util/channel_sums.hpp"
#include "caffe/util/elementwise.hpp"

namespace caffe {

template <typename Dtype>
template <typename Launch>
void BiasLayer<Dtype>::ForwardWith(const Launch& launch,
    const vector<Blob<Dtype>*>& bottom, const vector<Blob<Dtype>*>& top) {
  const bool gpu = Launch::gpu;
  const Dtype* b =
      DataOn(gpu, (bottom.size() > 1) ? *bottom[1] : *this->blobs_[0]);
  const Dtype* x = DataOn(gpu, *bottom[0]);
  const ChannelPlanes<Dtype, AddOp<Dtype> > body{
      x, b, MutableDataOn(gpu, top[0]), bias_dim_, inner_dim_, AddOp<Dtype>()};
  launch.Planes(static_cast<long>(outer_dim_) * bias_dim_,
                GrainFor(inner_dim_), body);
}

template <typename Dtype>
template <typename Launch>
void BiasLayer<Dtype>::BackwardWith(const Launch& launch,
    const vector<Blob<Dtype>*>& top, const vector<bool>& propagate_down,
    const vector<Blob<Dtype>*>& bottom) {
  const bool gpu = Launch::gpu;
  const Dtype* dy = DiffOn(gpu, *top[0]);
  if (propagate_down[0] && bottom[0] != top[0]) {
    CopyOn(gpu, bottom[0]->count64(), dy, MutableDiffOn(gpu, bottom[0]));
  }
  const bool bias_is_param = (bottom.size() == 1);
  if (bias_is_param ? this->param_propagate_down_[0] : propagate_down[1]) {
    Blob<Dtype>* bias = bias_is_param ? this->blobs_[0].get() : bottom[1];
    Dtype* db = MutableDiffOn(gpu, bias);
    // Parameter diffs accumulate; a bottom's diff is overwritten.
    if (!bias_is_param) SetOn(gpu, bias_dim_, Dtype(0), db);
    // db[d] += the sum of dy over the channel.
    const ChannelSum<Dtype, ValueTerm<Dtype> > body{
        db, outer_dim_, bias_dim_, inner_dim_, ValueTerm<Dtype>{dy}};
    launch.Channels(bias_dim_, static_cast<long>(outer_dim_) * inner_dim_,
                    body);
  }
}

}  // namespace caffe

#endif  // CAFFE_BIAS_COMPUTE_HPP_
