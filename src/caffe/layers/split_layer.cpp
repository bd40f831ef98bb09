#include "caffe/layers/split_layer.hpp"

#include <vector>

#include "caffe/util/math_functions.hpp"

namespace caffe {

template <typename Dtype>
void SplitLayer<Dtype>::Reshape(const vector<Blob<Dtype>*>& bottom,
                                const vector<Blob<Dtype>*>& top) {
  for (size_t i = 0; i < top.size(); ++i) {
    // Each top needs its own diff, so a top may not be the bottom itself.
    CAFFE_CHECK(top[i] != bottom[0])
        << "Split layer " << this->layer_param_.name()
        << " does not allow in-place computation (top " << i << ")";
    top[i]->ReshapeLike(*bottom[0]);
    top[i]->ShareData(*bottom[0]);
  }
}

template <typename Dtype>
void SplitLayer<Dtype>::Backward_cpu(const vector<Blob<Dtype>*>& top,
                                     const vector<bool>& propagate_down,
                                     const vector<Blob<Dtype>*>& bottom) {
  if (!propagate_down[0]) return;
  const int count = bottom[0]->count();
  Dtype* bottom_diff = bottom[0]->mutable_cpu_diff();
  caffe_copy(count, top[0]->cpu_diff(), bottom_diff);
  for (size_t i = 1; i < top.size(); ++i)
    caffe_axpy(count, Dtype(1), top[i]->cpu_diff(), bottom_diff);
}

INSTANTIATE_CLASS(SplitLayer);
REGISTER_LAYER_CLASS(Split);

}  // namespace caffe
