#include "caffe/fused_sum_relu.hpp"

#include "fused_sum_relu_compute.hpp"

namespace caffe {

template <typename Dtype>
std::shared_ptr<FusedSumReLU<Dtype> > FusedSumReLU<Dtype>::Find(
    const vector<shared_ptr<Layer<Dtype> > >& layers,
    const vector<vector<Blob<Dtype>*> >& bottoms,
    const vector<vector<Blob<Dtype>*> >& tops, int first) {
  const int next = first + 1;
  if (first < 0 || next >= static_cast<int>(layers.size())) return nullptr;
  auto no_loss = [&](int k) {
    return layers[k]->layer_param().loss_weight_size() == 0 &&
           layers[k]->loss(0) == Dtype(0);
  };
  EltwiseLayer<Dtype>* sum =
      dynamic_cast<EltwiseLayer<Dtype>*>(layers[first].get());
  ReLULayer<Dtype>* relu = dynamic_cast<ReLULayer<Dtype>*>(layers[next].get());
  if (!sum || !relu || !no_loss(first) || !no_loss(next) ||
      sum->operation() != EltwiseParameter_EltwiseOp_SUM ||
      bottoms[first].size() != 2 || tops[first].size() != 1 ||
      bottoms[next].size() != 1 || tops[next].size() != 1)
    return nullptr;
  Blob<Dtype>* top = tops[first][0];
  // The ReLU in place on the sum's top; the sum not in place on a bottom.
  if (bottoms[next][0] != top || tops[next][0] != top ||
      bottoms[first][0] == top || bottoms[first][1] == top)
    return nullptr;
  std::shared_ptr<FusedSumReLU> pair(new FusedSumReLU);
  pair->first_ = first;
  pair->last_ = next;
  pair->sum_ = sum;
  pair->relu_ = relu;
  pair->bottoms_ = bottoms[first];
  pair->top_.assign(1, top);
  return pair;
}

template <typename Dtype>
bool FusedSumReLU<Dtype>::Fits(bool reshape) {
  if (reshape) {
    sum_->Reshape(bottoms_, top_);
    relu_->Reshape(top_, top_);
  }
  return sum_->coefficients().size() == 2;
}

template <typename Dtype>
Dtype FusedSumReLU<Dtype>::Slope() const {
  return static_cast<Dtype>(
      relu_->layer_param().relu_param().negative_slope());
}

template <typename Dtype>
void FusedSumReLU<Dtype>::Forward() {
#ifdef USE_CUDA
  if (Caffe::mode() == Caffe::GPU) return ForwardGpu();
#endif
  ForwardWith(CpuLaunch());
}

template <typename Dtype>
void FusedSumReLU<Dtype>::Backward() {
#ifdef USE_CUDA
  if (Caffe::mode() == Caffe::GPU) return BackwardGpu();
#endif
  BackwardWith(CpuLaunch());
}

INSTANTIATE_CLASS(FusedSumReLU);

}  // namespace caffe
