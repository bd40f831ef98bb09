#include "caffe/layers/silence_layer.hpp"

#include <vector>

#include "caffe/util/device_math.hpp"

namespace caffe {

// One body for both devices (util/device_math.hpp).
template <typename Dtype>
void SilenceLayer<Dtype>::ForwardOn(bool, const vector<Blob<Dtype>*>&,
                                    const vector<Blob<Dtype>*>&) {}

template <typename Dtype>
void SilenceLayer<Dtype>::BackwardOn(bool gpu, const vector<Blob<Dtype>*>& top,
                                     const vector<bool>& propagate_down,
                                     const vector<Blob<Dtype>*>& bottom) {
  for (size_t i = 0; i < bottom.size(); ++i) {
    if (propagate_down[i])
      SetOn(gpu, bottom[i]->count(), Dtype(0), MutableDiffOn(gpu, bottom[i]));
  }
}

DEFINE_CPU_BY_ON(SilenceLayer);
DEFINE_GPU_BY_ON(SilenceLayer);

INSTANTIATE_CLASS(SilenceLayer);
REGISTER_LAYER_CLASS(Silence);

}  // namespace caffe
