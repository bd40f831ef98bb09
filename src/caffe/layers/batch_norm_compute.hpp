// batch_norm_compute.hpp: BatchNorm's forward and backward, written once
// over a launch policy (util/elementwise.hpp): batch_norm_layer.cpp runs
// them with CpuLaunch, batch_norm_layer.cu with GpuLaunch.
#ifndef CAFFE_BATCH_NORM_COMPUTE_HPP_
#define CAFFE_BATCH_NORM_COMPUTE_HPP_

#include <cmath>
#include <vector>

#include "caffe/layers/batch_norm_layer.hpp"
#include "caffe/util/device_math.hpp"
#include "caffe/util/channel_sums.hpp"
#include "caffe/util/elementwise.hpp"
#include "caffe/util/normalized_input.hpp"

namespace caffe {


// Terms of BatchNorm's sums, in double.
template <typename Dtype>
struct DoubleValue {
  const Dtype* x;
  CAFFE_KERNEL double operator()(long j) const { return x[j]; }
};
// x - shift and its square, in double: the terms of the statistics'
// sums.  The square is an explicit round-to-nearest product, so that
// nvcc cannot contract it into the sum's add in one kernel and not in
// another (a layer's launch and a fused chain's must agree bit for bit).
template <typename Dtype>
struct ShiftedValue {
  const Dtype* x;
  double shift;
  CAFFE_KERNEL double operator()(long j) const {
    return static_cast<double>(x[j]) - shift;
  }
};
template <typename Dtype>
struct ShiftedSquare {
  const Dtype* x;
  double shift;
  CAFFE_KERNEL double operator()(long j) const {
    const double d = static_cast<double>(x[j]) - shift;
    return RoundedProduct(d, d);
  }
};
template <typename Dtype, typename Values>
struct DoubleProduct {
  const Dtype* a;
  Values b;
  CAFFE_KERNEL double operator()(long j) const {
    return RoundedProduct(static_cast<double>(a[j]),
                          static_cast<double>(b(j)));
  }
};

// Channel c: mean and (biased) variance over every image and position, in
// one sweep that reads x once: the sums of d = x - K and of d * d in
// double, where the shift K is the channel's first element, so that
// var = E[d^2] - E[d]^2 subtracts numbers of the data's spread, not of
// its mean (a channel whose mean is large against its deviation loses
// nothing to cancellation; a constant channel gives exactly 0).  Two
// passes (the mean, then the centred squares) read x twice: on a GPU, one
// of the four or five streams of a fused chain's forward was that second
// read.
template <typename Dtype>
struct BatchNormStats {
  // Left free, ptxas gave the two sums' kernel 130 registers: one block an
  // SM where ChannelBlocksByShape counts two (gpu_launch.cuh).
  static constexpr bool kBoundRegisters = true;
  const Dtype* x;
  Dtype* mean;
  Dtype* var;
  int num, channels, spatial;
  CAFFE_KERNEL void operator()(long c) const {
    const double per_channel = static_cast<double>(num) * spatial;
    const double shift = static_cast<double>(x[c * spatial]);
    double sum, sum_squares;
    SumTwoOverChannel<double>(c, num, channels, spatial,
                              ShiftedValue<Dtype>{x, shift},
                              ShiftedSquare<Dtype>{x, shift}, &sum,
                              &sum_squares);
    if (!ChannelLead()) return;
    const double offset = sum / per_channel;  // E[x] - K
    const double v = sum_squares / per_channel - offset * offset;
    mean[c] = static_cast<Dtype>(shift + offset);
    var[c] = static_cast<Dtype>(v > 0 ? v : 0);
  }
};

// Plane (n, c): y = (x - mean[c]) * (1 / sd[c]), also into `kept` when
// given.  One divide per plane, a multiply per element: a vector divide
// costs several multiplies, and it was half of the fused chain's forward.
// The reciprocal rounds once more than a divide would (PyTorch's CPU and
// cuDNN's batch norm multiply by the inverse deviation in the same way).
template <typename Dtype>
struct BatchNormNormalize {
  const Dtype* x;
  const Dtype* mean;
  const Dtype* sd;
  Dtype* y;
  Dtype* kept;
  int channels, spatial;
  // Element ops of one plane.
  struct Elements {
    const Dtype* x;
    Dtype* y;
    Dtype* kept;
    Dtype mean, inverse_sd;
    CAFFE_KERNEL Dtype Load(long i) const { return x[i]; }
    CAFFE_KERNEL void Store(long i, Dtype in) const {
      const Dtype v = (in - mean) * inverse_sd;
      y[i] = v;
      if (kept) kept[i] = v;
    }
  };
  CAFFE_KERNEL void operator()(long p) const {
    const int c = static_cast<int>(p % channels);
    PlaneElements(Elements{x, y, kept, mean[c], Dtype(1) / sd[c]},
                  p * spatial, spatial);
  }
};

// Channel c: the means of dy and dy * y, accumulated in double; y from
// its kept copy or from the input (util/normalized_input.hpp).
template <typename Dtype>
struct BatchNormGradientMeans {
  const Dtype* dy;
  NormalizedSource<Dtype> y;
  Dtype* mean_dy;
  Dtype* mean_dyy;
  int num, channels, spatial;
  template <typename Values>
  CAFFE_KERNEL void Means(long c, const Values& yc) const {
    const double per_channel = static_cast<double>(num) * spatial;
    double sum_dy, sum_dyy;
    SumTwoOverChannel<double>(c, num, channels, spatial,
                              DoubleValue<Dtype>{dy},
                              DoubleProduct<Dtype, Values>{dy, yc}, &sum_dy,
                              &sum_dyy);
    if (!ChannelLead()) return;
    mean_dy[c] = static_cast<Dtype>(sum_dy / per_channel);
    mean_dyy[c] = static_cast<Dtype>(sum_dyy / per_channel);
  }
  CAFFE_KERNEL CAFFE_HOST_NOINLINE void MeansOfInput(long c) const {
    Means(c, y.Normalized(c));
  }
  CAFFE_KERNEL void operator()(long c) const {
    if (y.copied()) {
      Means(c, y.Copied());
    } else {
      MeansOfInput(c);
    }
  }
};

// One element of BatchNorm's gradient with batch statistics; the fused
// chain's backward (fused_chain_backward.hpp) computes it here too.
template <typename Dtype>
CAFFE_KERNEL inline Dtype BatchNormGradient(Dtype dy, Dtype y, Dtype mean_dy,
                                            Dtype mean_dyy,
                                            Dtype inverse_sd) {
  return (dy - mean_dy - RoundedProduct(mean_dyy, y)) * inverse_sd;
}

// Plane (n, c): dx = (dy - mean_dy - mean_dyy * y) * (1 / sd), or
// dy * (1 / sd) when the statistics are constants (no means given), the
// reciprocal taken once per plane as in the forward.  dx may alias dy; y
// comes from its kept copy or from the input.
template <typename Dtype>
struct BatchNormBackward {
  const Dtype* dy;
  NormalizedSource<Dtype> y;
  const Dtype* sd;
  const Dtype* mean_dy;
  const Dtype* mean_dyy;
  Dtype* dx;
  int channels, spatial;
  // Element ops of one plane: with constant statistics, and with batch
  // statistics.
  struct ConstantElements {
    const Dtype* dy;
    Dtype* dx;
    Dtype inverse_sd;
    CAFFE_KERNEL Dtype Load(long i) const { return dy[i]; }
    CAFFE_KERNEL void Store(long i, Dtype g) const { dx[i] = g * inverse_sd; }
  };
  template <typename Values>
  struct BatchElements {
    const Dtype* dy;
    Values y;
    Dtype* dx;
    Dtype mean_dy, mean_dyy, inverse_sd;
    CAFFE_KERNEL Two<Dtype> Load(long i) const { return {dy[i], y(i)}; }
    CAFFE_KERNEL void Store(long i, Two<Dtype> v) const {
      dx[i] = BatchNormGradient(v.a, v.b, mean_dy, mean_dyy, inverse_sd);
    }
  };
  CAFFE_KERNEL CAFFE_HOST_NOINLINE void PlaneOfInput(
      long off, int c, Dtype inverse_sd) const {
    PlaneElements(BatchElements<NormalizedValues<Dtype> >{
                      dy, y.Normalized(c), dx, mean_dy[c], mean_dyy[c],
                      inverse_sd},
                  off, spatial);
  }
  CAFFE_KERNEL void operator()(long p) const {
    const long off = p * spatial;
    const int c = static_cast<int>(p % channels);
    const Dtype inverse_sd = Dtype(1) / sd[c];
    if (!mean_dy) {
      PlaneElements(ConstantElements{dy, dx, inverse_sd}, off, spatial);
      return;
    }
    if (y.copied()) {
      PlaneElements(BatchElements<CopiedValues<Dtype> >{
                        dy, y.Copied(), dx, mean_dy[c], mean_dyy[c],
                        inverse_sd},
                    off, spatial);
    } else {
      PlaneOfInput(off, c, inverse_sd);
    }
  }
};


// Channel c: the statistics used by a TEST forward, from the stored sums.
template <typename Dtype>
struct BatchNormGlobalStats {
  const Dtype* mean_sum;
  const Dtype* var_sum;
  Dtype* mean;
  Dtype* var;
  Dtype factor;
  CAFFE_KERNEL void operator()(long c) const {
    if (!ChannelLead()) return;
    mean[c] = factor * mean_sum[c];
    var[c] = factor * var_sum[c];
  }
};

// Channel c: the running sums (see the header's formulas).
template <typename Dtype>
struct BatchNormRunningSums {
  const Dtype* mean;
  const Dtype* var;
  Dtype* mean_sum;
  Dtype* var_sum;
  Dtype fraction, correction;
  CAFFE_KERNEL void operator()(long c) const {
    if (!ChannelLead()) return;
    mean_sum[c] = mean[c] + fraction * mean_sum[c];
    var_sum[c] = correction * var[c] + fraction * var_sum[c];
  }
};

// Channel c: the variance becomes sqrt(variance + eps) in place.
template <typename Dtype>
struct BatchNormSqrt {
  Dtype* sd;
  Dtype eps;
  CAFFE_KERNEL void operator()(long c) const {
    if (!ChannelLead()) return;
    sd[c] = std::sqrt(sd[c] + eps);
  }
};

template <typename Dtype>
template <typename Launch>
auto BatchNormLayer<Dtype>::ForwardStage(const Launch& launch,
                                         const vector<Blob<Dtype>*>& bottom,
                                         const vector<Blob<Dtype>*>& top) {
  const bool gpu = Launch::gpu;
  const Dtype* x = DataOn(gpu, *bottom[0]);
  const int num = bottom[0]->shape(0);
  const int spatial = static_cast<int>(bottom[0]->count64() /
                                       (int64_t{num} * channels_));
  const long per_channel = long{num} * spatial;  // the m of the header
  Dtype* mean = MutableDataOn(gpu, &mean_);
  Dtype* sd = MutableDataOn(gpu, &std_);  // variance first, then its sqrt

  // Per channel: the statistics (from the batch, or the stored ones), the
  // running sums, the standard deviation; then per plane the output.
  // The stored normalizer is a host scalar on either device.
  const Dtype s = use_global_stats_ ? this->blobs_[2]->cpu_data()[0] : 0;
  const BatchNormGlobalStats<Dtype> global{
      DataOn(gpu, *this->blobs_[0]), DataOn(gpu, *this->blobs_[1]), mean, sd,
      (s == Dtype(0)) ? Dtype(0) : Dtype(1) / s};
  const BatchNormStats<Dtype> batch{x, mean, sd, num, channels_, spatial};
  // Running statistics, before eps touches the variance; once per
  // iteration, not again when recomputation runs this forward twice.
  const bool update = !use_global_stats_ && !this->recomputing_;
  const Dtype f = moving_average_fraction_;
  if (update) {
    Dtype* blob_s = this->blobs_[2]->mutable_cpu_data();
    blob_s[0] = blob_s[0] * f + Dtype(1);
  }
  const Dtype correction =
      per_channel > 1 ? Dtype(per_channel) / Dtype(per_channel - 1)
                      : Dtype(1);
  const BatchNormRunningSums<Dtype> running{
      mean, sd,
      update ? MutableDataOn(gpu, this->blobs_[0].get()) : nullptr,
      update ? MutableDataOn(gpu, this->blobs_[1].get()) : nullptr, f,
      correction};
  // A rerun for recomputation sees the forward's input again, so the
  // batch statistics it would take are the ones mean_ and std_ still hold
  // (the plan keeps them: RerunReadsMemory); only the planes run.
  const bool reuse = !use_global_stats_ && this->recomputing_;
  const auto channel_body = MakeThen(
      MakeThen(Maybe<BatchNormGlobalStats<Dtype> >{global, use_global_stats_},
               Maybe<BatchNormStats<Dtype> >{batch,
                                             !use_global_stats_ && !reuse}),
      MakeThen(Maybe<BatchNormRunningSums<Dtype> >{running, update},
               Maybe<BatchNormSqrt<Dtype> >{{sd, eps_}, !reuse}));
  // Element-wise from here, so in place is safe.  A later in-place layer
  // may overwrite the top; backward needs it, so it is kept in x_norm_ in
  // the same pass, unless backward normalizes the input again or a rerun
  // writes it again before backward.
  const bool keep = !use_global_stats_ && !reads_input_ &&
                    !this->rerun_before_backward();
  const BatchNormNormalize<Dtype> plane_body{
      x, mean, sd, MutableDataOn(gpu, top[0]),
      keep ? MutableDataOn(gpu, &x_norm_) : nullptr, channels_, spatial};
  return MakeStage(channel_body, plane_body, num, channels_, spatial);
}

template <typename Dtype>
template <typename Launch>
void BatchNormLayer<Dtype>::ForwardWith(const Launch& launch,
                                        const vector<Blob<Dtype>*>& bottom,
                                        const vector<Blob<Dtype>*>& top) {
  LaunchStage(launch, ForwardStage(launch, bottom, top));
}

// dx = (dy - mean(dy) - mean(dy * y) * y) / sqrt(var + eps), with the
// means per channel; with global statistics (constants: y is affine in x)
// dx = dy / sqrt(var + eps).  The means are taken before dx is written, so
// dx may alias dy.  Nothing runs when the bottom needs no gradient.
template <typename Dtype>
template <typename Launch>
auto BatchNormLayer<Dtype>::BackwardStage(const Launch& launch,
                                          const vector<Blob<Dtype>*>& top,
                                          const vector<bool>& propagate_down,
                                          const vector<Blob<Dtype>*>& bottom) {
  const bool gpu = Launch::gpu;
  const bool on = propagate_down[0];
  const bool batch_stats = on && !use_global_stats_;
  const int num = bottom[0]->shape(0);
  const int spatial = static_cast<int>(bottom[0]->count64() /
                                       (int64_t{num} * channels_));
  const Dtype* dy = on ? DiffOn(gpu, *top[0]) : nullptr;
  Dtype* dx = on ? MutableDiffOn(gpu, bottom[0]) : nullptr;  // may be dy
  NormalizedSource<Dtype> y;
  if (batch_stats) y = SourceOn(gpu, Lent(bottom[0]));
  Dtype* mean_dy =
      batch_stats ? MutableDataOn(gpu, &gradient_means_) : nullptr;
  Dtype* mean_dyy = batch_stats ? mean_dy + channels_ : nullptr;
  const Maybe<BatchNormGradientMeans<Dtype> > means{
      {dy, y, mean_dy, mean_dyy, num, channels_, spatial}, batch_stats};
  const Maybe<BatchNormBackward<Dtype> > planes{
      {dy, y, on ? DataOn(gpu, std_) : nullptr, mean_dy, mean_dyy, dx,
       channels_, spatial},
      on};
  return MakeStage(means, planes, num, channels_, spatial);
}

template <typename Dtype>
template <typename Launch>
void BatchNormLayer<Dtype>::BackwardWith(const Launch& launch,
                                         const vector<Blob<Dtype>*>& top,
                                         const vector<bool>& propagate_down,
                                         const vector<Blob<Dtype>*>& bottom) {
  if (!propagate_down[0]) return;
  LaunchStage(launch, BackwardStage(launch, top, propagate_down, bottom));
}

}  // namespace caffe

#endif  // CAFFE_BATCH_NORM_COMPUTE_HPP_
