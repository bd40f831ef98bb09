#include <algorithm>
#include <cmath>
#include <vector>

#include "caffe/layers/bnll_layer.hpp"

namespace caffe {

// exp(x) is clamped here in backward, as Caffe does; the derivative is 1 to
// working precision beyond it.
static const float kBNLLThreshold = 50.f;

template <typename Dtype>
void BNLLLayer<Dtype>::Forward_cpu(const vector<Blob<Dtype>*>& bottom,
                                   const vector<Blob<Dtype>*>& top) {
  const Dtype* x = bottom[0]->cpu_data();
  Dtype* y = top[0]->mutable_cpu_data();
  const int count = bottom[0]->count();
  for (int i = 0; i < count; ++i) {
    y[i] = x[i] > 0 ? x[i] + std::log(Dtype(1) + std::exp(-x[i]))
                    : std::log(Dtype(1) + std::exp(x[i]));
  }
}

template <typename Dtype>
void BNLLLayer<Dtype>::Backward_cpu(const vector<Blob<Dtype>*>& top,
                                    const vector<bool>& propagate_down,
                                    const vector<Blob<Dtype>*>& bottom) {
  if (!propagate_down[0]) return;
  const Dtype* x = bottom[0]->cpu_data();
  const Dtype* dy = top[0]->cpu_diff();
  Dtype* dx = bottom[0]->mutable_cpu_diff();
  const int count = bottom[0]->count();
  for (int i = 0; i < count; ++i) {
    const Dtype e = std::exp(std::min(x[i], Dtype(kBNLLThreshold)));
    dx[i] = dy[i] * e / (e + Dtype(1));
  }
}

INSTANTIATE_CLASS(BNLLLayer);
REGISTER_LAYER_CLASS(BNLL);

}  // namespace caffe
