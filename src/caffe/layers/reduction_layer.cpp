#include "caffe/layers/reduction_layer.hpp"

#include <cmath>
#include <vector>

#include "caffe/util/math_functions.hpp"

namespace caffe {

template <typename Dtype>
void ReductionLayer<Dtype>::LayerSetUp(const vector<Blob<Dtype>*>& bottom,
                                       const vector<Blob<Dtype>*>& top) {
  op_ = this->layer_param_.reduction_param().operation();
  CAFFE_CHECK(ReductionParameter_ReductionOp_IsValid(op_))
      << "Reduction layer " << this->layer_param_.name()
      << ": unknown operation " << op_;
}

template <typename Dtype>
void ReductionLayer<Dtype>::Reshape(const vector<Blob<Dtype>*>& bottom,
                                    const vector<Blob<Dtype>*>& top) {
  const ReductionParameter& p = this->layer_param_.reduction_param();
  const int axis = p.axis();
  const int num_axes = bottom[0]->num_axes();
  CAFFE_CHECK(axis >= -num_axes && axis < num_axes)
      << "Reduction layer " << this->layer_param_.name() << ": axis " << axis
      << " is out of range for bottom shape " << bottom[0]->shape_string()
      << "(" << num_axes << " axes)";
  axis_ = bottom[0]->CanonicalAxisIndex(axis);
  const vector<int> top_shape(bottom[0]->shape().begin(),
                              bottom[0]->shape().begin() + axis_);
  top[0]->Reshape(top_shape);
  num_ = bottom[0]->count(0, axis_);
  dim_ = bottom[0]->count(axis_);
  coeff_ = p.coeff();
  if (op_ == ReductionParameter_ReductionOp_MEAN && dim_ > 0) coeff_ /= dim_;
}

template <typename Dtype>
void ReductionLayer<Dtype>::Forward_cpu(const vector<Blob<Dtype>*>& bottom,
                                        const vector<Blob<Dtype>*>& top) {
  const Dtype* x = bottom[0]->cpu_data();
  Dtype* y = top[0]->mutable_cpu_data();
  for (int i = 0; i < num_; ++i, x += dim_) {
    Dtype v = 0;
    switch (op_) {
      case ReductionParameter_ReductionOp_SUM:
      case ReductionParameter_ReductionOp_MEAN:
        for (int j = 0; j < dim_; ++j) v += x[j];
        break;
      case ReductionParameter_ReductionOp_ASUM:
        v = caffe_cpu_asum(dim_, x);
        break;
      case ReductionParameter_ReductionOp_SUMSQ:
        v = caffe_cpu_dot(dim_, x, x);
        break;
    }
    y[i] = coeff_ * v;
  }
}

template <typename Dtype>
void ReductionLayer<Dtype>::Backward_cpu(const vector<Blob<Dtype>*>& top,
                                         const vector<bool>& propagate_down,
                                         const vector<Blob<Dtype>*>& bottom) {
  if (!propagate_down[0]) return;
  const Dtype* dy = top[0]->cpu_diff();
  Dtype* dx = bottom[0]->mutable_cpu_diff();
  // Only ASUM and SUMSQ look at x; SUM and MEAN must not touch it (it may
  // already be reused memory).
  const bool needs_x = op_ == ReductionParameter_ReductionOp_ASUM ||
                       op_ == ReductionParameter_ReductionOp_SUMSQ;
  const Dtype* x = needs_x ? bottom[0]->cpu_data() : nullptr;
  for (int i = 0; i < num_; ++i, dx += dim_) {
    const Dtype g = coeff_ * dy[i];
    switch (op_) {
      case ReductionParameter_ReductionOp_SUM:
      case ReductionParameter_ReductionOp_MEAN:
        caffe_set(dim_, g, dx);
        break;
      case ReductionParameter_ReductionOp_ASUM:
        for (int j = 0; j < dim_; ++j)
          dx[j] = g * Dtype((Dtype(0) < x[j]) - (x[j] < Dtype(0)));
        x += dim_;
        break;
      case ReductionParameter_ReductionOp_SUMSQ:
        caffe_cpu_scale(dim_, Dtype(2) * g, x, dx);
        x += dim_;
        break;
    }
  }
}

INSTANTIATE_CLASS(ReductionLayer);
REGISTER_LAYER_CLASS(Reduction);

}  // namespace caffe
