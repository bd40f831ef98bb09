#include "caffe/layers/reduction_layer.hpp"

#include <cmath>
#include <vector>

#include "caffe/util/device_launch.hpp"
#include "caffe/util/device_math.hpp"
#include "reduction_kernels.hpp"

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

// One body for both devices: the bodies of reduction_kernels.hpp through
// ForEachOn, one index per output forward and per input backward.
template <typename Dtype>
void ReductionLayer<Dtype>::ForwardOn(bool gpu,
                                      const vector<Blob<Dtype>*>& bottom,
                                      const vector<Blob<Dtype>*>& top) {
  ForEachOn(gpu, num_, GrainFor(dim_),
            ReductionForward<Dtype>{DataOn(gpu, *bottom[0]),
                                    MutableDataOn(gpu, top[0]), dim_, op_,
                                    coeff_});
}

template <typename Dtype>
void ReductionLayer<Dtype>::BackwardOn(bool gpu,
                                       const vector<Blob<Dtype>*>& top,
                                       const vector<bool>& propagate_down,
                                       const vector<Blob<Dtype>*>& bottom) {
  if (!propagate_down[0] || dim_ == 0) return;
  // Only ASUM and SUMSQ look at x; SUM and MEAN must not touch it (it may
  // already be reused memory).
  const bool needs_x = op_ == ReductionParameter_ReductionOp_ASUM ||
                       op_ == ReductionParameter_ReductionOp_SUMSQ;
  ForEachOn(gpu, bottom[0]->count(), kElementGrain,
            ReductionBackward<Dtype>{
                needs_x ? DataOn(gpu, *bottom[0]) : nullptr,
                DiffOn(gpu, *top[0]), MutableDiffOn(gpu, bottom[0]),
                static_cast<long>(dim_), op_, coeff_});
}

DEFINE_CPU_BY_ON(ReductionLayer);
DEFINE_GPU_BY_ON(ReductionLayer);

INSTANTIATE_CLASS(ReductionLayer);
REGISTER_LAYER_CLASS(Reduction);

}  // namespace caffe
