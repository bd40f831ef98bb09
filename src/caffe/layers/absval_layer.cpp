#include <cmath>
#include <vector>

#include "caffe/layers/absval_layer.hpp"
#include "caffe/util/elementwise.hpp"
#include "absval_compute.hpp"

namespace caffe {

template <typename Dtype>
void AbsValLayer<Dtype>::LayerSetUp(const vector<Blob<Dtype>*>& bottom,
                                    const vector<Blob<Dtype>*>& top) {
  CAFFE_CHECK(top[0] != bottom[0])
      << "AbsVal layer " << this->layer_param_.name()
      << " does not allow in-place computation.";
}

DEFINE_CPU_BY_LAUNCH_POLICY(AbsValLayer);

INSTANTIATE_CLASS(AbsValLayer);
REGISTER_LAYER_CLASS(AbsVal);

}  // namespace caffe
