#include "caffe/layers/mvn_layer.hpp"

#include <vector>

#include "caffe/util/elementwise.hpp"
#include "mvn_compute.hpp"

namespace caffe {

template <typename Dtype>
void MVNLayer<Dtype>::Reshape(const vector<Blob<Dtype>*>& bottom,
                              const vector<Blob<Dtype>*>& top) {
  const MVNParameter& p = this->layer_param_.mvn_param();
  CAFFE_CHECK_LE(bottom[0]->num_axes(), 4)
      << "MVN layer " << this->layer_param_.name()
      << " takes a blob of at most 4 axes (N x C x H x W), got shape "
      << bottom[0]->shape_string();
  if (top[0] != bottom[0]) top[0]->ReshapeLike(*bottom[0]);
  groups_ = p.across_channels() ? bottom[0]->num()
                                : bottom[0]->num() * bottom[0]->channels();
  dim_ = groups_ > 0 ? bottom[0]->count() / groups_ : 0;
  scale_.Reshape(vector<int>(1, p.normalize_variance() ? groups_ : 0));
}

DEFINE_CPU_BY_LAUNCH_POLICY(MVNLayer);

INSTANTIATE_CLASS(MVNLayer);
REGISTER_LAYER_CLASS(MVN);

}  // namespace caffe
