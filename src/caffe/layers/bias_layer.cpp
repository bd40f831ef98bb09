#include <vector>

#include "caffe/filler.hpp"
#include "bias_compute.hpp"
#include "caffe/util/elementwise.hpp"

namespace caffe {

template <typename Dtype>
void BiasLayer<Dtype>::LayerSetUp(const vector<Blob<Dtype>*>& bottom,
                                  const vector<Blob<Dtype>*>& top) {
  if (bottom.size() == 1 && this->blobs_.empty()) {
    // The bias is learned: its shape is bottom[0]'s [axis, axis + num_axes).
    const BiasParameter& param = this->layer_param_.bias_param();
    const string& name = this->layer_param_.name();
    const int axis = bottom[0]->CanonicalAxisIndex(param.axis());
    const int num_axes = param.num_axes();
    CAFFE_CHECK_GE(num_axes, -1)
        << "Bias layer " << name << ": num_axes must be non-negative, or -1 "
        << "to extend to the end of bottom[0]";
    if (num_axes >= 0) {
      CAFFE_CHECK_GE(bottom[0]->num_axes(), axis + num_axes)
          << "Bias layer " << name << ": bias blob's shape extends past "
          << "bottom[0]'s shape " << bottom[0]->shape_string()
          << " when applied starting with bottom[0] axis = " << axis;
    }
    const vector<int>& shape = bottom[0]->shape();
    vector<int> bias_shape(shape.begin() + axis,
                           num_axes == -1 ? shape.end()
                                          : shape.begin() + axis + num_axes);
    this->blobs_.resize(1);
    this->blobs_[0].reset(NewFilledBlob<Dtype>(bias_shape, param.filler()));
  }
  this->param_propagate_down_.resize(this->blobs_.size(), true);
}

template <typename Dtype>
void BiasLayer<Dtype>::Reshape(const vector<Blob<Dtype>*>& bottom,
                               const vector<Blob<Dtype>*>& top) {
  const string& name = this->layer_param_.name();
  CAFFE_CHECK(bottom.size() > 1 || !this->blobs_.empty())
      << "Bias layer " << name << " has neither a second bottom nor a bias "
      << "blob";
  const Blob<Dtype>* bias =
      (bottom.size() > 1) ? bottom[1] : this->blobs_[0].get();
  // A scalar bias is the same for any axis; axis 0 makes outer_dim_ 1.
  const int axis = (bias->num_axes() == 0)
                       ? 0
                       : bottom[0]->CanonicalAxisIndex(
                             this->layer_param_.bias_param().axis());
  CAFFE_CHECK_GE(bottom[0]->num_axes(), axis + bias->num_axes())
      << "Bias layer " << name << ": bias shape " << bias->shape_string()
      << " extends past bottom[0]'s shape " << bottom[0]->shape_string()
      << " when applied starting with bottom[0] axis = " << axis;
  for (int i = 0; i < bias->num_axes(); ++i) {
    CAFFE_CHECK_EQ(bottom[0]->shape(axis + i), bias->shape(i))
        << "Bias layer " << name << ": dimension mismatch between bottom[0] "
        << bottom[0]->shape_string() << " axis " << axis + i
        << " and bias " << bias->shape_string() << " axis " << i;
  }
  outer_dim_ = bottom[0]->count(0, axis);
  bias_dim_ = bias->count();
  inner_dim_ = bottom[0]->count(axis + bias->num_axes());
  if (bottom[0] != top[0]) top[0]->ReshapeLike(*bottom[0]);
}

template <typename Dtype>
void BiasLayer<Dtype>::Forward_cpu(const vector<Blob<Dtype>*>& bottom,
    const vector<Blob<Dtype>*>& top) {
  ForwardWith(CpuLaunch(), bottom, top);
}

template <typename Dtype>
void BiasLayer<Dtype>::Backward_cpu(const vector<Blob<Dtype>*>& top,
    const vector<bool>& propagate_down, const vector<Blob<Dtype>*>& bottom) {
  BackwardWith(CpuLaunch(), top, propagate_down, bottom);
}

INSTANTIATE_CLASS(BiasLayer);
REGISTER_LAYER_CLASS(Bias);

}  // namespace caffe
