#include "caffe/layers/tile_layer.hpp"

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

template <typename Dtype>
void TileLayer<Dtype>::Forward_cpu(const vector<Blob<Dtype>*>& bottom,
                                   const vector<Blob<Dtype>*>& top) {
  const Dtype* src = bottom[0]->cpu_data();
  Dtype* dst = top[0]->mutable_cpu_data();
  for (int i = 0; i < outer_dim_; ++i) {
    for (int t = 0; t < tiles_; ++t) {
      caffe_copy(inner_dim_, src, dst);
      dst += inner_dim_;
    }
    src += inner_dim_;
  }
}

template <typename Dtype>
void TileLayer<Dtype>::Backward_cpu(const vector<Blob<Dtype>*>& top,
                                    const vector<bool>& propagate_down,
                                    const vector<Blob<Dtype>*>& bottom) {
  if (!propagate_down[0]) return;
  const Dtype* src = top[0]->cpu_diff();
  Dtype* dst = bottom[0]->mutable_cpu_diff();
  for (int i = 0; i < outer_dim_; ++i) {
    caffe_copy(inner_dim_, src, dst);
    src += inner_dim_;
    for (int t = 1; t < tiles_; ++t) {
      caffe_axpy(inner_dim_, Dtype(1), src, dst);
      src += inner_dim_;
    }
    dst += inner_dim_;
  }
}

INSTANTIATE_CLASS(TileLayer);
REGISTER_LAYER_CLASS(Tile);

}  // namespace caffe
