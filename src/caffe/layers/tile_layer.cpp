#include "caffe/layers/tile_layer.hpp"
#include "caffe/util/device_math.hpp"

#include <vector>

#include "caffe/util/math_functions.hpp"

namespace caffe {

template <typename Dtype>
void TileLayer<Dtype>::Reshape(const vector<Blob<Dtype>*>& bottom,
                               const vector<Blob<Dtype>*>& top) {
  const TileParameter& p = this->layer_param_.tile_param();
  const string& name = this->layer_param_.name();
  CAFFE_CHECK(top[0] != bottom[0])
      << "Tile layer " << name << " does not allow in-place computation";
  CAFFE_CHECK(p.has_tiles())
      << "Tile layer " << name << ": tile_param.tiles must be specified";
  tiles_ = p.tiles();
  CAFFE_CHECK_GT(tiles_, 0)
      << "Tile layer " << name << ": the number of tiles must be positive";
  axis_ = bottom[0]->CanonicalAxisIndex(p.axis());
  vector<int> top_shape = bottom[0]->shape();
  top_shape[axis_] *= tiles_;
  top[0]->Reshape(top_shape);
  outer_dim_ = bottom[0]->count(0, axis_);
  inner_dim_ = bottom[0]->count(axis_);
}

// One body for both devices (util/device_math.hpp).
template <typename Dtype>
void TileLayer<Dtype>::ForwardOn(bool gpu, const vector<Blob<Dtype>*>& bottom,
                                 const vector<Blob<Dtype>*>& top) {
  const Dtype* src = DataOn(gpu, *bottom[0]);
  Dtype* dst = MutableDataOn(gpu, top[0]);
  for (int i = 0; i < outer_dim_; ++i) {
    for (int t = 0; t < tiles_; ++t) {
      CopyOn(gpu, inner_dim_, src, dst);
      dst += inner_dim_;
    }
    src += inner_dim_;
  }
}

// Each tile's gradient added in tile order.
template <typename Dtype>
void TileLayer<Dtype>::BackwardOn(bool gpu, const vector<Blob<Dtype>*>& top,
                                  const vector<bool>& propagate_down,
                                  const vector<Blob<Dtype>*>& bottom) {
  if (!propagate_down[0]) return;
  const Dtype* src = DiffOn(gpu, *top[0]);
  Dtype* dst = MutableDiffOn(gpu, bottom[0]);
  for (int i = 0; i < outer_dim_; ++i) {
    CopyOn(gpu, inner_dim_, src, dst);
    src += inner_dim_;
    for (int t = 1; t < tiles_; ++t) {
      AxpyOn(gpu, inner_dim_, Dtype(1), src, dst);
      src += inner_dim_;
    }
    dst += inner_dim_;
  }
}

DEFINE_CPU_BY_ON(TileLayer);
DEFINE_GPU_BY_ON(TileLayer);

INSTANTIATE_CLASS(TileLayer);
REGISTER_LAYER_CLASS(Tile);

}  // namespace caffe
