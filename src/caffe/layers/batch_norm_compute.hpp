// batch_norm_compute.hpp: BatchNorm's forward and backward, written once
// over a launch policy (util/elementwise.hpp): batch_norm_layer.cpp runs
// them with CpuLaunch, batch_norm_layer.cu with GpuLaunch.
#ifndef CAFFE_BATCH_NORM_COMPUTE_HPP_
#define CAFFE_BATCH_NORM_COMPUTE_HPP_

#include <cmath>
#include <vector>

#include "caffe/layers/batch_norm_layer.hpp"
#include "caffe/util/device_math.hpp"
#include "caffe/util/elementwise.hpp"

namespace caffe {
namespace {

// Channel c: mean and (biased) variance over every image and position, in
// (n, s) order, accumulated in double.
template <typename Dtype>
struct BatchNormStats {
  const Dtype* x;
  Dtype* mean;
  Dtype* var;
  int num, channels, spatial;
  CAFFE_KERNEL void operator()(long c) const {
    const double per_channel = static_cast<double>(num) * spatial;
    double sum = 0;
    for (int n = 0; n < num; ++n) {
      const Dtype* p = x + (static_cast<long>(n) * channels + c) * spatial;
      for (int s = 0; s < spatial; ++s) sum += p[s];
    }
    mean[c] = static_cast<Dtype>(sum / per_channel);
    double sq = 0;
    for (int n = 0; n < num; ++n) {
      const Dtype* p = x + (static_cast<long>(n) * channels + c) * spatial;
      for (int s = 0; s < spatial; ++s) {
        const double d = static_cast<double>(p[s]) - mean[c];
        sq += d * d;
      }
    }
    var[c] = static_cast<Dtype>(sq / per_channel);
  }
};

// Plane (n, c): y = (x - mean[c]) / sd[c], also into `kept` when given.
template <typename Dtype>
struct BatchNormNormalize {
  const Dtype* x;
  const Dtype* mean;
  const Dtype* sd;
  Dtype* y;
  Dtype* kept;
  int channels, spatial;
  CAFFE_KERNEL void operator()(long p) const {
    const long off = p * spatial;
    const int c = static_cast<int>(p % channels);
    for (int s = 0; s < spatial; ++s) {
      const Dtype v = (x[off + s] - mean[c]) / sd[c];
      y[off + s] = v;
      if (kept) kept[off + s] = v;
    }
  }
};

// Channel c: the means of dy and dy * y, accumulated in double.
template <typename Dtype>
struct BatchNormGradientMeans {
  const Dtype* dy;
  const Dtype* y;
  Dtype* mean_dy;
  Dtype* mean_dyy;
  int num, channels, spatial;
  CAFFE_KERNEL void operator()(long c) const {
    const double per_channel = static_cast<double>(num) * spatial;
    double sum_dy = 0, sum_dyy = 0;
    for (int n = 0; n < num; ++n) {
      const long off = (static_cast<long>(n) * channels + c) * spatial;
      for (int s = 0; s < spatial; ++s) {
        sum_dy += dy[off + s];
        sum_dyy += static_cast<double>(dy[off + s]) * y[off + s];
      }
    }
    mean_dy[c] = static_cast<Dtype>(sum_dy / per_channel);
    mean_dyy[c] = static_cast<Dtype>(sum_dyy / per_channel);
  }
};

// Plane (n, c): dx = (dy - mean_dy - mean_dyy * y) / sd, or dy / sd when
// the statistics are constants (no means given).  dx may alias dy.
template <typename Dtype>
struct BatchNormBackward {
  const Dtype* dy;
  const Dtype* y;
  const Dtype* sd;
  const Dtype* mean_dy;
  const Dtype* mean_dyy;
  Dtype* dx;
  int channels, spatial;
  CAFFE_KERNEL void operator()(long p) const {
    const long off = p * spatial;
    const int c = static_cast<int>(p % channels);
    if (!mean_dy) {
      for (int s = 0; s < spatial; ++s) dx[off + s] = dy[off + s] / sd[c];
      return;
    }
    for (int s = 0; s < spatial; ++s) {
      const long i = off + s;
      dx[i] = (dy[i] - mean_dy[c] - mean_dyy[c] * y[i]) / sd[c];
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
    sd[c] = std::sqrt(sd[c] + eps);
  }
};

}  // namespace

template <typename Dtype>
template <typename Launch>
void BatchNormLayer<Dtype>::ForwardWith(const Launch& launch,
                                        const vector<Blob<Dtype>*>& bottom,
                                        const vector<Blob<Dtype>*>& top) {
  const bool gpu = Launch::gpu;
  const Dtype* x = DataOn(gpu, *bottom[0]);
  const int num = bottom[0]->shape(0);
  const int spatial = bottom[0]->count() / (num * channels_);
  const int per_channel = num * spatial;  // the m of the header
  Dtype* mean = MutableDataOn(gpu, &mean_);
  Dtype* sd = MutableDataOn(gpu, &std_);  // variance first, then its sqrt

  if (use_global_stats_) {
    // The normalizer is a host scalar on either device.
    const Dtype s = this->blobs_[2]->cpu_data()[0];
    const Dtype factor = (s == Dtype(0)) ? Dtype(0) : Dtype(1) / s;
    launch(channels_, channels_,
           BatchNormGlobalStats<Dtype>{DataOn(gpu, *this->blobs_[0]),
                                       DataOn(gpu, *this->blobs_[1]), mean,
                                       sd, factor});
  } else {
    const BatchNormStats<Dtype> body{x, mean, sd, num, channels_, spatial};
    launch(channels_, GrainFor(per_channel), body);
  }
  if (!use_global_stats_ && !this->recomputing_) {
    // Running statistics, before eps touches the variance; once per
    // iteration, not again when recomputation runs this forward twice.
    const Dtype f = moving_average_fraction_;
    Dtype* blob_s = this->blobs_[2]->mutable_cpu_data();
    blob_s[0] = blob_s[0] * f + Dtype(1);
    const Dtype correction =
        per_channel > 1 ? Dtype(per_channel) / Dtype(per_channel - 1)
                        : Dtype(1);
    launch(channels_, channels_,
           BatchNormRunningSums<Dtype>{
               mean, sd, MutableDataOn(gpu, this->blobs_[0].get()),
               MutableDataOn(gpu, this->blobs_[1].get()), f, correction});
  }
  launch(channels_, channels_, BatchNormSqrt<Dtype>{sd, eps_});

  // Element-wise from here, so in place is safe.  A later in-place layer
  // may overwrite the top; backward needs it, so it is kept in x_norm_ in
  // the same pass.
  const BatchNormNormalize<Dtype> body{
      x, mean, sd, MutableDataOn(gpu, top[0]),
      use_global_stats_ ? nullptr : MutableDataOn(gpu, &x_norm_), channels_,
      spatial};
  launch(static_cast<long>(num) * channels_, GrainFor(spatial), body);
}

template <typename Dtype>
template <typename Launch>
void BatchNormLayer<Dtype>::BackwardWith(const Launch& launch,
                                         const vector<Blob<Dtype>*>& top,
                                         const vector<bool>& propagate_down,
                                         const vector<Blob<Dtype>*>& bottom) {
  if (!propagate_down[0]) return;
  const bool gpu = Launch::gpu;
  const Dtype* dy = DiffOn(gpu, *top[0]);
  Dtype* dx = MutableDiffOn(gpu, bottom[0]);  // may be dy itself
  const int num = bottom[0]->shape(0);
  const int spatial = bottom[0]->count() / (num * channels_);
  const Dtype* sd = DataOn(gpu, std_);

  if (use_global_stats_) {
    // The statistics are constants: y is affine in x.
    const BatchNormBackward<Dtype> body{dy, nullptr, sd, nullptr, nullptr,
                                        dx, channels_, spatial};
    launch(static_cast<long>(num) * channels_, GrainFor(spatial), body);
    return;
  }
  // dx = (dy - mean(dy) - mean(dy * y) * y) / sqrt(var + eps), with the
  // means per channel.  Both sums are taken before dx is written, so dx may
  // alias dy.
  const Dtype* y = DataOn(gpu, x_norm_);
  const int per_channel = num * spatial;
  Dtype* means_data = MutableDataOn(gpu, &gradient_means_);
  Dtype* mean_dy = means_data;
  Dtype* mean_dyy = means_data + channels_;
  const BatchNormGradientMeans<Dtype> means{dy, y, mean_dy, mean_dyy, num,
                                            channels_, spatial};
  launch(channels_, GrainFor(per_channel), means);
  const BatchNormBackward<Dtype> body{dy, y, sd, mean_dy, mean_dyy, dx,
                                      channels_, spatial};
  launch(static_cast<long>(num) * channels_, GrainFor(spatial), body);
}

}  // namespace caffe

#endif  // CAFFE_BATCH_NORM_COMPUTE_HPP_
