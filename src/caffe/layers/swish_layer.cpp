#include <vector>

#include "caffe/layers/swish_layer.hpp"
#include "swish_compute.hpp"

namespace caffe {

template <typename Dtype>
void SwishLayer<Dtype>::Reshape(const vector<Blob<Dtype>*>& bottom,
                                const vector<Blob<Dtype>*>& top) {
  NeuronLayer<Dtype>::Reshape(bottom, top);
  sigmoid_.ReshapeLike(*bottom[0]);
}

DEFINE_CPU_BY_LAUNCH_POLICY(SwishLayer);

INSTANTIATE_CLASS(SwishLayer);
REGISTER_LAYER_CLASS(Swish);

}  // namespace caffe
