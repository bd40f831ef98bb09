#include "caffe/layers/mvn_layer.hpp"

#include <cmath>
#include <vector>

namespace caffe {

template <typename Dtype>
void MVNLayer<Dtype>::Reshape(const vector<Blob<Dtype>*>& bottom,
                              const vector<Blob<Dtype>*>& top) {
  const MVNParameter& p = this->layer_param_.mvn_param();
  CAFFE_CHECK_LE(bottom[0]->num_axes(), 4)
      << "MVN layer " << this->layer_param_.name()
      << " takes a blob of at most 4 axes (N x C x H x W), got shape "
      << bottom[0]->shape_string();
  if (top[0] != bottom[0]) top[0]->ReshapeLike(*bottom[0]);
  groups_ = p.across_channels() ? bottom[0]->num()
                                : bottom[0]->num() * bottom[0]->channels();
  dim_ = groups_ > 0 ? bottom[0]->count() / groups_ : 0;
  if (p.normalize_variance()) {
    scale_.resize(groups_);
  } else {
    scale_.clear();
  }
}

template <typename Dtype>
void MVNLayer<Dtype>::Forward_cpu(const vector<Blob<Dtype>*>& bottom,
                                  const vector<Blob<Dtype>*>& top) {
  const MVNParameter& p = this->layer_param_.mvn_param();
  const Dtype eps = p.eps();
  const Dtype* x = bottom[0]->cpu_data();
  Dtype* y = top[0]->mutable_cpu_data();
  for (int g = 0; g < groups_; ++g, x += dim_, y += dim_) {
    Dtype mean = 0;
    for (int i = 0; i < dim_; ++i) mean += x[i];
    mean /= dim_;
    // x and y may be the same memory (in place): each element is read
    // before it is written.
    for (int i = 0; i < dim_; ++i) y[i] = x[i] - mean;
    if (!p.normalize_variance()) continue;
    Dtype var = 0;
    for (int i = 0; i < dim_; ++i) var += y[i] * y[i];
    var /= dim_;
    const Dtype s = std::sqrt(var) + eps;
    scale_[g] = s;
    for (int i = 0; i < dim_; ++i) y[i] /= s;
  }
}

template <typename Dtype>
void MVNLayer<Dtype>::Backward_cpu(const vector<Blob<Dtype>*>& top,
                                   const vector<bool>& propagate_down,
                                   const vector<Blob<Dtype>*>& bottom) {
  if (!propagate_down[0]) return;
  const bool normalize = this->layer_param_.mvn_param().normalize_variance();
  const Dtype* dy = top[0]->cpu_diff();
  const Dtype* y = normalize ? top[0]->cpu_data() : nullptr;
  Dtype* dx = bottom[0]->mutable_cpu_diff();
  for (int g = 0; g < groups_; ++g, dy += dim_, dx += dim_) {
    // Both sums are complete before dx (possibly dy's memory) is written.
    Dtype sum_dy = 0, sum_ydy = 0;
    for (int i = 0; i < dim_; ++i) sum_dy += dy[i];
    if (!normalize) {
      const Dtype mean_dy = sum_dy / dim_;
      for (int i = 0; i < dim_; ++i) dx[i] = dy[i] - mean_dy;
      continue;
    }
    for (int i = 0; i < dim_; ++i) sum_ydy += y[i] * dy[i];
    const Dtype s = scale_[g];
    for (int i = 0; i < dim_; ++i)
      dx[i] = (dy[i] - (sum_dy + y[i] * sum_ydy) / dim_) / s;
    y += dim_;
  }
}

INSTANTIATE_CLASS(MVNLayer);
REGISTER_LAYER_CLASS(MVN);

}  // namespace caffe
