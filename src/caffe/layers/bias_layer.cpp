#include <vector>

#include "caffe/filler.hpp"
#include "caffe/layers/bias_layer.hpp"
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
  const Dtype* b =
      ((bottom.size() > 1) ? bottom[1] : this->blobs_[0].get())->cpu_data();
  const Dtype* x = bottom[0]->cpu_data();
  const ChannelPlanes<Dtype, AddOp<Dtype> > body{
      x, b, top[0]->mutable_cpu_data(), bias_dim_, inner_dim_, AddOp<Dtype>()};
  ForEach(static_cast<long>(outer_dim_) * bias_dim_, GrainFor(inner_dim_),
          body);
}

template <typename Dtype>
void BiasLayer<Dtype>::Backward_cpu(const vector<Blob<Dtype>*>& top,
                                    const vector<bool>& propagate_down,
                                    const vector<Blob<Dtype>*>& bottom) {
  const Dtype* dy = top[0]->cpu_diff();
  if (propagate_down[0] && bottom[0] != top[0]) {
    caffe_copy(bottom[0]->count(), dy, bottom[0]->mutable_cpu_diff());
  }
  const bool bias_is_param = (bottom.size() == 1);
  if (bias_is_param ? this->param_propagate_down_[0] : propagate_down[1]) {
    Blob<Dtype>* bias = bias_is_param ? this->blobs_[0].get() : bottom[1];
    Dtype* db = bias->mutable_cpu_diff();
    // Parameter diffs accumulate; a bottom's diff is overwritten.
    if (!bias_is_param) caffe_set(bias_dim_, Dtype(0), db);
    // db[d] += the sum of dy over the channel.
    const ChannelSum<Dtype, ValueTerm<Dtype> > body{
        db, outer_dim_, bias_dim_, inner_dim_, ValueTerm<Dtype>{dy}};
    ForEach(bias_dim_, GrainFor(static_cast<long>(outer_dim_) * inner_dim_),
            body);
  }
}

INSTANTIATE_CLASS(BiasLayer);
REGISTER_LAYER_CLASS(Bias);

}  // namespace caffe
