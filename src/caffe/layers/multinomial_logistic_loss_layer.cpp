#include "caffe/layers/multinomial_logistic_loss_layer.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "caffe/util/math_functions.hpp"

namespace caffe {

template <typename Dtype>
void MultinomialLogisticLossLayer<Dtype>::Reshape(
    const vector<Blob<Dtype>*>& bottom, const vector<Blob<Dtype>*>& top) {
  LossLayer<Dtype>::Reshape(bottom, top);
  CAFFE_CHECK(bottom[1]->num_axes() <= 4 && bottom[1]->channels() == 1 &&
              bottom[1]->height() == 1 && bottom[1]->width() == 1)
      << "MultinomialLogisticLoss layer " << this->layer_param_.name()
      << ": the label blob must hold one label per item (N x 1 x 1 x 1), "
      << "but its shape is " << bottom[1]->shape_string();
  labels_.resize(bottom[0]->shape(0));
  probs_.resize(bottom[0]->shape(0));
}

template <typename Dtype>
void MultinomialLogisticLossLayer<Dtype>::Forward_cpu(
    const vector<Blob<Dtype>*>& bottom, const vector<Blob<Dtype>*>& top) {
  const Dtype* prob = bottom[0]->cpu_data();
  const Dtype* label = bottom[1]->cpu_data();
  const int num = bottom[0]->shape(0);
  const int dim = num > 0 ? bottom[0]->count() / num : 0;
  Dtype loss = 0;
  for (int i = 0; i < num; ++i) {
    const int l = static_cast<int>(label[i]);
    CAFFE_CHECK(l >= 0 && l < dim)
        << "MultinomialLogisticLoss layer " << this->layer_param_.name()
        << ": label " << label[i] << " of item " << i << " is outside [0, "
        << dim << ") for probabilities of shape "
        << bottom[0]->shape_string();
    labels_[i] = l;
    probs_[i] = std::max(prob[i * dim + l], Dtype(kLOG_THRESHOLD));
    loss -= std::log(probs_[i]);
  }
  top[0]->mutable_cpu_data()[0] = num > 0 ? loss / num : Dtype(0);
}

template <typename Dtype>
void MultinomialLogisticLossLayer<Dtype>::Backward_cpu(
    const vector<Blob<Dtype>*>& top, const vector<bool>& propagate_down,
    const vector<Blob<Dtype>*>& bottom) {
  CAFFE_CHECK(!propagate_down[1])
      << "MultinomialLogisticLoss layer " << this->layer_param_.name()
      << " cannot backpropagate to label inputs";
  if (!propagate_down[0]) return;
  const int num = bottom[0]->shape(0);
  const int dim = num > 0 ? bottom[0]->count() / num : 0;
  Dtype* diff = bottom[0]->mutable_cpu_diff();
  caffe_set(bottom[0]->count(), Dtype(0), diff);
  if (num == 0) return;
  const Dtype scale = -top[0]->cpu_diff()[0] / num;
  for (int i = 0; i < num; ++i) diff[i * dim + labels_[i]] = scale / probs_[i];
}

INSTANTIATE_CLASS(MultinomialLogisticLossLayer);
REGISTER_LAYER_CLASS(MultinomialLogisticLoss);

}  // namespace caffe
