#include <algorithm>
#include <cfloat>
#include <cmath>
#include <limits>
#include <type_traits>
#include <vector>

#include "caffe/layers/pooling_layer.hpp"
#include "caffe/util/cudnn_pool.hpp"
#include "caffe/util/device_launch.hpp"
#include "caffe/util/device_math.hpp"
#include "caffe/util/int_pieces.hpp"
#include "caffe/util/math_functions.hpp"
#include "caffe/util/parallel.hpp"
#include "caffe/util/scratch.hpp"
#include "max_pool_row.hpp"
#include "pooling_kernels.hpp"

namespace caffe {

namespace {
// The engines' shapes (oneDNN's, cuDNN's) name the geometry's fields alike.
template <typename Shape>
Shape EngineShape(int num, int channels, const PoolGeometry& g) {
  Shape s;
  s.num = num;
  s.channels = channels;
  s.height = g.height;
  s.width = g.width;
  s.out_height = g.pooled_height;
  s.out_width = g.pooled_width;
  s.kernel_h = g.kernel_h;
  s.kernel_w = g.kernel_w;
  s.stride_h = g.stride_h;
  s.stride_w = g.stride_w;
  s.pad_h = g.pad_h;
  s.pad_w = g.pad_w;
  return s;
}
}  // namespace

template <typename Dtype>
void PoolingLayer<Dtype>::LayerSetUp(const vector<Blob<Dtype>*>& bottom,
                                     const vector<Blob<Dtype>*>& top) {
  const string& name = this->layer_param_.name();
  const PoolingParameter& pp = this->layer_param_.pooling_param();
  global_pooling_ = pp.global_pooling();
  if (global_pooling_) {
    CAFFE_CHECK(!(pp.has_kernel_size() || pp.has_kernel_h() ||
                  pp.has_kernel_w()))
        << "layer " << name
        << ": with global_pooling: true, filter size cannot be specified";
  } else {
    CAFFE_CHECK(!pp.has_kernel_size() !=
                !(pp.has_kernel_h() && pp.has_kernel_w()))
        << "layer " << name
        << ": filter size is kernel_size OR kernel_h and kernel_w; not both";
    CAFFE_CHECK(pp.has_kernel_size() ||
                (pp.has_kernel_h() && pp.has_kernel_w()))
        << "layer " << name
        << ": for non-square filters both kernel_h and kernel_w are required";
  }
  CAFFE_CHECK((!pp.has_pad() && pp.has_pad_h() && pp.has_pad_w()) ||
              (!pp.has_pad_h() && !pp.has_pad_w()))
      << "layer " << name << ": pad is pad OR pad_h and pad_w are required";
  CAFFE_CHECK((!pp.has_stride() && pp.has_stride_h() && pp.has_stride_w()) ||
              (!pp.has_stride_h() && !pp.has_stride_w()))
      << "layer " << name
      << ": stride is stride OR stride_h and stride_w are required";
  CAFFE_CHECK_EQ(bottom[0]->num_axes(), 4)
      << "layer " << name << ": input must have 4 axes (num, channels, "
      << "height, width), got " << bottom[0]->shape_string();

  if (global_pooling_) {
    kernel_h_ = bottom[0]->height();
    kernel_w_ = bottom[0]->width();
  } else if (pp.has_kernel_size()) {
    kernel_h_ = kernel_w_ = static_cast<int>(pp.kernel_size());
  } else {
    kernel_h_ = static_cast<int>(pp.kernel_h());
    kernel_w_ = static_cast<int>(pp.kernel_w());
  }
  CAFFE_CHECK_GT(kernel_h_, 0)
      << "layer " << name << ": filter dimensions cannot be zero";
  CAFFE_CHECK_GT(kernel_w_, 0)
      << "layer " << name << ": filter dimensions cannot be zero";
  if (!pp.has_pad_h()) {
    pad_h_ = pad_w_ = static_cast<int>(pp.pad());
  } else {
    pad_h_ = static_cast<int>(pp.pad_h());
    pad_w_ = static_cast<int>(pp.pad_w());
  }
  if (!pp.has_stride_h()) {
    stride_h_ = stride_w_ = static_cast<int>(pp.stride());
  } else {
    stride_h_ = static_cast<int>(pp.stride_h());
    stride_w_ = static_cast<int>(pp.stride_w());
  }
  CAFFE_CHECK(stride_h_ > 0 && stride_w_ > 0)
      << "layer " << name << ": stride must be positive";
  if (global_pooling_) {
    CAFFE_CHECK(pad_h_ == 0 && pad_w_ == 0 && stride_h_ == 1 &&
                stride_w_ == 1)
        << "layer " << name
        << ": with global_pooling: true only pad = 0 and stride = 1";
  }
  if (pad_h_ != 0 || pad_w_ != 0) {
    CAFFE_CHECK(pp.pool() == PoolingParameter_PoolMethod_AVE ||
                pp.pool() == PoolingParameter_PoolMethod_MAX)
        << "layer " << name
        << ": padding implemented only for average and max pooling";
    CAFFE_CHECK_LT(pad_h_, kernel_h_)
        << "layer " << name << ": pad must be smaller than the kernel";
    CAFFE_CHECK_LT(pad_w_, kernel_w_)
        << "layer " << name << ": pad must be smaller than the kernel";
  }
}

template <typename Dtype>
void PoolingLayer<Dtype>::Reshape(const vector<Blob<Dtype>*>& bottom,
                                  const vector<Blob<Dtype>*>& top) {
  const string& name = this->layer_param_.name();
  CAFFE_CHECK_EQ(bottom[0]->num_axes(), 4)
      << "layer " << name << ": input must have 4 axes (num, channels, "
      << "height, width), got " << bottom[0]->shape_string();
  num_ = bottom[0]->num();
  channels_ = bottom[0]->channels();
  height_ = bottom[0]->height();
  width_ = bottom[0]->width();
  if (global_pooling_) {
    kernel_h_ = height_;
    kernel_w_ = width_;
  }
  // Computed in float as Caffe does, so borderline sizes round the same way.
  const float span_h = static_cast<float>(height_ + 2 * pad_h_ - kernel_h_) /
                       static_cast<float>(stride_h_);
  const float span_w = static_cast<float>(width_ + 2 * pad_w_ - kernel_w_) /
                       static_cast<float>(stride_w_);
  if (this->layer_param_.pooling_param().round_mode() ==
      PoolingParameter_RoundMode_FLOOR) {
    pooled_height_ = static_cast<int>(std::floor(span_h)) + 1;
    pooled_width_ = static_cast<int>(std::floor(span_w)) + 1;
  } else {
    pooled_height_ = static_cast<int>(std::ceil(span_h)) + 1;
    pooled_width_ = static_cast<int>(std::ceil(span_w)) + 1;
  }
  if (pad_h_ || pad_w_) {
    // The last window must start inside the image, not in the padding.
    if ((pooled_height_ - 1) * stride_h_ >= height_ + pad_h_) --pooled_height_;
    if ((pooled_width_ - 1) * stride_w_ >= width_ + pad_w_) --pooled_width_;
    CAFFE_CHECK_LT((pooled_height_ - 1) * stride_h_, height_ + pad_h_)
        << "layer " << name;
    CAFFE_CHECK_LT((pooled_width_ - 1) * stride_w_, width_ + pad_w_)
        << "layer " << name;
  }
  CAFFE_CHECK(pooled_height_ > 0 && pooled_width_ > 0)
      << "layer " << name << ": kernel " << kernel_h_ << "x" << kernel_w_
      << " (pad " << pad_h_ << "x" << pad_w_ << ") does not fit input "
      << bottom[0]->shape_string();
  top[0]->Reshape(num_, channels_, pooled_height_, pooled_width_);
  if (top.size() > 1) top[1]->ReshapeLike(*top[0]);
  mask_top_ = top.size() > 1;
  SelectEngine(top);
  SelectCudnn(top);
  // oneDNN's scratchpad is per-call scratch the memory plan may place.
  if (dnnl_ && Caffe::mode() == Caffe::CPU)
    scratch_.Resize(dnnl_->ScratchBytes());
  // MAX keeps a byte per output (the offset within its window) unless the
  // mask top shows plane indices or the window is too large for a byte;
  // STOCHASTIC an int plane index.  The same on both devices, so the
  // memory plan does not depend on the mode it was made in.
  compact_mask_ = this->layer_param_.pooling_param().pool() ==
                      PoolingParameter_PoolMethod_MAX &&
                  !mask_top_ && kernel_h_ * kernel_w_ <= kMaxCompactWindow;
  if (UsesMask()) {
    const int64_t n = top[0]->count64();
    const int64_t ints = compact_mask_ ? (n + 3) / 4 : n;  // 4 bytes an int
    mask_.Reshape(ShapeHolding(ints));
  } else {
    mask_.Reshape(vector<int>{0});
  }
}

template <typename Dtype>
void PoolingLayer<Dtype>::SelectEngine(const vector<Blob<Dtype>*>& top) {
  dnnl_.reset();
  if (!std::is_same<Dtype, float>::value || !DnnlAvailable()) return;
  const PoolingParameter& pp = this->layer_param_.pooling_param();
  if (pp.engine() == PoolingParameter_Engine_CAFFE) return;
  // MAX runs the bodies: oneDNN 2.6 pools Caffe's plain NCHW layout with
  // its simple_nchw kernel, which took 45-78 ms forward on ResNet-50 b8's
  // pool1 (3x3, stride 2) where the bodies take 14-17 ms, and the bodies'
  // byte-per-output argmax is as small as oneDNN's workspace.
  if (pp.pool() != PoolingParameter_PoolMethod_AVE) return;
  if (top.size() > 1) return;
  const DnnlPoolShape s =
      EngineShape<DnnlPoolShape>(num_, channels_, Geometry());
  for (const auto& c : dnnl_cache_) {
    if (c->shape() == s) {
      dnnl_ = c;
      return;
    }
  }
  for (const auto& d : dnnl_declined_) {
    if (d == s) return;
  }
  std::shared_ptr<DnnlPool> pool = DnnlPool::Create(s);
  if (!pool) {
    dnnl_declined_.push_back(s);
    return;
  }
  if (dnnl_cache_.size() >= 4) dnnl_cache_.erase(dnnl_cache_.begin());
  dnnl_cache_.push_back(pool);
  dnnl_ = pool;
}

template <typename Dtype>
bool PoolingLayer<Dtype>::CudnnRequested() const {
#ifdef USE_CUDA
  const PoolingParameter& pp = this->layer_param_.pooling_param();
  return pp.engine() == PoolingParameter_Engine_CUDNN &&
         pp.pool() == PoolingParameter_PoolMethod_AVE;
#else
  return false;
#endif
}

template <typename Dtype>
void PoolingLayer<Dtype>::SelectCudnn(const vector<Blob<Dtype>*>& top) {
#ifdef USE_CUDA
  // cuDNN's descriptors count in int: larger blobs run the layer's own
  // kernels.
  const bool fits_int = static_cast<int64_t>(num_) * channels_ * height_ *
                                width_ <= INT_MAX &&
                        top[0]->count64() <= INT_MAX;
  if (!CudnnRequested() || Caffe::mode() != Caffe::GPU || top.size() > 1 ||
      !fits_int) {
    cudnn_.reset();
    cudnn_key_.clear();
    return;
  }
  // Decided once per input shape (the rest is the layer's fixed geometry).
  const vector<int> key{num_, channels_, height_, width_};
  if (key == cudnn_key_) return;
  cudnn_key_ = key;
  // AVE only (CudnnRequested).
  auto engine = std::make_shared<CudnnPool<Dtype> >(
      EngineShape<CudnnPoolShape>(num_, channels_, Geometry()));
  if (engine->Matches()) {
    cudnn_ = engine;
  } else {
    cudnn_.reset();
    LOG(INFO) << "Pooling layer " << this->layer_param_.name()
              << ": cuDNN's output size differs from the layer's "
              << pooled_height_ << "x" << pooled_width_
              << " (it rounds down); Caffe's kernels instead";
  }
#else
  (void)top;
#endif
}

#ifdef USE_CUDA
template <typename Dtype>
void PoolingLayer<Dtype>::CudnnForward(const vector<Blob<Dtype>*>& bottom,
                                       const vector<Blob<Dtype>*>& top) {
  static_cast<CudnnPool<Dtype>*>(cudnn_.get())
      ->Forward(bottom[0]->gpu_data(), top[0]->mutable_gpu_data());
}

template <typename Dtype>
void PoolingLayer<Dtype>::CudnnBackward(const vector<Blob<Dtype>*>& top,
                                        const vector<Blob<Dtype>*>& bottom) {
  static_cast<CudnnPool<Dtype>*>(cudnn_.get())
      ->Backward(bottom[0]->gpu_data(), top[0]->gpu_data(), top[0]->gpu_diff(),
                 bottom[0]->mutable_gpu_diff());
}
#endif  // USE_CUDA

template <typename Dtype>
void PoolingLayer<Dtype>::Forward_cpu(const vector<Blob<Dtype>*>& bottom,
                                      const vector<Blob<Dtype>*>& top) {
  if (dnnl_) {
    // Only chosen for float.
    dnnl_->Forward(reinterpret_cast<const float*>(bottom[0]->cpu_data()),
                   reinterpret_cast<float*>(top[0]->mutable_cpu_data()),
                   ScratchOrShared(scratch_.get(), false,
                                   dnnl_->ScratchBytes()));
    return;
  }
  const PoolingParameter_PoolMethod pool =
      this->layer_param_.pooling_param().pool();
  if (pool == PoolingParameter_PoolMethod_STOCHASTIC) {
    StochasticForward(false, bottom, top);
    return;
  }
  ForwardByBodies(false, bottom, top);
  if (top.size() > 1) {
    const int* mask = mask_.cpu_data();
    Dtype* mask_top = top[1]->mutable_cpu_data();
    for (int64_t i = 0; i < top[1]->count64(); ++i) mask_top[i] = mask[i];
  }
}

template <typename Dtype>
void PoolingLayer<Dtype>::ForwardByBodies(bool gpu,
                                          const vector<Blob<Dtype>*>& bottom,
                                          const vector<Blob<Dtype>*>& top) {
  const long n = top[0]->count64();
  const long window = static_cast<long>(kernel_h_) * kernel_w_;
  const Dtype* x = DataOn(gpu, *bottom[0]);
  Dtype* y = MutableDataOn(gpu, top[0]);
  int* mask = UsesMask() ? MutableDataOn(gpu, &mask_) : nullptr;
  switch (this->layer_param_.pooling_param().pool()) {
    case PoolingParameter_PoolMethod_MAX:
      if (compact_mask_) {
        MaxForwardByBodies(gpu, MaxPoolForward<Dtype, uint8_t>{
                                    x, y, reinterpret_cast<uint8_t*>(mask),
                                    Geometry()});
      } else {
        MaxForwardByBodies(gpu, MaxPoolForward<Dtype>{x, y, mask, Geometry()});
      }
      break;
    case PoolingParameter_PoolMethod_AVE:
      ForEachOn(gpu, n, GrainFor(window),
                AvePoolForward<Dtype>{x, y, Geometry()});
      break;
    default:
      CAFFE_THROW() << "layer " << this->layer_param_.name()
                    << ": unknown pooling method "
                    << this->layer_param_.pooling_param().pool();
  }
}

// The GPU takes an output per index; the CPU a row of outputs.
template <typename Dtype>
template <typename Mask>
void PoolingLayer<Dtype>::MaxForwardByBodies(
    bool gpu, const MaxPoolForward<Dtype, Mask>& body) {
  const long window = static_cast<long>(kernel_h_) * kernel_w_;
  if (gpu) {
    ForEachOn(true, static_cast<long>(num_) * channels_ * pooled_height_ *
                        pooled_width_,
              GrainFor(window), body);
    return;
  }
  ForEach(static_cast<long>(num_) * channels_ * pooled_height_,
          GrainFor(window * pooled_width_),
          MaxPoolForwardRow<Dtype, Mask>{body});
}

// Each input element adds its windows' gradients in window order, the
// order a scatter over the outputs would add them: the GPU gathers, one
// input element per index; the CPU scatters, one plane per index.
template <typename Dtype>
template <typename Mask>
void PoolingLayer<Dtype>::MaxBackwardByBodies(bool gpu, const Mask* mask,
                                              const Dtype* dy, Dtype* dx) {
  if (gpu) {
    ForEachOn(true, static_cast<long>(num_) * channels_ * height_ * width_,
              GrainFor(WindowsPerInput()),
              MaxPoolBackward<Dtype, Mask>{dy, mask, dx, Geometry()});
    return;
  }
  ForEach(static_cast<long>(num_) * channels_,
          GrainFor(static_cast<long>(height_) * width_ +
                   static_cast<long>(pooled_height_) * pooled_width_),
          MaxPoolScatterPlane<Dtype, Mask>{dy, mask, dx, Geometry()});
}

template <typename Dtype>
void PoolingLayer<Dtype>::BackwardByBodies(
    bool gpu, const vector<Blob<Dtype>*>& top,
    const vector<Blob<Dtype>*>& bottom) {
  const Dtype* dy = DiffOn(gpu, *top[0]);
  Dtype* dx = MutableDiffOn(gpu, bottom[0]);
  if (UsesMask()) {
    const int* mask = DataOn(gpu, mask_);
    if (compact_mask_)
      MaxBackwardByBodies(gpu, reinterpret_cast<const uint8_t*>(mask), dy, dx);
    else
      MaxBackwardByBodies(gpu, mask, dy, dx);
  } else {
    ForEachOn(gpu, bottom[0]->count64(), GrainFor(WindowsPerInput()),
              AvePoolBackward<Dtype>{dy, dx, Geometry()});
  }
}

template <typename Dtype>
PoolGeometry PoolingLayer<Dtype>::Geometry() const {
  return PoolGeometry{height_,  width_,    pooled_height_, pooled_width_,
                      kernel_h_, kernel_w_, stride_h_,      stride_w_,
                      pad_h_,    pad_w_};
}

template <typename Dtype>
void PoolingLayer<Dtype>::StochasticForward(
    bool gpu, const vector<Blob<Dtype>*>& bottom,
    const vector<Blob<Dtype>*>& top) {
  const long n = top[0]->count();
  const long window = static_cast<long>(kernel_h_) * kernel_w_;
  if (!UsesMask()) {  // testing: the weighted average
    ForEachOn(gpu, n, GrainFor(2 * window),
              StochasticPoolTest<Dtype>{DataOn(gpu, *bottom[0]),
                                        MutableDataOn(gpu, top[0]),
                                        Geometry()});
    return;
  }
  uniform_.Reshape(vector<int>{static_cast<int>(n)});
  caffe_rng_uniform<Dtype>(static_cast<int>(n), Dtype(0), Dtype(1),
                           uniform_.mutable_cpu_data());
  if (mask_.count() < n) mask_.Reshape(vector<int>{static_cast<int>(n)});
  ForEachOn(gpu, n, GrainFor(2 * window),
            StochasticPoolForward<Dtype>{
                DataOn(gpu, *bottom[0]), DataOn(gpu, uniform_),
                MutableDataOn(gpu, top[0]), MutableDataOn(gpu, &mask_),
                Geometry()});
}

template <typename Dtype>
void PoolingLayer<Dtype>::Backward_cpu(const vector<Blob<Dtype>*>& top,
                                       const vector<bool>& propagate_down,
                                       const vector<Blob<Dtype>*>& bottom) {
  if (!propagate_down[0]) return;
  if (dnnl_) {
    dnnl_->Backward(reinterpret_cast<const float*>(top[0]->cpu_diff()),
                    reinterpret_cast<float*>(bottom[0]->mutable_cpu_diff()),
                   ScratchOrShared(scratch_.get(), false,
                                   dnnl_->ScratchBytes()));
    return;
  }
  if (!IsStochasticTest()) return BackwardByBodies(false, top, bottom);
  const Dtype* top_diff = top[0]->cpu_diff();
  Dtype* bottom_diff = bottom[0]->mutable_cpu_diff();
  // STOCHASTIC in testing: the weighted average's gradient.
  caffe_set(bottom[0]->count(), Dtype(0), bottom_diff);
  const int in_plane = height_ * width_;
  const int out_plane = pooled_height_ * pooled_width_;
  const int planes = num_ * channels_;
  const Dtype* bottom_data = bottom[0]->cpu_data();
  for (int p = 0; p < planes; ++p) {
    Dtype* dx = bottom_diff + static_cast<long>(p) * in_plane;
    const Dtype* x = bottom_data + static_cast<long>(p) * in_plane;
    for (int ph = 0; ph < pooled_height_; ++ph) {
      for (int pw = 0; pw < pooled_width_; ++pw) {
        const Dtype dy =
            top_diff[static_cast<long>(p) * out_plane + ph * pooled_width_ +
                     pw];
        const int hstart = std::max(ph * stride_h_ - pad_h_, 0);
        const int wstart = std::max(pw * stride_w_ - pad_w_, 0);
        const int hend = std::min(ph * stride_h_ - pad_h_ + kernel_h_,
                                  height_);
        const int wend = std::min(pw * stride_w_ - pad_w_ + kernel_w_,
                                  width_);
        // d/dx_j (Q / S) = (2 x_j S - Q) / S^2, as in the forward pass.
        Dtype sum = FLT_MIN, sum_sq = 0;
        for (int h = hstart; h < hend; ++h)
          for (int w = wstart; w < wend; ++w) {
            sum += x[h * width_ + w];
            sum_sq += x[h * width_ + w] * x[h * width_ + w];
          }
        for (int h = hstart; h < hend; ++h)
          for (int w = wstart; w < wend; ++w)
            dx[h * width_ + w] +=
                dy * (2 * x[h * width_ + w] * sum - sum_sq) / (sum * sum);
      }
    }
  }
}

INSTANTIATE_CLASS(PoolingLayer);
REGISTER_LAYER_CLASS(Pooling);

}  // namespace caffe
