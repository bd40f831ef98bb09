#include "caffe/layers/euclidean_loss_layer.hpp"
#include "caffe/util/device_math.hpp"

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

// One body for both devices (util/device_math.hpp); the loss and its
// weight are single numbers, read and written on the host.
template <typename Dtype>
void EuclideanLossLayer<Dtype>::ForwardOn(bool gpu,
                                          const vector<Blob<Dtype>*>& bottom,
                                          const vector<Blob<Dtype>*>& top) {
  const int count = bottom[0]->count();
  Dtype* diff = MutableDataOn(gpu, &diff_);
  SubOn(gpu, count, DataOn(gpu, *bottom[0]), DataOn(gpu, *bottom[1]), diff);
  const Dtype dot = DotOn(gpu, count, diff, diff);
  const Dtype num = std::max(bottom[0]->shape(0), 1);
  top[0]->mutable_cpu_data()[0] = dot / num / Dtype(2);
}

template <typename Dtype>
void EuclideanLossLayer<Dtype>::BackwardOn(
    bool gpu, const vector<Blob<Dtype>*>& top,
    const vector<bool>& propagate_down, const vector<Blob<Dtype>*>& bottom) {
  const Dtype num = std::max(bottom[0]->shape(0), 1);
  for (int i = 0; i < 2; ++i) {
    if (!propagate_down[i]) continue;
    const Dtype sign = (i == 0) ? 1 : -1;
    const Dtype alpha = sign * top[0]->cpu_diff()[0] / num;
    AxpbyOn(gpu, bottom[i]->count(), alpha, DataOn(gpu, diff_), Dtype(0),
            MutableDiffOn(gpu, bottom[i]));
  }
}

DEFINE_CPU_BY_ON(EuclideanLossLayer);
DEFINE_GPU_BY_ON(EuclideanLossLayer);

INSTANTIATE_CLASS(EuclideanLossLayer);
REGISTER_LAYER_CLASS(EuclideanLoss);

}  // namespace caffe
