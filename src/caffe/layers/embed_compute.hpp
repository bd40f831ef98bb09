// embed_compute.hpp: the Embed layer's lookup and gradients, written once
// over a launch policy (util/elementwise.hpp): embed_layer.cpp runs them
// with CpuLaunch, embed_layer.cu with GpuLaunch.  The indices are checked
// on the host (IndexAt) and copied to indices_, which the bodies read on
// either device.
#ifndef CAFFE_EMBED_COMPUTE_HPP_
#define CAFFE_EMBED_COMPUTE_HPP_

#include <vector>

#include "caffe/layers/embed_layer.hpp"
#include "caffe/util/device_math.hpp"
#include "caffe/util/elementwise.hpp"

namespace caffe {

// One output element per index: its table row's entry (plus the bias).
template <typename Dtype>
struct EmbedForward {
  const int* indices;
  const Dtype* weight;
  const Dtype* bias;  // null without bias_term
  Dtype* y;
  long width;
  CAFFE_KERNEL void operator()(long i) const {
    const long m = i / width, j = i % width;
    const Dtype w = weight[indices[m] * width + j];
    y[i] = bias == nullptr ? w : w + bias[j];
  }
};

// One column j per index: every lookup's gradient added into its table row
// (and the bias), lookups in order -- the serial loop's order for every
// element, since a column's sums touch no other column.
template <typename Dtype>
struct EmbedBackward {
  const int* indices;  // null: the bias gradient only
  const Dtype* dy;
  Dtype* weight_diff;  // null when not wanted
  Dtype* bias_diff;    // null when not wanted
  long lookups, width;
  CAFFE_KERNEL void operator()(long j) const {
    for (long m = 0; m < lookups; ++m) {
      const Dtype g = dy[m * width + j];
      if (weight_diff != nullptr) weight_diff[indices[m] * width + j] += g;
      if (bias_diff != nullptr) bias_diff[j] += g;
    }
  }
};

template <typename Dtype>
template <typename Launch>
void EmbedLayer<Dtype>::ForwardWith(const Launch& launch,
                                    const vector<Blob<Dtype>*>& bottom,
                                    const vector<Blob<Dtype>*>& top) {
  CheckIndices(*bottom[0]);
  const bool gpu = Launch::gpu;
  launch(static_cast<long>(M_) * N_, GrainFor(1),
         EmbedForward<Dtype>{
             DataOn(gpu, indices_), DataOn(gpu, *this->blobs_[0]),
             bias_term_ ? DataOn(gpu, *this->blobs_[1]) : nullptr,
             MutableDataOn(gpu, top[0]), N_});
}

template <typename Dtype>
template <typename Launch>
void EmbedLayer<Dtype>::BackwardWith(const Launch& launch,
                                     const vector<Blob<Dtype>*>& top,
                                     const vector<bool>& propagate_down,
                                     const vector<Blob<Dtype>*>& bottom) {
  CAFFE_CHECK(!propagate_down[0])
      << "Embed layer " << this->layer_param_.name()
      << ": cannot backpropagate to the index input";
  const bool weights = this->param_propagate_down(0);
  const bool bias = bias_term_ && this->param_propagate_down(1);
  if (!weights && !bias) return;
  if (weights) CheckIndices(*bottom[0]);
  const bool gpu = Launch::gpu;
  launch(N_, GrainFor(M_),
         EmbedBackward<Dtype>{
             weights ? DataOn(gpu, indices_) : nullptr, DiffOn(gpu, *top[0]),
             weights ? MutableDiffOn(gpu, this->blobs_[0].get()) : nullptr,
             bias ? MutableDiffOn(gpu, this->blobs_[1].get()) : nullptr, M_,
             N_});
}

}  // namespace caffe

#endif  // CAFFE_EMBED_COMPUTE_HPP_
