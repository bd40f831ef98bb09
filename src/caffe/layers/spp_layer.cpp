#include "caffe/layers/spp_layer.hpp"

#include <cmath>
#include <string>
#include <vector>

#include "caffe/layers/pooling_layer.hpp"
#include "caffe/util/math_functions.hpp"

namespace caffe {

template <typename Dtype>
LayerParameter SPPLayer<Dtype>::PoolingParamForLevel(
    int level, int height, int width, const SPPParameter& spp_param) {
  LayerParameter param;
  param.set_type("Pooling");
  const int bins = 1 << level;
  // The smallest kernel that covers the image in `bins` steps; the shortfall
  // is padded, the odd pixel on the leading side.
  const int kernel_h =
      static_cast<int>(std::ceil(height / static_cast<double>(bins)));
  const int pad_h = (kernel_h * bins - height + 1) / 2;
  const int kernel_w =
      static_cast<int>(std::ceil(width / static_cast<double>(bins)));
  const int pad_w = (kernel_w * bins - width + 1) / 2;
  PoolingParameter* pp = param.mutable_pooling_param();
  pp->set_kernel_h(kernel_h);
  pp->set_kernel_w(kernel_w);
  pp->set_stride_h(kernel_h);
  pp->set_stride_w(kernel_w);
  pp->set_pad_h(pad_h);
  pp->set_pad_w(pad_w);
  switch (spp_param.pool()) {
    case SPPParameter_PoolMethod_MAX:
      pp->set_pool(PoolingParameter_PoolMethod_MAX);
      break;
    case SPPParameter_PoolMethod_AVE:
      pp->set_pool(PoolingParameter_PoolMethod_AVE);
      break;
    case SPPParameter_PoolMethod_STOCHASTIC:
      pp->set_pool(PoolingParameter_PoolMethod_STOCHASTIC);
      break;
    default:
      CAFFE_THROW() << "SPP: unknown pooling method " << spp_param.pool();
  }
  return param;
}

template <typename Dtype>
void SPPLayer<Dtype>::LayerSetUp(const vector<Blob<Dtype>*>& bottom,
                                 const vector<Blob<Dtype>*>& top) {
  const SPPParameter& p = this->layer_param_.spp_param();
  CAFFE_CHECK(p.has_pyramid_height() && p.pyramid_height() > 0)
      << "SPP layer " << this->layer_param_.name()
      << ": spp_param.pyramid_height must be given and positive";
  CAFFE_CHECK(p.pyramid_height() <= 30)
      << "SPP layer " << this->layer_param_.name()
      << ": pyramid_height " << p.pyramid_height() << " is too large";
  pyramid_height_ = static_cast<int>(p.pyramid_height());
  height_ = width_ = -1;  // forces BuildLevels in Reshape
}

template <typename Dtype>
void SPPLayer<Dtype>::BuildLevels(const vector<Blob<Dtype>*>& bottom,
                                  const vector<Blob<Dtype>*>& top) {
  const SPPParameter& p = this->layer_param_.spp_param();
  const int height = bottom[0]->height(), width = bottom[0]->width();
  // Built aside and swapped in, so a level the Pooling layer rejects leaves
  // the layer as it was (and the next Reshape tries again).
  vector<shared_ptr<Layer<Dtype> > > layers;
  vector<shared_ptr<Blob<Dtype> > > pooled;
  for (int l = 0; l < pyramid_height_; ++l) {
    LayerParameter pool_param = PoolingParamForLevel(l, height, width, p);
    pool_param.set_name(this->layer_param_.name() + "/pool" +
                        std::to_string(l));
    shared_ptr<Layer<Dtype> > layer(new PoolingLayer<Dtype>(pool_param));
    layers.push_back(layer);
    if (pyramid_height_ == 1) {
      layer->SetUp(bottom, top);
    } else {
      pooled.emplace_back(new Blob<Dtype>());
      vector<Blob<Dtype>*> pool_top(1, pooled.back().get());
      vector<Blob<Dtype>*> pool_bottom(1, l == 0 ? bottom[0] : &scratch_);
      layer->SetUp(pool_bottom, pool_top);
    }
  }
  pooling_layers_.swap(layers);
  pooled_.swap(pooled);
  height_ = height;
  width_ = width;
}

template <typename Dtype>
void SPPLayer<Dtype>::Reshape(const vector<Blob<Dtype>*>& bottom,
                              const vector<Blob<Dtype>*>& top) {
  const string& name = this->layer_param_.name();
  CAFFE_CHECK_EQ(bottom[0]->num_axes(), 4)
      << "SPP layer " << name << ": the input must have 4 axes (num, "
      << "channels, height, width), but its shape is "
      << bottom[0]->shape_string();
  CAFFE_CHECK(bottom[0]->height() > 0 && bottom[0]->width() > 0)
      << "SPP layer " << name << ": input dimensions cannot be zero (shape "
      << bottom[0]->shape_string() << ")";
  CAFFE_CHECK(top[0] != bottom[0])
      << "SPP layer " << name << " does not allow in-place computation";
  if (pyramid_height_ > 1) {
    scratch_.ReshapeLike(*bottom[0]);
    scratch_.ShareData(*bottom[0]);
  }
  if (bottom[0]->height() != height_ || bottom[0]->width() != width_)
    BuildLevels(bottom, top);
  if (pyramid_height_ == 1) {
    pooling_layers_[0]->Reshape(bottom, top);
    return;
  }
  const int num = bottom[0]->num();
  level_dim_.resize(pyramid_height_);
  level_offset_.resize(pyramid_height_);
  int total = 0;
  for (int l = 0; l < pyramid_height_; ++l) {
    vector<Blob<Dtype>*> pool_top(1, pooled_[l].get());
    vector<Blob<Dtype>*> pool_bottom(1, l == 0 ? bottom[0] : &scratch_);
    pooling_layers_[l]->Reshape(pool_bottom, pool_top);
    level_dim_[l] = pooled_[l]->count(1);
    level_offset_[l] = total;
    total += level_dim_[l];
  }
  top[0]->Reshape(vector<int>{num, total});
}

template <typename Dtype>
size_t SPPLayer<Dtype>::InternalBytes() const {
  size_t bytes = 0;
  for (const auto& layer : pooling_layers_) bytes += layer->InternalBytes();
  for (const auto& blob : pooled_)
    bytes += 2 * static_cast<size_t>(blob->count()) * sizeof(Dtype);
  if (pyramid_height_ > 1)
    bytes += static_cast<size_t>(scratch_.count()) * sizeof(Dtype);
  return bytes;
}

template <typename Dtype>
void SPPLayer<Dtype>::Forward_cpu(const vector<Blob<Dtype>*>& bottom,
                                  const vector<Blob<Dtype>*>& top) {
  if (pyramid_height_ == 1) {
    pooling_layers_[0]->Forward(bottom, top);
    return;
  }
  // The bottom's buffer may have been replaced since Reshape.
  scratch_.ShareData(*bottom[0]);
  const int num = bottom[0]->num();
  const int top_dim = top[0]->count(1);
  Dtype* top_data = top[0]->mutable_cpu_data();
  for (int l = 0; l < pyramid_height_; ++l) {
    vector<Blob<Dtype>*> pool_top(1, pooled_[l].get());
    vector<Blob<Dtype>*> pool_bottom(1, l == 0 ? bottom[0] : &scratch_);
    pooling_layers_[l]->Forward(pool_bottom, pool_top);
    const Dtype* pooled = pooled_[l]->cpu_data();
    for (int n = 0; n < num; ++n)
      caffe_copy(level_dim_[l], pooled + n * level_dim_[l],
                 top_data + n * top_dim + level_offset_[l]);
  }
}

template <typename Dtype>
void SPPLayer<Dtype>::Backward_cpu(const vector<Blob<Dtype>*>& top,
                                   const vector<bool>& propagate_down,
                                   const vector<Blob<Dtype>*>& bottom) {
  if (!propagate_down[0]) return;
  const vector<bool> down(1, true);
  if (pyramid_height_ == 1) {
    pooling_layers_[0]->Backward(top, down, bottom);
    return;
  }
  scratch_.ShareData(*bottom[0]);
  const int num = bottom[0]->num();
  const int top_dim = top[0]->count(1);
  const Dtype* top_diff = top[0]->cpu_diff();
  for (int l = 0; l < pyramid_height_; ++l) {
    Dtype* pooled_diff = pooled_[l]->mutable_cpu_diff();
    for (int n = 0; n < num; ++n)
      caffe_copy(level_dim_[l], top_diff + n * top_dim + level_offset_[l],
                 pooled_diff + n * level_dim_[l]);
    vector<Blob<Dtype>*> pool_top(1, pooled_[l].get());
    // Level 0 writes the bottom diff; later levels go through scratch_ and
    // are added on.
    vector<Blob<Dtype>*> pool_bottom(1, l == 0 ? bottom[0] : &scratch_);
    pooling_layers_[l]->Backward(pool_top, down, pool_bottom);
    if (l > 0) {
      caffe_axpy(bottom[0]->count(), Dtype(1), scratch_.cpu_diff(),
                 bottom[0]->mutable_cpu_diff());
    }
  }
}

INSTANTIATE_CLASS(SPPLayer);
REGISTER_LAYER_CLASS(SPP);

}  // namespace caffe
