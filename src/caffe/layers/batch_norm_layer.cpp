#include <cmath>
#include <vector>

#include "caffe/layers/batch_norm_layer.hpp"
#include "caffe/util/elementwise.hpp"

namespace caffe {

template <typename Dtype>
void BatchNormLayer<Dtype>::LayerSetUp(const vector<Blob<Dtype>*>& bottom,
                                       const vector<Blob<Dtype>*>& top) {
  const BatchNormParameter& param = this->layer_param_.batch_norm_param();
  const string& name = this->layer_param_.name();
  moving_average_fraction_ = param.moving_average_fraction();
  use_global_stats_ = (this->phase_ == TEST);
  if (param.has_use_global_stats())
    use_global_stats_ = param.use_global_stats();
  CAFFE_CHECK_GE(bottom[0]->num_axes(), 1)
      << "BatchNorm layer " << name << " needs a bottom with at least 1 axis, "
      << "got " << bottom[0]->shape_string();
  channels_ = (bottom[0]->num_axes() == 1) ? 1 : bottom[0]->shape(1);
  eps_ = param.eps();
  CAFFE_CHECK_GE(eps_, 0) << "BatchNorm layer " << name
                          << ": eps must not be negative";
  if (this->blobs_.empty()) {
    this->blobs_.resize(3);
    vector<int> shape(1, channels_);
    this->blobs_[0].reset(new Blob<Dtype>(shape));
    this->blobs_[1].reset(new Blob<Dtype>(shape));
    shape[0] = 1;
    this->blobs_[2].reset(new Blob<Dtype>(shape));
    for (int i = 0; i < 3; ++i) {
      caffe_set(this->blobs_[i]->count(), Dtype(0),
                this->blobs_[i]->mutable_cpu_data());
    }
  }
  CAFFE_CHECK_EQ(static_cast<int>(this->blobs_.size()), 3)
      << "BatchNorm layer " << name << " needs 3 blobs (mean, variance, "
      << "normalizer)";
  CAFFE_CHECK(this->blobs_[0]->count() == channels_ &&
              this->blobs_[1]->count() == channels_ &&
              this->blobs_[2]->count() == 1)
      << "BatchNorm layer " << name << ": stored statistics of shapes "
      << this->blobs_[0]->shape_string() << ", "
      << this->blobs_[1]->shape_string() << ", "
      << this->blobs_[2]->shape_string() << " do not fit bottom "
      << bottom[0]->shape_string() << " (" << channels_ << " channels)";
  // The statistics are not learned: keep every solver off them.  Older
  // prototxts declare three param specs with non-zero lr_mult; Caffe's net
  // upgrade zeroes those, and this does the same for a lone layer.
  for (int i = 0; i < 3; ++i) {
    const bool given = this->layer_param_.param_size() > i;
    if (!given) this->layer_param_.add_param();
    ParamSpec* spec = this->layer_param_.mutable_param(i);
    if (given && spec->lr_mult() != 0.f) {
      LOG(WARNING) << "BatchNorm layer " << name << ": forcing lr_mult of "
                   << "statistics blob " << i << " to 0";
    }
    spec->set_lr_mult(0.f);
    spec->set_decay_mult(0.f);
    this->set_param_propagate_down(i, false);
  }
}

template <typename Dtype>
void BatchNormLayer<Dtype>::Reshape(const vector<Blob<Dtype>*>& bottom,
                                    const vector<Blob<Dtype>*>& top) {
  const int channels =
      (bottom[0]->num_axes() == 1) ? 1 : bottom[0]->shape(1);
  CAFFE_CHECK(bottom[0]->num_axes() >= 1 && channels == channels_)
      << "BatchNorm layer " << this->layer_param_.name() << " was set up for "
      << channels_ << " channels; bottom is now " << bottom[0]->shape_string();
  CAFFE_CHECK_GT(bottom[0]->count(), 0)
      << "BatchNorm layer " << this->layer_param_.name()
      << " got an empty bottom " << bottom[0]->shape_string();
  if (top[0] != bottom[0]) top[0]->ReshapeLike(*bottom[0]);
  vector<int> shape(1, channels_);
  mean_.Reshape(shape);
  std_.Reshape(shape);
  if (use_global_stats_) {
    x_norm_.Reshape(vector<int>(1, 0));
  } else {
    x_norm_.ReshapeLike(*bottom[0]);
  }
}

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

}  // namespace

template <typename Dtype>
void BatchNormLayer<Dtype>::Forward_cpu(const vector<Blob<Dtype>*>& bottom,
                                        const vector<Blob<Dtype>*>& top) {
  const Dtype* x = bottom[0]->cpu_data();
  const int num = bottom[0]->shape(0);
  const int spatial = bottom[0]->count() / (num * channels_);
  const int per_channel = num * spatial;  // the m of the header
  Dtype* mean = mean_.mutable_cpu_data();
  Dtype* sd = std_.mutable_cpu_data();  // variance first, then its sqrt

  if (use_global_stats_) {
    const Dtype s = this->blobs_[2]->cpu_data()[0];
    const Dtype factor = (s == Dtype(0)) ? Dtype(0) : Dtype(1) / s;
    const Dtype* mean_sum = this->blobs_[0]->cpu_data();
    const Dtype* var_sum = this->blobs_[1]->cpu_data();
    for (int c = 0; c < channels_; ++c) {
      mean[c] = factor * mean_sum[c];
      sd[c] = factor * var_sum[c];
    }
  } else {
    const BatchNormStats<Dtype> body{x, mean, sd, num, channels_, spatial};
    ForEach(channels_, GrainFor(per_channel), body);
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
    Dtype* mean_sum = this->blobs_[0]->mutable_cpu_data();
    Dtype* var_sum = this->blobs_[1]->mutable_cpu_data();
    for (int c = 0; c < channels_; ++c) {
      mean_sum[c] = mean[c] + f * mean_sum[c];
      var_sum[c] = correction * sd[c] + f * var_sum[c];
    }
  }
  for (int c = 0; c < channels_; ++c) sd[c] = std::sqrt(sd[c] + eps_);

  // Element-wise from here, so in place is safe.  A later in-place layer
  // may overwrite the top; backward needs it, so it is kept in x_norm_ in
  // the same pass.
  const BatchNormNormalize<Dtype> body{
      x, mean, sd, top[0]->mutable_cpu_data(),
      use_global_stats_ ? nullptr : x_norm_.mutable_cpu_data(), channels_,
      spatial};
  ForEach(static_cast<long>(num) * channels_, GrainFor(spatial), body);
}

template <typename Dtype>
void BatchNormLayer<Dtype>::Backward_cpu(const vector<Blob<Dtype>*>& top,
                                         const vector<bool>& propagate_down,
                                         const vector<Blob<Dtype>*>& bottom) {
  if (!propagate_down[0]) return;
  const Dtype* dy = top[0]->cpu_diff();
  Dtype* dx = bottom[0]->mutable_cpu_diff();  // may be dy itself
  const int num = bottom[0]->shape(0);
  const int spatial = bottom[0]->count() / (num * channels_);
  const Dtype* sd = std_.cpu_data();

  if (use_global_stats_) {
    // The statistics are constants: y is affine in x.
    const BatchNormBackward<Dtype> body{dy, nullptr, sd, nullptr, nullptr,
                                        dx, channels_, spatial};
    ForEach(static_cast<long>(num) * channels_, GrainFor(spatial), body);
    return;
  }
  // dx = (dy - mean(dy) - mean(dy * y) * y) / sqrt(var + eps), with the
  // means per channel.  Both sums are taken before dx is written, so dx may
  // alias dy.
  const Dtype* y = x_norm_.cpu_data();
  const int per_channel = num * spatial;
  vector<Dtype> mean_dy(channels_), mean_dyy(channels_);
  const BatchNormGradientMeans<Dtype> means{dy, y, mean_dy.data(),
                                            mean_dyy.data(), num, channels_,
                                            spatial};
  ForEach(channels_, GrainFor(per_channel), means);
  const BatchNormBackward<Dtype> body{dy, y, sd, mean_dy.data(),
                                      mean_dyy.data(), dx, channels_,
                                      spatial};
  ForEach(static_cast<long>(num) * channels_, GrainFor(spatial), body);
}

INSTANTIATE_CLASS(BatchNormLayer);
REGISTER_LAYER_CLASS(BatchNorm);

}  // namespace caffe
