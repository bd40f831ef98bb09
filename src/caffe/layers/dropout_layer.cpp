#include <vector>

#include "caffe/layers/dropout_layer.hpp"
#include "caffe/util/elementwise.hpp"
#include "dropout_kernels.hpp"

namespace caffe {

template <typename Dtype>
void DropoutLayer<Dtype>::LayerSetUp(const vector<Blob<Dtype>*>& bottom,
                                     const vector<Blob<Dtype>*>& top) {
  const float ratio = this->layer_param_.dropout_param().dropout_ratio();
  CAFFE_CHECK(ratio >= 0.f && ratio < 1.f)
      << "Dropout layer " << this->layer_param_.name()
      << ": dropout_ratio must be in [0, 1), got " << ratio;
  threshold_ = ratio;
  scale_ = Dtype(1) / (Dtype(1) - threshold_);
}

template <typename Dtype>
void DropoutLayer<Dtype>::Reshape(const vector<Blob<Dtype>*>& bottom,
                                  const vector<Blob<Dtype>*>& top) {
  NeuronLayer<Dtype>::Reshape(bottom, top);
  // TEST never draws a mask, so it should cost nothing there.
  if (this->phase_ == TRAIN) {
    rand_vec_.Reshape(bottom[0]->shape());
  } else {
    rand_vec_.Reshape(vector<int>(1, 0));
  }
}

template <typename Dtype>
void DropoutLayer<Dtype>::Forward_cpu(const vector<Blob<Dtype>*>& bottom,
                                      const vector<Blob<Dtype>*>& top) {
  const Dtype* x = bottom[0]->cpu_data();
  Dtype* y = top[0]->mutable_cpu_data();
  const int count = bottom[0]->count();
  if (this->phase_ != TRAIN) {
    caffe_copy(count, x, y);
    return;
  }
  unsigned int* mask = rand_vec_.mutable_cpu_data();
  // The mask is drawn serially (one random stream); applying it is not.
  caffe_rng_bernoulli<Dtype>(count, Dtype(1) - threshold_, mask);
  ForEach(count, kElementGrain, DropoutApply<Dtype>{x, mask, y, scale_});
}

template <typename Dtype>
void DropoutLayer<Dtype>::Backward_cpu(const vector<Blob<Dtype>*>& top,
                                       const vector<bool>& propagate_down,
                                       const vector<Blob<Dtype>*>& bottom) {
  if (!propagate_down[0]) return;
  const Dtype* dy = top[0]->cpu_diff();
  Dtype* dx = bottom[0]->mutable_cpu_diff();
  const int count = bottom[0]->count();
  if (this->phase_ != TRAIN) {
    caffe_copy(count, dy, dx);
    return;
  }
  ForEach(count, kElementGrain,
          DropoutApply<Dtype>{dy, rand_vec_.cpu_data(), dx, scale_});
}

INSTANTIATE_CLASS(DropoutLayer);
REGISTER_LAYER_CLASS(Dropout);

}  // namespace caffe
