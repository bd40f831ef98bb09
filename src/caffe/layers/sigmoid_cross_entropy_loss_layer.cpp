#include "caffe/layers/sigmoid_cross_entropy_loss_layer.hpp"
#include "caffe/util/elementwise.hpp"
#include "sigmoid_cross_entropy_loss_compute.hpp"

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

DEFINE_CPU_BY_LAUNCH_POLICY(SigmoidCrossEntropyLossLayer);

INSTANTIATE_CLASS(SigmoidCrossEntropyLossLayer);
REGISTER_LAYER_CLASS(SigmoidCrossEntropyLoss);

}  // namespace caffe
