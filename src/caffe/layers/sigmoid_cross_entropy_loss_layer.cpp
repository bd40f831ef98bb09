#include "caffe/layers/sigmoid_cross_entropy_loss_layer.hpp"

#include <cmath>
#include <vector>

#include "caffe/util/math_functions.hpp"

namespace caffe {

template <typename Dtype>
void SigmoidCrossEntropyLossLayer<Dtype>::LayerSetUp(
    const vector<Blob<Dtype>*>& bottom, const vector<Blob<Dtype>*>& top) {
  LossLayer<Dtype>::LayerSetUp(bottom, top);
  const LossParameter& lp = this->layer_param_.loss_param();
  has_ignore_label_ = lp.has_ignore_label();
  if (has_ignore_label_) ignore_label_ = lp.ignore_label();
  normalization_ = LossLayer<Dtype>::ResolveNormalization(
      lp, LossParameter_NormalizationMode_BATCH_SIZE);
}

template <typename Dtype>
void SigmoidCrossEntropyLossLayer<Dtype>::Reshape(
    const vector<Blob<Dtype>*>& bottom, const vector<Blob<Dtype>*>& top) {
  LossLayer<Dtype>::Reshape(bottom, top);
  CAFFE_CHECK_EQ(bottom[0]->count(), bottom[1]->count())
      << "SigmoidCrossEntropyLoss layer " << this->layer_param_.name()
      << ": inputs must have the same count (bottom 0 "
      << bottom[0]->shape_string() << ", bottom 1 "
      << bottom[1]->shape_string() << ")";
  outer_num_ = bottom[0]->shape(0);
  inner_num_ = bottom[0]->count(1);
  sigmoid_output_.ReshapeLike(*bottom[0]);
}

template <typename Dtype>
void SigmoidCrossEntropyLossLayer<Dtype>::Forward_cpu(
    const vector<Blob<Dtype>*>& bottom, const vector<Blob<Dtype>*>& top) {
  const int count = bottom[0]->count();
  const Dtype* x = bottom[0]->cpu_data();
  const Dtype* target = bottom[1]->cpu_data();
  Dtype* sigmoid = sigmoid_output_.mutable_cpu_data();
  int valid_count = 0;
  Dtype loss = 0;
  for (int i = 0; i < count; ++i) {
    // exp of a non-positive number only: no overflow for large |x|.
    const Dtype e = std::exp(-std::fabs(x[i]));
    sigmoid[i] = x[i] >= 0 ? Dtype(1) / (Dtype(1) + e) : e / (Dtype(1) + e);
    if (has_ignore_label_ && static_cast<int>(target[i]) == ignore_label_)
      continue;
    // -[t log s(x) + (1 - t) log(1 - s(x))]
    //   = max(x, 0) - x t + log(1 + exp(-|x|))
    loss += (x[i] >= 0 ? x[i] : Dtype(0)) - x[i] * target[i] + std::log1p(e);
    ++valid_count;
  }
  normalizer_ = LossLayer<Dtype>::GetNormalizer(normalization_, outer_num_,
                                                inner_num_, valid_count);
  top[0]->mutable_cpu_data()[0] = loss / normalizer_;
}

template <typename Dtype>
void SigmoidCrossEntropyLossLayer<Dtype>::Backward_cpu(
    const vector<Blob<Dtype>*>& top, const vector<bool>& propagate_down,
    const vector<Blob<Dtype>*>& bottom) {
  CAFFE_CHECK(!propagate_down[1])
      << "SigmoidCrossEntropyLoss layer " << this->layer_param_.name()
      << " cannot backpropagate to label inputs";
  if (!propagate_down[0]) return;
  const int count = bottom[0]->count();
  const Dtype* sigmoid = sigmoid_output_.cpu_data();
  const Dtype* target = bottom[1]->cpu_data();
  Dtype* bottom_diff = bottom[0]->mutable_cpu_diff();
  const Dtype scale = top[0]->cpu_diff()[0] / normalizer_;
  for (int i = 0; i < count; ++i) {
    const bool ignored =
        has_ignore_label_ && static_cast<int>(target[i]) == ignore_label_;
    bottom_diff[i] = ignored ? Dtype(0) : scale * (sigmoid[i] - target[i]);
  }
}

INSTANTIATE_CLASS(SigmoidCrossEntropyLossLayer);
REGISTER_LAYER_CLASS(SigmoidCrossEntropyLoss);

}  // namespace caffe
