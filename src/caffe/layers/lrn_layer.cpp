#include <algorithm>
#include <cmath>
#include <vector>

#include "caffe/layers/lrn_layer.hpp"
#include "caffe/util/cudnn_lrn.hpp"
#include "caffe/util/math_functions.hpp"
#include "caffe/util/parallel.hpp"
#include "lrn_kernels.hpp"

namespace caffe {

template <typename Dtype>
void LRNLayer<Dtype>::LayerSetUp(const vector<Blob<Dtype>*>& bottom,
                                 const vector<Blob<Dtype>*>& top) {
  const LRNParameter& param = this->layer_param_.lrn_param();
  size_ = static_cast<int>(param.local_size());
  CAFFE_CHECK_EQ(size_ % 2, 1)
      << "layer " << this->layer_param_.name()
      << ": LRN only supports odd values for local_size";
  pre_pad_ = (size_ - 1) / 2;
  alpha_ = param.alpha();
  beta_ = param.beta();
  k_ = param.k();
  across_channels_ =
      param.norm_region() == LRNParameter_NormRegion_ACROSS_CHANNELS;
}

template <typename Dtype>
void LRNLayer<Dtype>::Reshape(const vector<Blob<Dtype>*>& bottom,
                              const vector<Blob<Dtype>*>& top) {
  CAFFE_CHECK_EQ(bottom[0]->num_axes(), 4)
      << "layer " << this->layer_param_.name()
      << ": input must have 4 axes (num, channels, height, width), got "
      << bottom[0]->shape_string();
  num_ = bottom[0]->num();
  channels_ = bottom[0]->channels();
  height_ = bottom[0]->height();
  width_ = bottom[0]->width();
  top[0]->ReshapeLike(*bottom[0]);
  SelectCudnn();
  // The scale is kept for backward only, and only by the layer's kernels.
  if (this->backward_runs() && !cudnn_) {
    scale_.ReshapeLike(*bottom[0]);
  } else {
    scale_.Reshape(vector<int>(1, 0));
  }
}

template <typename Dtype>
void LRNLayer<Dtype>::WindowSum(const Dtype* in, Dtype* out) const {
  const int plane = height_ * width_;
  // Plain loops, not BLAS: this runs inside ParallelFor.
  std::fill(out, out + channels_ * plane, Dtype(0));
  if (across_channels_) {
    for (int c = 0; c < channels_; ++c) {
      Dtype* o = out + c * plane;
      const int c_end = std::min(channels_, c + pre_pad_ + 1);
      for (int c2 = std::max(0, c - pre_pad_); c2 < c_end; ++c2) {
        const Dtype* i = in + c2 * plane;
        for (int s = 0; s < plane; ++s) o[s] += i[s];
      }
    }
    return;
  }
  for (int c = 0; c < channels_; ++c) {
    const Dtype* i = in + c * plane;
    Dtype* o = out + c * plane;
    for (int y = 0; y < height_; ++y) {
      const int y_end = std::min(height_, y + pre_pad_ + 1);
      for (int x = 0; x < width_; ++x) {
        const int x_end = std::min(width_, x + pre_pad_ + 1);
        Dtype sum = 0;
        for (int y2 = std::max(0, y - pre_pad_); y2 < y_end; ++y2)
          for (int x2 = std::max(0, x - pre_pad_); x2 < x_end; ++x2)
            sum += i[y2 * width_ + x2];
        o[y * width_ + x] = sum;
      }
    }
  }
}

namespace {

// Spatial positions per parallel task (ACROSS_CHANNELS): a task handles all
// channels of one image for one range of positions.
constexpr long kChunk = 512;

}  // namespace

// ACROSS_CHANNELS runs in parallel over (image, range of positions), WITHIN
// over images; each output element is computed by one task in a fixed
// order, so results do not depend on the thread count.
template <typename Dtype>
void LRNLayer<Dtype>::Forward_cpu(const vector<Blob<Dtype>*>& bottom,
                                  const vector<Blob<Dtype>*>& top) {
  const Dtype* bottom_data = bottom[0]->cpu_data();
  Dtype* top_data = top[0]->mutable_cpu_data();
  const long plane = static_cast<long>(height_) * width_;
  const long dim = channels_ * plane;
  // Caffe's WITHIN_CHANNEL power sublayer has shift 1, not k.
  const Dtype shift = across_channels_ ? k_ : Dtype(1);
  const Dtype coeff =
      across_channels_ ? alpha_ / size_ : alpha_ / (size_ * size_);
  const NegPow<Dtype> neg_pow(beta_);
  // The scale is kept for backward; without one, each part computes it in
  // a row (ACROSS) or plane set (WITHIN) of its own scratch instead, with
  // the same operations, so the top has the same bits.
  const bool keep = this->backward_runs();
  Dtype* scale_data = keep ? scale_.mutable_cpu_data() : nullptr;
  if (across_channels_) {
    const long chunk = std::min(plane, kChunk);
    const long chunks = (plane + chunk - 1) / chunk;
    const int C = channels_, pre = pre_pad_;
    // Scratch per part, taken before the loop: bodies must not allocate.
    Dtype* rows = keep ? nullptr
                       : static_cast<Dtype*>(SharedWorkspace(
                             ParallelParts(num_ * chunks, 1) * chunk *
                             sizeof(Dtype)));
    ParallelForParts(num_ * chunks, 1, [&](int part, long t0, long t1) {
      for (long t = t0; t < t1; ++t) {
        const long n = t / chunks, s0 = (t % chunks) * chunk;
        const long len = std::min(chunk, plane - s0);
        const Dtype* x = bottom_data + n * dim + s0;
        Dtype* y = top_data + n * dim + s0;
        for (int c = 0; c < C; ++c) {
          Dtype* sc_c = keep ? scale_data + n * dim + s0 + c * plane
                             : rows + part * chunk;
          for (long i = 0; i < len; ++i) sc_c[i] = 0;
          const int c_end = std::min(C, c + pre + 1);
          for (int c2 = std::max(0, c - pre); c2 < c_end; ++c2) {
            const Dtype* x2 = x + c2 * plane;
            for (long i = 0; i < len; ++i) sc_c[i] += x2[i] * x2[i];
          }
          const Dtype* x_c = x + c * plane;
          Dtype* y_c = y + c * plane;
          for (long i = 0; i < len; ++i) {
            sc_c[i] = shift + coeff * sc_c[i];
            y_c[i] = x_c[i] * neg_pow(sc_c[i]);
          }
        }
      }
    });
    return;
  }
  // Scratch per part, taken before the loop: bodies must not allocate.
  const long per_part = keep ? dim : 2 * dim;
  Dtype* squares_all = static_cast<Dtype*>(
      SharedWorkspace(ParallelParts(num_, 1) * per_part * sizeof(Dtype)));
  ParallelForParts(num_, 1, [&](int part, long n0, long n1) {
    Dtype* squares = squares_all + part * per_part;
    for (long n = n0; n < n1; ++n) {
      const Dtype* x = bottom_data + n * dim;
      Dtype* scale = keep ? scale_data + n * dim : squares + dim;
      Dtype* y = top_data + n * dim;
      for (long i = 0; i < dim; ++i) squares[i] = x[i] * x[i];
      WindowSum(squares, scale);
      for (long i = 0; i < dim; ++i) {
        scale[i] = shift + coeff * scale[i];
        y[i] = x[i] * neg_pow(scale[i]);
      }
    }
  });
}

// With s = shift + coeff * window_sum(x^2) and y = x s^-beta:
//   dL/dx_j = dy_j s_j^-beta
//             - 2 coeff beta x_j * sum over i with j in window(i) of
//               dy_i x_i s_i^(-beta-1).
// Windows are symmetric, so "j in window(i)" is "i in window(j)".
template <typename Dtype>
void LRNLayer<Dtype>::Backward_cpu(const vector<Blob<Dtype>*>& top,
                                   const vector<bool>& propagate_down,
                                   const vector<Blob<Dtype>*>& bottom) {
  if (!propagate_down[0]) return;
  const Dtype* top_diff = top[0]->cpu_diff();
  const Dtype* bottom_data = bottom[0]->cpu_data();
  Dtype* bottom_diff = bottom[0]->mutable_cpu_diff();
  const long plane = static_cast<long>(height_) * width_;
  const long dim = channels_ * plane;
  const Dtype coeff =
      across_channels_ ? alpha_ / size_ : alpha_ / (size_ * size_);
  const Dtype factor = 2 * coeff * beta_;
  const NegPow<Dtype> neg_pow(beta_);
  const Dtype* scale_data = scale_.cpu_data();
  if (across_channels_) {
    const long chunk = std::min(plane, kChunk);
    const long chunks = (plane + chunk - 1) / chunk;
    const int C = channels_, pre = pre_pad_;
    // Per position: p = s^-beta and ratio = dy x s^(-beta-1); scratch per
    // part, taken before the loop: bodies must not allocate.
    const long per_part = 2 * C * chunk;
    Dtype* scratch = static_cast<Dtype*>(SharedWorkspace(
        ParallelParts(num_ * chunks, 1) * per_part * sizeof(Dtype)));
    ParallelForParts(num_ * chunks, 1, [&](int part, long t0, long t1) {
      Dtype* p = scratch + part * per_part;
      Dtype* ratio = p + C * chunk;
      for (long t = t0; t < t1; ++t) {
        const long n = t / chunks, s0 = (t % chunks) * chunk;
        const long len = std::min(chunk, plane - s0);
        const long off = n * dim + s0;
        const Dtype* x = bottom_data + off;
        const Dtype* sc = scale_data + off;
        const Dtype* dy = top_diff + off;
        Dtype* dx = bottom_diff + off;
        for (int c = 0; c < C; ++c) {
          const long o = c * plane;
          Dtype* p_c = p + c * chunk;
          Dtype* r_c = ratio + c * chunk;
          for (long i = 0; i < len; ++i) {
            p_c[i] = neg_pow(sc[o + i]);
            r_c[i] = dy[o + i] * x[o + i] * p_c[i] / sc[o + i];
          }
        }
        for (int c = 0; c < C; ++c) {
          const long o = c * plane;
          const Dtype* p_c = p + c * chunk;
          const int c_end = std::min(C, c + pre + 1);
          const int c_begin = std::max(0, c - pre);
          for (long i = 0; i < len; ++i) {
            Dtype sum = 0;
            for (int c2 = c_begin; c2 < c_end; ++c2) {
              sum += ratio[c2 * chunk + i];
            }
            dx[o + i] = dy[o + i] * p_c[i] - factor * x[o + i] * sum;
          }
        }
      }
    });
    return;
  }
  Dtype* scratch = static_cast<Dtype*>(
      SharedWorkspace(ParallelParts(num_, 1) * 2 * dim * sizeof(Dtype)));
  ParallelForParts(num_, 1, [&](int part, long n0, long n1) {
    Dtype* ratio = scratch + part * 2 * dim;
    Dtype* ratio_sum = ratio + dim;
    for (long n = n0; n < n1; ++n) {
      const long off = n * dim;
      const Dtype* x = bottom_data + off;
      const Dtype* scale = scale_data + off;
      const Dtype* dy = top_diff + off;
      Dtype* dx = bottom_diff + off;
      for (long i = 0; i < dim; ++i) {
        ratio[i] = dy[i] * x[i] * std::pow(scale[i], -beta_ - 1);
      }
      WindowSum(ratio, ratio_sum);
      for (long i = 0; i < dim; ++i) {
        dx[i] = dy[i] * neg_pow(scale[i]) - factor * x[i] * ratio_sum[i];
      }
    }
  });
}

template <typename Dtype>
bool LRNLayer<Dtype>::CudnnRequested() const {
#ifdef USE_CUDA
  const LRNParameter& p = this->layer_param_.lrn_param();
  return p.engine() == LRNParameter_Engine_CUDNN &&
         p.norm_region() == LRNParameter_NormRegion_ACROSS_CHANNELS &&
         CudnnLrn<Dtype>::Supports(static_cast<int>(p.local_size()), p.beta(),
                                   p.k());
#else
  return false;
#endif
}

template <typename Dtype>
void LRNLayer<Dtype>::SelectCudnn() {
#ifdef USE_CUDA
  if (!CudnnRequested() || Caffe::mode() != Caffe::GPU) {
    cudnn_.reset();
    return;
  }
  if (cudnn_) {
    const CudnnLrnShape& o =
        static_cast<CudnnLrn<Dtype>*>(cudnn_.get())->shape();
    if (o.num == num_ && o.channels == channels_ && o.height == height_ &&
        o.width == width_)
      return;
  }
  const LRNParameter& p = this->layer_param_.lrn_param();
  CudnnLrnShape s{num_, channels_, height_, width_,
                  static_cast<int>(p.local_size()), p.alpha(), p.beta(),
                  p.k()};
  cudnn_ = std::make_shared<CudnnLrn<Dtype> >(s);
#endif
}

#ifdef USE_CUDA
template <typename Dtype>
void LRNLayer<Dtype>::CudnnForward(const vector<Blob<Dtype>*>& bottom,
                                   const vector<Blob<Dtype>*>& top) {
  static_cast<CudnnLrn<Dtype>*>(cudnn_.get())
      ->Forward(bottom[0]->gpu_data(), top[0]->mutable_gpu_data());
}

template <typename Dtype>
void LRNLayer<Dtype>::CudnnBackward(const vector<Blob<Dtype>*>& top,
                                    const vector<Blob<Dtype>*>& bottom) {
  static_cast<CudnnLrn<Dtype>*>(cudnn_.get())
      ->Backward(bottom[0]->gpu_data(), top[0]->gpu_data(), top[0]->gpu_diff(),
                 bottom[0]->mutable_gpu_diff());
}
#endif  // USE_CUDA

INSTANTIATE_CLASS(LRNLayer);
REGISTER_LAYER_CLASS(LRN);

}  // namespace caffe
