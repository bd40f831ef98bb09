#include "caffe/fused_sum_relu.hpp"

#include <algorithm>

#include "caffe/layers/eltwise_layer.hpp"
#include "caffe/layers/relu_layer.hpp"
#include "caffe/util/elementwise.hpp"
#include "layers/relu_kernels.hpp"

namespace caffe {
namespace {

// Element i of the sum and then of the ReLU: the members' expressions
// (ScaledSumOfTwoValue, ReLUValue) in one, the sum rounded to Dtype before
// the ReLU reads it as when it went through memory, and one store: a
// store read back in the same element would keep the loop from
// vectorizing.  The top may lie over a bottom (mem_param): both are read
// before it is written.
template <typename Dtype>
struct SumThenReLU {
  const Dtype* a;
  const Dtype* b;
  Dtype ca, cb;
  Dtype* y;
  Dtype slope;
  void operator()(long i) const {
    y[i] = ReLUValue(ScaledSumOfTwoValue(a[i], b[i], ca, cb), slope);
  }
};

// Element i of the ReLU's backward (ReLUBackward, into the top's diff in
// place) and then of the sum's (c * g, as the Eltwise computes it) for the
// first `kBottoms` of dx0, dx1.
template <typename Dtype, int kBottoms>
struct ReLUThenSumBackward {
  const Dtype* x;  // the top's data
  Dtype* dy;       // the top's diff, rewritten with the ReLU's gradient
  Dtype slope;
  Dtype c0, c1;
  Dtype* dx0;
  Dtype* dx1;
  void operator()(long i) const {
    const Dtype g = ReLUGradient(x[i], dy[i], slope);
    dy[i] = g;
    if (kBottoms >= 1) dx0[i] = c0 * g;
    if (kBottoms >= 2) dx1[i] = c1 * g;
  }
};

}  // namespace

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
  const vector<Dtype>& c = sum_->coefficients();
  Blob<Dtype>& top = *top_[0];
  Dtype* y = top.mutable_cpu_data();
  const SumThenReLU<Dtype> body{bottoms_[0]->cpu_data(),
                                 bottoms_[1]->cpu_data(), c[0], c[1], y,
                                 Slope()};
  ForEach(top.count64(), kElementGrain, body);
}

template <typename Dtype>
void FusedSumReLU<Dtype>::Backward() {
  const vector<Dtype>& c = sum_->coefficients();
  Blob<Dtype>& top = *top_[0];
  Dtype* dy = top.mutable_cpu_diff();
  const Dtype* x = top.cpu_data();
  // A bottom whose diff is the top's (gradient aliasing) already holds
  // its gradient, as the Eltwise's own backward knows.
  Dtype* dx[2];
  Dtype coefficient[2];
  int writes = 0;
  for (int i = 0; i < 2; ++i) {
    Dtype* diff = bottoms_[i]->mutable_cpu_diff();
    if (diff == dy) continue;
    dx[writes] = diff;
    coefficient[writes++] = c[i];
  }
  const long count = top.count64();
  if (writes == 2) {
    ForEach(count, kElementGrain,
            ReLUThenSumBackward<Dtype, 2>{x, dy, Slope(), coefficient[0],
                                          coefficient[1], dx[0], dx[1]});
  } else if (writes == 1) {
    ForEach(count, kElementGrain,
            ReLUThenSumBackward<Dtype, 1>{x, dy, Slope(), coefficient[0],
                                          Dtype(0), dx[0], nullptr});
  } else {
    ForEach(count, kElementGrain, ReLUBackward<Dtype>{x, dy, dy, Slope()});
  }
}

INSTANTIATE_CLASS(FusedSumReLU);

}  // namespace caffe
