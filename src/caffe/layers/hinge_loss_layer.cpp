#include "caffe/layers/hinge_loss_layer.hpp"

#include <algorithm>
#include <vector>

#include "caffe/util/elementwise.hpp"
#include "hinge_loss_compute.hpp"

namespace caffe {

template <typename Dtype>
void HingeLossLayer<Dtype>::Reshape(const vector<Blob<Dtype>*>& bottom,
                                    const vector<Blob<Dtype>*>& top) {
  LossLayer<Dtype>::Reshape(bottom, top);
  CAFFE_CHECK_EQ(bottom[1]->count(), bottom[0]->shape(0))
      << "HingeLoss layer " << this->layer_param_.name()
      << ": one label per item is needed; scores " << bottom[0]->shape_string()
      << ", labels " << bottom[1]->shape_string();
  const HingeLossParameter_Norm norm =
      this->layer_param_.hinge_loss_param().norm();
  CAFFE_CHECK(norm == HingeLossParameter_Norm_L1 ||
              norm == HingeLossParameter_Norm_L2)
      << "HingeLoss layer " << this->layer_param_.name()
      << ": unknown norm " << norm;
}

template <typename Dtype>
void HingeLossLayer<Dtype>::CheckLabels(
    const vector<Blob<Dtype>*>& bottom) const {
  const int num = bottom[0]->shape(0);
  const int dim = num > 0 ? bottom[0]->count() / num : 0;
  const Dtype* label = bottom[1]->cpu_data();
  for (int n = 0; n < num; ++n) {
    const int l = static_cast<int>(label[n]);
    CAFFE_CHECK(l >= 0 && l < dim)
        << "HingeLoss layer " << this->layer_param_.name() << ": label "
        << label[n] << " of item " << n << " is outside [0, " << dim
        << ") for scores of shape " << bottom[0]->shape_string();
  }
}

DEFINE_CPU_BY_LAUNCH_POLICY(HingeLossLayer);

INSTANTIATE_CLASS(HingeLossLayer);
REGISTER_LAYER_CLASS(HingeLoss);

}  // namespace caffe
