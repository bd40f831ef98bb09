// fused_chain_backward.hpp: FusedChain's backward by plane, written once
// over a launch policy (util/elementwise.hpp): fused_chain.cpp runs it
// with CpuLaunch for planes shorter than kMinChannelRun, fused_chain.cu
// with GpuLaunch for every chain on a GPU.
//
// Layer by layer, an in-place BatchNorm -> Scale -> ReLU chain's backward
// streams the activation twelve times: the ReLU reads y and dy and writes
// its gradient g; the Scale's sums read g and its input x, its planes
// read g and write g * s; BatchNorm's sums read that and its normalized
// output, its planes read both and write dx.  Here it takes seven:
//  * one channel launch (ChainBackwardSums) reads dy, y and the kept
//    copies once and takes all four sums -- the Scale's two parameter
//    gradients and BatchNorm's two gradient means -- computing g and
//    g * s of each element where it needs them;
//  * one plane launch (ChainBackwardPlanes) reads dy, y and BatchNorm's
//    copy again and writes dx (and, where BatchNorm starts the chain out
//    of place, g * s into its top's diff, as the layers leave it).
// On sm_90 ptxas holds the sums' kernel to 128 registers without spills
// (gpu_launch.cuh), two blocks per SM as the channel launches count.
// The bits are the layers': every sum adds the same terms in the same
// order (a sum of ChainSums adds member by member, util/channel_sums.hpp,
// in the blocks per channel the layers' launches get, which depend on the
// shape alone), every element's products round on their own
// (RoundedProduct) as the layers' stored ones do, and the ReLU's mask
// comes from its output in the blob: on a GPU the forward's Scale and
// bias may have been contracted into one multiply-add, so an input
// recomputed from the copy might differ from the one the ReLU saw.
// Which sums run, and the pointers, come from the members' own
// BackwardStage, so this file decides nothing a layer decides.
#ifndef CAFFE_FUSED_CHAIN_BACKWARD_HPP_
#define CAFFE_FUSED_CHAIN_BACKWARD_HPP_

#include <vector>

#include "caffe/fused_chain.hpp"
#include "caffe/layers/relu_layer.hpp"
#include "caffe/util/channel_sums.hpp"
#include "caffe/util/device_math.hpp"
#include "caffe/util/elementwise.hpp"
#include "caffe/util/normalized_input.hpp"
#include "layers/batch_norm_compute.hpp"
#include "layers/relu_kernels.hpp"
#include "layers/scale_compute.hpp"

namespace caffe {

// The chain's four sums over a channel, in the accumulators the layers
// use: the Scale's in Dtype, BatchNorm's in double.
template <typename Dtype>
struct ChainSums {
  Dtype bias;        // the Scale's bias gradient: the sum of g
  Dtype scale;       // the Scale's scale gradient: the sum of g * x
  double mean_dy;    // BatchNorm's: the sum of g * s
  double mean_dyy;   // BatchNorm's: the sum of g * s * y
  CAFFE_KERNEL ChainSums& operator+=(const ChainSums& o) {
    bias += o.bias;
    scale += o.scale;
    mean_dy += o.mean_dy;
    mean_dyy += o.mean_dyy;
    return *this;
  }
  CAFFE_KERNEL ChainSums operator+(const ChainSums& o) const {
    ChainSums sum = *this;
    sum += o;
    return sum;
  }
};

// An element's gradient below the ReLU (g) and below the Scale (g * s).
template <typename Dtype>
struct ChainGradient {
  const Dtype* relu_y;  // the ReLU's output; null: no ReLU
  const Dtype* scale;   // the Scale's learned scale; null: no Scale
  Dtype slope;
  CAFFE_KERNEL Dtype BelowReLU(Dtype dy, Dtype y) const {
    return relu_y ? ReLUGradient(y, dy, slope) : dy;
  }
  CAFFE_KERNEL Dtype BelowScale(Dtype g, Dtype s) const {
    return scale ? RoundedProduct(g, s) : g;
  }
};

// Channel c of a source that may be off: its values, copied or
// normalized (a chain's sources are of one kind: its Scale borrows its
// BatchNorm's), or none to read.
template <typename Dtype>
CAFFE_KERNEL inline NormalizedValues<Dtype> NormalizedOrNone(
    const NormalizedSource<Dtype>& source, long c) {
  return source.x ? source.Normalized(c)
                  : NormalizedValues<Dtype>{nullptr, Dtype(0), Dtype(1)};
}

// Channel c: the Scale's parameter gradients (accumulated, as its layer
// does) and BatchNorm's gradient means, each only where its layer takes
// it (a null destination is skipped).  Launched as ChainBackwardSumsOf.
template <typename Dtype>
struct ChainBackwardSums {
  const Dtype* dy;
  ChainGradient<Dtype> gradient;
  NormalizedSource<Dtype> scale_x;  // the Scale's input; off: no sum
  NormalizedSource<Dtype> bn_y;     // BatchNorm's output; off: no means
  Dtype* bias_diff;
  Dtype* scale_diff;
  Dtype* mean_dy;
  Dtype* mean_dyy;
  int outer, channels, inner;

  template <typename Values>
  struct Terms {
    const Dtype* dy;
    ChainGradient<Dtype> gradient;
    Values scale_x;
    Values bn_y;
    bool has_scale_x, has_bn_y;
    Dtype s;
    CAFFE_KERNEL ChainSums<Dtype> operator()(long j) const {
      const Dtype y = gradient.relu_y ? gradient.relu_y[j] : Dtype(0);
      const Dtype g = gradient.BelowReLU(dy[j], y);
      const Dtype gs = gradient.BelowScale(g, s);
      ChainSums<Dtype> t;
      t.bias = g;
      t.scale = has_scale_x ? RoundedProduct(g, scale_x(j)) : Dtype(0);
      t.mean_dy = gs;
      t.mean_dyy = has_bn_y ? RoundedProduct(static_cast<double>(gs),
                                             static_cast<double>(bn_y(j)))
                            : 0.0;
      return t;
    }
  };

  // Whether the sources are BatchNorm's input, normalized again (a
  // chain's are of one kind: its Scale borrows its BatchNorm's).
  bool FromInput() const { return scale_x.x != nullptr || bn_y.x != nullptr; }
  CAFFE_KERNEL void SumsFromInput(long c) const {
    Sum(c, Terms<NormalizedValues<Dtype> >{
               dy, gradient, NormalizedOrNone(scale_x, c),
               NormalizedOrNone(bn_y, c), scale_x.on(), bn_y.on(),
               gradient.scale ? gradient.scale[c] : Dtype(1)});
  }
  CAFFE_KERNEL void SumsFromCopies(long c) const {
    Sum(c, Terms<CopiedValues<Dtype> >{
               dy, gradient, scale_x.Copied(), bn_y.Copied(), scale_x.on(),
               bn_y.on(), gradient.scale ? gradient.scale[c] : Dtype(1)});
  }

  template <typename ChannelTerms>
  CAFFE_KERNEL void Sum(long c, const ChannelTerms& terms) const {
    const ChainSums<Dtype> sums =
        SumOverChannel<ChainSums<Dtype> >(c, outer, channels, inner, terms);
    if (!ChannelLead()) return;
    if (bias_diff) bias_diff[c] += sums.bias;
    if (scale_diff) scale_diff[c] += sums.scale;
    if (mean_dy) {
      const double per_channel = static_cast<double>(outer) * inner;
      mean_dy[c] = static_cast<Dtype>(sums.mean_dy / per_channel);
      mean_dyy[c] = static_cast<Dtype>(sums.mean_dyy / per_channel);
    }
  }
};

// ChainBackwardSums with the sources' kind fixed, a kernel for each: with
// both loops in one kernel, ptxas spilled registers in the float kernel
// under its bound.  The kernel is held to 128 registers (gpu_launch.cuh).
template <typename Dtype, bool kFromInput>
struct ChainBackwardSumsOf {
  static constexpr bool kBoundRegisters = true;
  ChainBackwardSums<Dtype> sums;
  CAFFE_KERNEL void operator()(long c) const {
    if constexpr (kFromInput) {
      sums.SumsFromInput(c);
    } else {
      sums.SumsFromCopies(c);
    }
  }
};

// Plane (n, c): dx, BatchNorm's gradient of g * s (with its batch
// statistics' means, or the constant statistics' 1 / sd alone), or g * s
// where the chain has no BatchNorm.  dx may alias dy.  Where BatchNorm
// starts the chain out of place, its top's diff ends as the layers leave
// it, g * s (`top_dx`, which is dy's memory).
template <typename Dtype>
struct ChainBackwardPlanes {
  const Dtype* dy;
  ChainGradient<Dtype> gradient;
  const Dtype* bn_sd;     // null: no BatchNorm
  NormalizedSource<Dtype> bn_y;  // off: constant statistics (or none)
  const Dtype* mean_dy;
  const Dtype* mean_dyy;
  Dtype* dx;
  Dtype* top_dx;          // null: in place
  int channels, inner;

  struct Three {
    Dtype dy, relu_y, bn_y;
  };
  template <typename Values>
  struct Elements {
    const Dtype* dy;
    ChainGradient<Dtype> gradient;
    Values bn_y;
    bool has_bn_y;
    Dtype* dx;
    Dtype* top_dx;
    Dtype s, mean_dy, mean_dyy, inverse_sd;
    bool batch_norm;
    CAFFE_KERNEL Three Load(long i) const {
      return {dy[i], gradient.relu_y ? gradient.relu_y[i] : Dtype(0),
              has_bn_y ? bn_y(i) : Dtype(0)};
    }
    CAFFE_KERNEL void Store(long i, Three v) const {
      const Dtype gs =
          gradient.BelowScale(gradient.BelowReLU(v.dy, v.relu_y), s);
      if (top_dx) top_dx[i] = gs;
      if (!batch_norm) {
        dx[i] = gs;
      } else if (!has_bn_y) {
        dx[i] = gs * inverse_sd;
      } else {
        dx[i] = BatchNormGradient(gs, v.bn_y, mean_dy, mean_dyy, inverse_sd);
      }
    }
  };

  template <typename Values>
  CAFFE_KERNEL void Run(long p, int c, const Values& y) const {
    const bool batch_norm = bn_sd != nullptr;
    const bool has_y = bn_y.on();
    const Elements<Values> ops{
        dy,
        gradient,
        y,
        has_y,
        dx,
        top_dx,
        gradient.scale ? gradient.scale[c] : Dtype(1),
        has_y ? mean_dy[c] : Dtype(0),
        has_y ? mean_dyy[c] : Dtype(0),
        batch_norm ? Dtype(1) / bn_sd[c] : Dtype(1),
        batch_norm};
    PlaneElements(ops, p * inner, inner);
  }
  CAFFE_KERNEL void operator()(long p) const {
    const int c = static_cast<int>(p % channels);
    if (bn_y.x) {
      Run(p, c, bn_y.Normalized(c));
    } else {
      Run(p, c, bn_y.Copied());
    }
  }
};

template <typename Dtype>
template <typename Launch>
void FusedChain<Dtype>::BackwardByPlane(const Launch& launch) {
  const bool gpu = Launch::gpu;
  const vector<Blob<Dtype>*>& v = blob_;
  const vector<bool> down(1, true);
  Blob<Dtype>& x = *blob_[0];
  ChainGradient<Dtype> gradient{nullptr, nullptr, Dtype(0)};
  if (relu_) {
    gradient.relu_y = DataOn(gpu, x);
    gradient.slope = ReLUSlope();
  }
  ChainBackwardSums<Dtype> sums{};
  ChainBackwardPlanes<Dtype> planes{};
  sums.dy = planes.dy = DiffOn(gpu, x);
  // The members' stages say which sums they take and where things are.
  if (scale_) {
    const auto stage = scale_->BackwardStage(launch, v, down, v);
    gradient.scale = stage.plane.body.c;
    sums.bias_diff = stage.channel.acc_a;
    sums.scale_diff = stage.channel.acc_b;
    if (sums.scale_diff) sums.scale_x = stage.channel.x;
    planes.dx = stage.plane.body.y;  // unless BatchNorm writes below it
  }
  if (batch_norm_) {
    const auto stage = batch_norm_->BackwardStage(launch, v, down, input_);
    const BatchNormBackward<Dtype>& body = stage.plane.body;
    planes.bn_sd = body.sd;
    planes.dx = body.dx;
    if (!in_place()) planes.top_dx = MutableDiffOn(gpu, &x);
    if (stage.channel.on) {
      sums.bn_y = planes.bn_y = body.y;
      sums.mean_dy = stage.channel.body.mean_dy;
      sums.mean_dyy = stage.channel.body.mean_dyy;
      planes.mean_dy = body.mean_dy;
      planes.mean_dyy = body.mean_dyy;
    }
  }
  // The Scale borrows BatchNorm's output: both are copies, or both the
  // input normalized again (ChainBackwardSums reads them as one kind).
  CAFFE_INTERNAL_CHECK(!sums.scale_x.on() || !sums.bn_y.on() ||
                       sums.scale_x.copied() == sums.bn_y.copied())
      << "a fused chain's Scale and BatchNorm read different sources";
  sums.gradient = planes.gradient = gradient;
  sums.outer = outer_;
  sums.channels = planes.channels = channels_;
  sums.inner = planes.inner = inner_;
  if (sums.bias_diff || sums.scale_diff || sums.mean_dy) {
    const long work = static_cast<long>(outer_) * inner_;
    if (sums.FromInput()) {
      launch.Channels(channels_, work, ChainBackwardSumsOf<Dtype, true>{sums});
    } else {
      launch.Channels(channels_, work,
                      ChainBackwardSumsOf<Dtype, false>{sums});
    }
  }
  launch.Planes(static_cast<long>(outer_) * channels_, GrainFor(inner_),
                planes);
}

}  // namespace caffe

#endif  // CAFFE_FUSED_CHAIN_BACKWARD_HPP_
