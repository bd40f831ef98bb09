#include "caffe/layers/contrastive_loss_layer.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "caffe/util/device_math.hpp"

namespace caffe {

template <typename Dtype>
void ContrastiveLossLayer<Dtype>::Reshape(const vector<Blob<Dtype>*>& bottom,
                                          const vector<Blob<Dtype>*>& top) {
  LossLayer<Dtype>::Reshape(bottom, top);
  const string& name = this->layer_param_.name();
  const Blob<Dtype>& a = *bottom[0];
  const Blob<Dtype>& b = *bottom[1];
  const Blob<Dtype>& y = *bottom[2];
  CAFFE_CHECK(a.num_axes() <= 4 && b.num_axes() <= 4 &&
              a.channels() == b.channels() && a.height() == 1 &&
              a.width() == 1 && b.height() == 1 && b.width() == 1)
      << "ContrastiveLoss layer " << name << ": the two inputs must be "
      << "N x C (x 1 x 1) with the same C, but they are " << a.shape_string()
      << " and " << b.shape_string();
  CAFFE_CHECK(y.num_axes() <= 4 && y.num_axes() >= 1 &&
              y.shape(0) == a.shape(0) && y.channels() == 1 &&
              y.height() == 1 && y.width() == 1)
      << "ContrastiveLoss layer " << name << ": the similarity labels must "
      << "be N x 1 x 1 x 1 with N = " << a.shape(0) << ", but their shape "
      << "is " << y.shape_string();
  diff_.Reshape(vector<int>{a.num(), a.channels()});
  dist_sq_.resize(a.num());
  similar_.resize(a.num());
}

// One body for both devices (util/device_math.hpp): the differences and
// one squared distance per pair on the device, the labels and the loss
// (N numbers) on the host.
template <typename Dtype>
void ContrastiveLossLayer<Dtype>::ForwardOn(
    bool gpu, const vector<Blob<Dtype>*>& bottom,
    const vector<Blob<Dtype>*>& top) {
  const ContrastiveLossParameter& p =
      this->layer_param_.contrastive_loss_param();
  const Dtype margin = p.margin();
  const int num = bottom[0]->num();
  const int channels = bottom[0]->channels();
  SubOn(gpu, diff_.count(), DataOn(gpu, *bottom[0]), DataOn(gpu, *bottom[1]),
        MutableDataOn(gpu, &diff_));
  const Dtype* d = DataOn(gpu, diff_);
  const Dtype* y = bottom[2]->cpu_data();
  Dtype loss = 0;
  for (int n = 0; n < num; ++n) {
    dist_sq_[n] = DotOn(gpu, channels, d + n * channels, d + n * channels);
    // Caffe reads the label through an int cast.
    similar_[n] = static_cast<int>(y[n]) != 0;
    if (similar_[n]) {
      loss += dist_sq_[n];
    } else if (p.legacy_version()) {
      loss += std::max(margin - dist_sq_[n], Dtype(0));
    } else {
      const Dtype gap = std::max(margin - std::sqrt(dist_sq_[n]), Dtype(0));
      loss += gap * gap;
    }
  }
  top[0]->mutable_cpu_data()[0] =
      num > 0 ? loss / static_cast<Dtype>(num) / Dtype(2) : Dtype(0);
}

template <typename Dtype>
void ContrastiveLossLayer<Dtype>::BackwardOn(
    bool gpu, const vector<Blob<Dtype>*>& top,
    const vector<bool>& propagate_down, const vector<Blob<Dtype>*>& bottom) {
  CAFFE_CHECK(!propagate_down[2])
      << "ContrastiveLoss layer " << this->layer_param_.name()
      << " cannot backpropagate to the similarity labels";
  const ContrastiveLossParameter& p =
      this->layer_param_.contrastive_loss_param();
  const Dtype margin = p.margin();
  const int num = bottom[0]->num();
  const int channels = bottom[0]->channels();
  const Dtype* d = DataOn(gpu, diff_);
  for (int i = 0; i < 2; ++i) {
    if (!propagate_down[i]) continue;
    const Dtype sign = (i == 0) ? 1 : -1;
    const Dtype alpha = sign * top[0]->cpu_diff()[0] / num;
    Dtype* out = MutableDiffOn(gpu, bottom[i]);
    for (int n = 0; n < num; ++n) {
      Dtype* o = out + n * channels;
      const Dtype* dn = d + n * channels;
      if (similar_[n]) {
        ScaleOn(gpu, channels, alpha, dn, o);
        continue;
      }
      Dtype gap, beta;
      if (p.legacy_version()) {
        gap = margin - dist_sq_[n];
        beta = -alpha;
      } else {
        const Dtype dist = std::sqrt(dist_sq_[n]);
        gap = margin - dist;
        beta = -alpha * gap / (dist + Dtype(1e-4));
      }
      if (gap > Dtype(0)) {
        ScaleOn(gpu, channels, beta, dn, o);
      } else {
        SetOn(gpu, channels, Dtype(0), o);
      }
    }
  }
}

DEFINE_CPU_BY_ON(ContrastiveLossLayer);
DEFINE_GPU_BY_ON(ContrastiveLossLayer);

INSTANTIATE_CLASS(ContrastiveLossLayer);
REGISTER_LAYER_CLASS(ContrastiveLoss);

}  // namespace caffe
