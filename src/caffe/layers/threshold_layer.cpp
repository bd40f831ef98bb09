#include "caffe/layers/threshold_layer.hpp"

#include <vector>

namespace caffe {

template <typename Dtype>
void ThresholdLayer<Dtype>::LayerSetUp(const vector<Blob<Dtype>*>& bottom,
                                       const vector<Blob<Dtype>*>& top) {
  threshold_ = this->layer_param_.threshold_param().threshold();
}

template <typename Dtype>
void ThresholdLayer<Dtype>::Forward_cpu(const vector<Blob<Dtype>*>& bottom,
                                        const vector<Blob<Dtype>*>& top) {
  const Dtype* x = bottom[0]->cpu_data();
  Dtype* y = top[0]->mutable_cpu_data();
  const int count = bottom[0]->count();
  for (int i = 0; i < count; ++i) y[i] = (x[i] > threshold_) ? 1 : 0;
}

template <typename Dtype>
void ThresholdLayer<Dtype>::Backward_cpu(const vector<Blob<Dtype>*>& top,
                                         const vector<bool>& propagate_down,
                                         const vector<Blob<Dtype>*>& bottom) {
  for (size_t i = 0; i < propagate_down.size(); ++i) {
    CAFFE_CHECK(!propagate_down[i])
        << "Threshold layer " << this->layer_param_.name()
        << " has no backward pass (the step function has no gradient); "
        << "bottom " << i << " (shape " << bottom[i]->shape_string()
        << ") was asked to propagate down";
  }
}

INSTANTIATE_CLASS(ThresholdLayer);
REGISTER_LAYER_CLASS(Threshold);

}  // namespace caffe
