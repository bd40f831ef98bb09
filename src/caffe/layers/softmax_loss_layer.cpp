#include "caffe/layers/softmax_loss_layer.hpp"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <vector>

#include "caffe/util/math_functions.hpp"

namespace caffe {

template <typename Dtype>
void SoftmaxWithLossLayer<Dtype>::Forward_cpu(
    const vector<Blob<Dtype>*>& bottom, const vector<Blob<Dtype>*>& top) {
  this->ForwardSoftmaxAndLabels(*bottom[1]);
  const Dtype* prob_data = this->prob_.cpu_data();
  const int inner_num = this->inner_num_;
  const int dim = this->num_classes_ * inner_num;
  Dtype loss = 0;
  for (int i = 0; i < this->outer_num_; ++i) {
    for (int j = 0; j < inner_num; ++j) {
      const int label_value = this->labels_[i * inner_num + j];
      if (this->ignored(label_value)) continue;
      const Dtype p = prob_data[i * dim + label_value * inner_num + j];
      loss -= std::log(std::max(p, Dtype(FLT_MIN)));
    }
  }
  top[0]->mutable_cpu_data()[0] = loss / this->normalizer();
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
  caffe_copy(this->prob_.count(), this->prob_.cpu_data(), bottom_diff);
  const int channels = this->num_classes_;
  const int inner_num = this->inner_num_;
  const int dim = channels * inner_num;
  // d loss / d score = prob - onehot(label), zero where the label is ignored.
  for (int i = 0; i < this->outer_num_; ++i) {
    for (int j = 0; j < inner_num; ++j) {
      const int label_value = this->labels_[i * inner_num + j];
      if (this->ignored(label_value)) {
        for (int c = 0; c < channels; ++c)
          bottom_diff[i * dim + c * inner_num + j] = 0;
      } else {
        bottom_diff[i * dim + label_value * inner_num + j] -= 1;
      }
    }
  }
  const Dtype loss_weight = top[0]->cpu_diff()[0] / this->normalizer();
  caffe_scal(this->prob_.count(), loss_weight, bottom_diff);
}

INSTANTIATE_CLASS(SoftmaxWithLossLayer);
REGISTER_LAYER_CLASS(SoftmaxWithLoss);

}  // namespace caffe
