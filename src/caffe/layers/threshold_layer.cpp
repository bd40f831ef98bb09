#include "caffe/layers/threshold_layer.hpp"
#include "caffe/util/elementwise.hpp"
#include "threshold_compute.hpp"

#include <vector>

namespace caffe {

template <typename Dtype>
void ThresholdLayer<Dtype>::LayerSetUp(const vector<Blob<Dtype>*>& bottom,
                                       const vector<Blob<Dtype>*>& top) {
  threshold_ = this->layer_param_.threshold_param().threshold();
}

DEFINE_CPU_BY_LAUNCH_POLICY(ThresholdLayer);

INSTANTIATE_CLASS(ThresholdLayer);
REGISTER_LAYER_CLASS(Threshold);

}  // namespace caffe
