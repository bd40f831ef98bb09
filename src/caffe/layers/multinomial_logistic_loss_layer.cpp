#include "caffe/layers/multinomial_logistic_loss_layer.hpp"

#include <vector>

#include "caffe/util/elementwise.hpp"
#include "multinomial_logistic_loss_compute.hpp"

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
  labels_.Reshape(vector<int>(1, bottom[0]->shape(0)));
  probs_.Reshape(vector<int>(1, bottom[0]->shape(0)));
}

DEFINE_CPU_BY_LAUNCH_POLICY(MultinomialLogisticLossLayer);

INSTANTIATE_CLASS(MultinomialLogisticLossLayer);
REGISTER_LAYER_CLASS(MultinomialLogisticLoss);

}  // namespace caffe
