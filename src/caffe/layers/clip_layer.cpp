#include <vector>

#include "caffe/layers/clip_layer.hpp"
#include "clip_compute.hpp"

namespace caffe {

template <typename Dtype>
void ClipLayer<Dtype>::LayerSetUp(const vector<Blob<Dtype>*>& bottom,
                                  const vector<Blob<Dtype>*>& top) {
  const LayerParameter& param = this->layer_param_;
  CAFFE_CHECK(param.has_clip_param() && param.clip_param().has_min() &&
              param.clip_param().has_max())
      << "Clip layer " << param.name()
      << " needs clip_param { min: ... max: ... }";
  CAFFE_CHECK_LE(param.clip_param().min(), param.clip_param().max())
      << "Clip layer " << param.name() << ": clip_param min must not exceed max";
}

template <typename Dtype>
void ClipLayer<Dtype>::Reshape(const vector<Blob<Dtype>*>& bottom,
                               const vector<Blob<Dtype>*>& top) {
  NeuronLayer<Dtype>::Reshape(bottom, top);
  passed_.Reshape(bottom[0]->shape());
}

DEFINE_CPU_BY_LAUNCH_POLICY(ClipLayer);

INSTANTIATE_CLASS(ClipLayer);
REGISTER_LAYER_CLASS(Clip);

}  // namespace caffe
