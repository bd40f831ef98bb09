#include "caffe/layers/softmax_loss_layer.hpp"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <vector>

#include "caffe/util/math_functions.hpp"

namespace caffe {

template <typename Dtype>
void SoftmaxWithLossLayer<Dtype>::LayerSetUp(
    const vector<Blob<Dtype>*>& bottom, const vector<Blob<Dtype>*>& top) {
  LossLayer<Dtype>::LayerSetUp(bottom, top);
  prob_top_ = top.size() >= 2;
  // The inner softmax sees only its own parameters: no loss weights, no
  // blobs, no blob names.
  LayerParameter softmax_param;
  softmax_param.set_name(this->layer_param_.name() + "/softmax");
  softmax_param.set_type("Softmax");
  *softmax_param.mutable_softmax_param() = this->layer_param_.softmax_param();
  softmax_layer_.reset(new SoftmaxLayer<Dtype>(softmax_param));
  softmax_bottom_vec_.assign(1, bottom[0]);
  softmax_top_vec_.assign(1, &prob_);
  softmax_layer_->SetUp(softmax_bottom_vec_, softmax_top_vec_);

  const LossParameter& lp = this->layer_param_.loss_param();
  has_ignore_label_ = lp.has_ignore_label();
  if (has_ignore_label_) ignore_label_ = lp.ignore_label();
  normalization_ = LossLayer<Dtype>::ResolveNormalization(
      lp, LossParameter_NormalizationMode_VALID);
}

template <typename Dtype>
void SoftmaxWithLossLayer<Dtype>::Reshape(const vector<Blob<Dtype>*>& bottom,
                                          const vector<Blob<Dtype>*>& top) {
  LossLayer<Dtype>::Reshape(bottom, top);
  softmax_bottom_vec_.assign(1, bottom[0]);
  softmax_layer_->Reshape(softmax_bottom_vec_, softmax_top_vec_);
  softmax_axis_ = bottom[0]->CanonicalAxisIndex(
      this->layer_param_.softmax_param().axis());
  outer_num_ = bottom[0]->count(0, softmax_axis_);
  inner_num_ = bottom[0]->count(softmax_axis_ + 1);
  CAFFE_CHECK_EQ(outer_num_ * inner_num_, bottom[1]->count())
      << "SoftmaxWithLoss layer " << this->layer_param_.name()
      << ": the number of labels must match the number of predictions; "
      << "with softmax axis " << softmax_axis_ << " and prediction shape "
      << bottom[0]->shape_string() << " the label blob must hold "
      << outer_num_ * inner_num_ << " labels, but its shape is "
      << bottom[1]->shape_string();
  labels_.resize(outer_num_ * inner_num_);
  prob_top_ = top.size() >= 2;
  if (prob_top_) {
    top[1]->ReshapeLike(*bottom[0]);
    top[1]->ShareData(prob_);
  }
}

template <typename Dtype>
void SoftmaxWithLossLayer<Dtype>::Forward_cpu(
    const vector<Blob<Dtype>*>& bottom, const vector<Blob<Dtype>*>& top) {
  softmax_layer_->Forward(softmax_bottom_vec_, softmax_top_vec_);
  const Dtype* prob_data = prob_.cpu_data();
  const Dtype* label = bottom[1]->cpu_data();
  const int channels = bottom[0]->shape(softmax_axis_);
  const int dim = channels * inner_num_;
  int count = 0;
  Dtype loss = 0;
  for (int i = 0; i < outer_num_; ++i) {
    for (int j = 0; j < inner_num_; ++j) {
      const int label_value = static_cast<int>(label[i * inner_num_ + j]);
      labels_[i * inner_num_ + j] = label_value;
      if (has_ignore_label_ && label_value == ignore_label_) continue;
      CAFFE_CHECK(label_value >= 0 && label_value < channels)
          << "SoftmaxWithLoss layer " << this->layer_param_.name()
          << ": label " << label_value << " at position "
          << i * inner_num_ + j << " is outside [0, " << channels << ")";
      const Dtype p = prob_data[i * dim + label_value * inner_num_ + j];
      loss -= std::log(std::max(p, Dtype(FLT_MIN)));
      ++count;
    }
  }
  valid_count_ = count;
  top[0]->mutable_cpu_data()[0] =
      loss / LossLayer<Dtype>::GetNormalizer(normalization_, outer_num_,
                                             inner_num_, count);
}

template <typename Dtype>
void SoftmaxWithLossLayer<Dtype>::Backward_cpu(
    const vector<Blob<Dtype>*>& top, const vector<bool>& propagate_down,
    const vector<Blob<Dtype>*>& bottom) {
  CAFFE_CHECK(!propagate_down[1])
      << "SoftmaxWithLoss layer " << this->layer_param_.name()
      << " cannot backpropagate to label inputs";
  if (!propagate_down[0]) return;
  Dtype* bottom_diff = bottom[0]->mutable_cpu_diff();
  caffe_copy(prob_.count(), prob_.cpu_data(), bottom_diff);
  const int channels = bottom[0]->shape(softmax_axis_);
  const int dim = channels * inner_num_;
  // d loss / d score = prob - onehot(label), zero where the label is ignored.
  for (int i = 0; i < outer_num_; ++i) {
    for (int j = 0; j < inner_num_; ++j) {
      const int label_value = labels_[i * inner_num_ + j];
      if (has_ignore_label_ && label_value == ignore_label_) {
        for (int c = 0; c < channels; ++c)
          bottom_diff[i * dim + c * inner_num_ + j] = 0;
      } else {
        bottom_diff[i * dim + label_value * inner_num_ + j] -= 1;
      }
    }
  }
  const Dtype loss_weight =
      top[0]->cpu_diff()[0] /
      LossLayer<Dtype>::GetNormalizer(normalization_, outer_num_, inner_num_,
                                      valid_count_);
  caffe_scal(prob_.count(), loss_weight, bottom_diff);
}

INSTANTIATE_CLASS(SoftmaxWithLossLayer);
REGISTER_LAYER_CLASS(SoftmaxWithLoss);

}  // namespace caffe
