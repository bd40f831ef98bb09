#include <algorithm>
#include <cmath>
#include <vector>

#include "caffe/layers/lrn_layer.hpp"
#include "caffe/util/math_functions.hpp"

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
  scale_.resize(bottom[0]->count());
}

template <typename Dtype>
void LRNLayer<Dtype>::WindowSum(const Dtype* in, Dtype* out) const {
  const int plane = height_ * width_;
  caffe_set(channels_ * plane, Dtype(0), out);
  if (across_channels_) {
    for (int c = 0; c < channels_; ++c) {
      Dtype* o = out + c * plane;
      const int c_end = std::min(channels_, c + pre_pad_ + 1);
      for (int c2 = std::max(0, c - pre_pad_); c2 < c_end; ++c2) {
        caffe_axpy(plane, Dtype(1), in + c2 * plane, o);
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

template <typename Dtype>
void LRNLayer<Dtype>::Forward_cpu(const vector<Blob<Dtype>*>& bottom,
                                  const vector<Blob<Dtype>*>& top) {
  const Dtype* bottom_data = bottom[0]->cpu_data();
  Dtype* top_data = top[0]->mutable_cpu_data();
  const int dim = channels_ * height_ * width_;
  // Caffe's WITHIN_CHANNEL power sublayer has shift 1, not k.
  const Dtype shift = across_channels_ ? k_ : Dtype(1);
  const Dtype coeff =
      across_channels_ ? alpha_ / size_ : alpha_ / (size_ * size_);
  vector<Dtype> squares(dim);
  for (int n = 0; n < num_; ++n) {
    const Dtype* x = bottom_data + static_cast<long>(n) * dim;
    Dtype* scale = scale_.data() + static_cast<long>(n) * dim;
    Dtype* y = top_data + static_cast<long>(n) * dim;
    caffe_sqr(dim, x, squares.data());
    WindowSum(squares.data(), scale);
    for (int i = 0; i < dim; ++i) {
      scale[i] = shift + coeff * scale[i];
      y[i] = x[i] * std::pow(scale[i], -beta_);
    }
  }
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
  const int dim = channels_ * height_ * width_;
  const Dtype coeff =
      across_channels_ ? alpha_ / size_ : alpha_ / (size_ * size_);
  vector<Dtype> ratio(dim), ratio_sum(dim);
  for (int n = 0; n < num_; ++n) {
    const long off = static_cast<long>(n) * dim;
    const Dtype* x = bottom_data + off;
    const Dtype* scale = scale_.data() + off;
    const Dtype* dy = top_diff + off;
    Dtype* dx = bottom_diff + off;
    for (int i = 0; i < dim; ++i) {
      ratio[i] = dy[i] * x[i] * std::pow(scale[i], -beta_ - 1);
    }
    WindowSum(ratio.data(), ratio_sum.data());
    for (int i = 0; i < dim; ++i) {
      dx[i] = dy[i] * std::pow(scale[i], -beta_) -
              2 * coeff * beta_ * x[i] * ratio_sum[i];
    }
  }
}

INSTANTIATE_CLASS(LRNLayer);
REGISTER_LAYER_CLASS(LRN);

}  // namespace caffe
