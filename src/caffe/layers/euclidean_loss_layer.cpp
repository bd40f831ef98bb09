#include "caffe/layers/euclidean_loss_layer.hpp"

#include <algorithm>
#include <vector>

#include "caffe/util/math_functions.hpp"

namespace caffe {

template <typename Dtype>
void EuclideanLossLayer<Dtype>::Reshape(const vector<Blob<Dtype>*>& bottom,
                                        const vector<Blob<Dtype>*>& top) {
  LossLayer<Dtype>::Reshape(bottom, top);
  CAFFE_CHECK_EQ(bottom[0]->count(1), bottom[1]->count(1))
      << "EuclideanLoss layer " << this->layer_param_.name()
      << ": inputs must have the same size per sample (bottom 0 "
      << bottom[0]->shape_string() << ", bottom 1 "
      << bottom[1]->shape_string() << ")";
  diff_.ReshapeLike(*bottom[0]);
}

template <typename Dtype>
void EuclideanLossLayer<Dtype>::Forward_cpu(const vector<Blob<Dtype>*>& bottom,
                                            const vector<Blob<Dtype>*>& top) {
  const int count = bottom[0]->count();
  caffe_sub(count, bottom[0]->cpu_data(), bottom[1]->cpu_data(),
            diff_.mutable_cpu_data());
  const Dtype dot = caffe_cpu_dot(count, diff_.cpu_data(), diff_.cpu_data());
  const Dtype num = std::max(bottom[0]->shape(0), 1);
  top[0]->mutable_cpu_data()[0] = dot / num / Dtype(2);
}

template <typename Dtype>
void EuclideanLossLayer<Dtype>::Backward_cpu(
    const vector<Blob<Dtype>*>& top, const vector<bool>& propagate_down,
    const vector<Blob<Dtype>*>& bottom) {
  const Dtype num = std::max(bottom[0]->shape(0), 1);
  for (int i = 0; i < 2; ++i) {
    if (!propagate_down[i]) continue;
    const Dtype sign = (i == 0) ? 1 : -1;
    const Dtype alpha = sign * top[0]->cpu_diff()[0] / num;
    caffe_cpu_axpby(bottom[i]->count(), alpha, diff_.cpu_data(), Dtype(0),
                    bottom[i]->mutable_cpu_diff());
  }
}

INSTANTIATE_CLASS(EuclideanLossLayer);
REGISTER_LAYER_CLASS(EuclideanLoss);

}  // namespace caffe
