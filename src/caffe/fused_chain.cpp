#include "caffe/fused_chain.hpp"

#include <cmath>

#include "fused_chain_backward.hpp"
#include "fused_chain_forward.hpp"

namespace caffe {

template <typename Dtype>
std::shared_ptr<FusedChain<Dtype> > FusedChain<Dtype>::Find(
    const vector<shared_ptr<Layer<Dtype> > >& layers,
    const vector<vector<Blob<Dtype>*> >& bottoms,
    const vector<vector<Blob<Dtype>*> >& tops, int first) {
  const int num_layers = static_cast<int>(layers.size());
  if (first < 0 || first >= num_layers || bottoms[first].size() != 1)
    return nullptr;
  auto plain = [&](int k) {
    return k < num_layers && bottoms[k].size() == 1 && tops[k].size() == 1 &&
           layers[k]->layer_param().loss_weight_size() == 0 &&
           layers[k]->loss(0) == Dtype(0);
  };
  // A BatchNorm may start the chain out of place (its bottom another
  // blob); every later member runs in place on its top.
  Blob<Dtype>* input = bottoms[first][0];
  Blob<Dtype>* blob = input;
  if (plain(first) &&
      dynamic_cast<BatchNormLayer<Dtype>*>(layers[first].get()))
    blob = tops[first][0];
  // Layer k runs on the chain's blob (layer `first` from `input`).
  auto in_chain = [&](int k) {
    return plain(k) && bottoms[k][0] == (k == first ? input : blob) &&
           tops[k][0] == blob;
  };
  std::shared_ptr<FusedChain> chain(new FusedChain);
  int k = first;
  if (in_chain(k) &&
      (chain->batch_norm_ =
           dynamic_cast<BatchNormLayer<Dtype>*>(layers[k].get())))
    ++k;
  if (in_chain(k) &&
      (chain->scale_ = dynamic_cast<ScaleLayer<Dtype>*>(layers[k].get())))
    ++k;
  if (in_chain(k) &&
      (chain->relu_ = dynamic_cast<ReLULayer<Dtype>*>(layers[k].get())))
    ++k;
  if (k - first < 2) return nullptr;
  chain->first_ = first;
  chain->last_ = k - 1;
  chain->input_.assign(1, input);
  chain->blob_.assign(1, blob);
  return chain;
}

template <typename Dtype>
bool FusedChain<Dtype>::Fits(bool reshape) {
  if (reshape) {
    if (batch_norm_) batch_norm_->Reshape(input_, blob_);
    if (scale_) scale_->Reshape(blob_, blob_);
    if (relu_) relu_->Reshape(blob_, blob_);
  }
  const Blob<Dtype>& x = *blob_[0];
  if (batch_norm_) {
    outer_ = x.num_axes() > 0 ? x.shape(0) : 1;
    channels_ = batch_norm_->channels();
    inner_ = static_cast<int>(x.count64() /
                              (static_cast<long>(outer_) * channels_));
  } else {
    outer_ = scale_->outer_dim();
    channels_ = scale_->scale_dim();
    inner_ = scale_->inner_dim();
  }
  // The Scale must see the BatchNorm's (num, channels, spatial) layout.
  return !scale_ ||
         (scale_->outer_dim() == outer_ && scale_->scale_dim() == channels_ &&
          scale_->inner_dim() == inner_);
}

template <typename Dtype>
Dtype FusedChain<Dtype>::ReLUSlope() const {
  return static_cast<Dtype>(
      relu_->layer_param().relu_param().negative_slope());
}

template <typename Dtype>
void FusedChain<Dtype>::Forward() {
#ifdef USE_CUDA
  if (Caffe::mode() == Caffe::GPU) return ForwardGpu();
#endif
  ForwardWith(CpuLaunch());
}

// ReLU's backward with its input recomputed from the chain's kept copy
// (BatchNorm's normalized output, or Scale's copy of its input) instead of
// read from the blob: one stream from memory less.  z = copy * s[c] + b[c]
// makes the forward's two roundings (never contracted into one), so z is
// bit for bit what the ReLU saw; for a slope >= 0, z > 0 exactly when the
// ReLU's output is, so the gradient is the in-place ReLU's.
template <typename Dtype>
struct ReLUBackwardFromCopy {
  const Dtype* copy;
  const Dtype* scale;  // null: no Scale in the chain
  const Dtype* bias;   // null: no bias
  const Dtype* dy;
  Dtype* dx;
  Dtype slope;
  int channels, inner;
  Dtype Gradient(Dtype z, Dtype g) const { return ReLUGradient(z, g, slope); }
  void operator()(long p) const {
    const long off = p * inner;
    const int c = static_cast<int>(p % channels);
    if (!scale) {
      CAFFE_PLANE_LOOP(i, inner) {
        dx[off + i] = Gradient(copy[off + i], dy[off + i]);
      }
    } else if (!bias) {
      const Dtype s = scale[c];
      CAFFE_PLANE_LOOP(i, inner) {
        dx[off + i] = Gradient(copy[off + i] * s, dy[off + i]);
      }
    } else {
      const Dtype s = scale[c], b = bias[c];
      CAFFE_PLANE_LOOP(i, inner) {
        const Dtype product = copy[off + i] * s;
        dx[off + i] = Gradient(product + b, dy[off + i]);
      }
    }
  }
};

template <typename Dtype>
const Blob<Dtype>* FusedChain<Dtype>::ReLUInputCopy() const {
  if (!relu_) return nullptr;
  // A negative slope flips the output's sign; NaN or infinite slopes
  // could make the output NaN where z is not.
  const Dtype slope = ReLUSlope();
  if (!(slope >= 0) || !std::isfinite(slope)) return nullptr;
  const Blob<Dtype>* copy =
      scale_ ? &scale_->input_copy()
             : batch_norm_ ? batch_norm_->normalized_output() : nullptr;
  if (!copy || copy->count64() != blob_[0]->count64()) return nullptr;
  return copy;
}

template <typename Dtype>
void FusedChain<Dtype>::Backward() {
#ifdef USE_CUDA
  if (Caffe::mode() == Caffe::GPU) return BackwardGpu();
#endif
  if (!RunsByChannel(false, inner_)) return BackwardByPlane(CpuLaunch());
  // By channel: each member's stage on a channel while it is in cache.
  const CpuLaunch launch;
  const vector<Blob<Dtype>*>& v = blob_;
  const vector<bool> down(1, true);
  // Backward runs the members last to first.
  using ScaleStage = decltype(scale_->BackwardStage(launch, v, down, v));
  using BatchNormStage =
      decltype(batch_norm_->BackwardStage(launch, v, down, input_));
  ReLUBackward<Dtype> relu_body{};
  ReLUBackwardFromCopy<Dtype> relu_from_copy{};
  const Blob<Dtype>* copy = ReLUInputCopy();
  if (copy) {
    Blob<Dtype>& x = *blob_[0];
    // The Scale's learned scale, then its bias when it has one.
    const Dtype* s = scale_ ? scale_->blobs()[0]->cpu_data() : nullptr;
    const Dtype* b = scale_ && scale_->blobs().size() > 1
                         ? scale_->blobs().back()->cpu_data()
                         : nullptr;
    relu_from_copy = {copy->cpu_data(), s, b, x.cpu_diff(),
                      x.mutable_cpu_diff(), ReLUSlope(), channels_, inner_};
  } else if (relu_) {
    Blob<Dtype>& x = *blob_[0];
    relu_body = {x.cpu_data(), x.cpu_diff(), x.mutable_cpu_diff(),
                 ReLUSlope()};
  }
  const Maybe<ChannelStage<NoChannelWork, ReLUBackwardFromCopy<Dtype> > >
      relu_copy{MakeStage(NoChannelWork(), relu_from_copy, outer_, channels_,
                          inner_),
                copy != nullptr};
  const auto relu = ReLUStage(relu_body, relu_ && !copy);
  const Maybe<ScaleStage> scale{
      scale_ ? scale_->BackwardStage(launch, v, down, v) : ScaleStage(),
      scale_ != nullptr};
  const Maybe<BatchNormStage> batch_norm{
      batch_norm_ ? batch_norm_->BackwardStage(launch, v, down, input_)
                  : BatchNormStage(),
      batch_norm_ != nullptr};
  launch(channels_, GrainFor(static_cast<long>(outer_) * inner_),
         MakeThen(MakeThen(relu_copy, relu), MakeThen(scale, batch_norm)));
}

INSTANTIATE_CLASS(FusedChain);

}  // namespace caffe
