#include "caffe/layers/reshape_layer.hpp"

#include <vector>

namespace caffe {

template <typename Dtype>
void ReshapeLayer<Dtype>::LayerSetUp(const vector<Blob<Dtype>*>& bottom,
                                     const vector<Blob<Dtype>*>& top) {
  const string& name = this->layer_param_.name();
  CAFFE_CHECK(top[0] != bottom[0])
      << "Reshape layer " << name << " does not allow in-place computation";
  const BlobShape& shape = this->layer_param_.reshape_param().shape();
  inferred_axis_ = -1;
  copy_axes_.clear();
  constant_count_ = 1;
  for (int i = 0; i < shape.dim_size(); ++i) {
    const int64_t dim = shape.dim(i);
    if (dim == 0) {
      copy_axes_.push_back(i);
    } else if (dim == -1) {
      CAFFE_CHECK_EQ(inferred_axis_, -1)
          << "Reshape layer " << name << ": the new shape contains more "
          << "than one -1; at most one dimension may be inferred";
      inferred_axis_ = i;
    } else {
      CAFFE_CHECK_GT(dim, 0)
          << "Reshape layer " << name << ": dimension " << i
          << " of the new shape is " << dim << "; use a positive size, 0 to "
          << "copy the bottom dimension or -1 to infer it";
      constant_count_ *= static_cast<int>(dim);
    }
  }
}

template <typename Dtype>
void ReshapeLayer<Dtype>::Reshape(const vector<Blob<Dtype>*>& bottom,
                                  const vector<Blob<Dtype>*>& top) {
  const string& name = this->layer_param_.name();
  const ReshapeParameter& p = this->layer_param_.reshape_param();
  const int bottom_axes = bottom[0]->num_axes();
  // A negative axis counts from the end, with -1 meaning "after the last".
  const int start_axis = p.axis() >= 0 ? p.axis() : bottom_axes + p.axis() + 1;
  CAFFE_CHECK(start_axis >= 0 && start_axis <= bottom_axes)
      << "Reshape layer " << name << ": axis " << p.axis()
      << " out of range for bottom shape " << bottom[0]->shape_string();
  CAFFE_CHECK_GE(p.num_axes(), -1)
      << "Reshape layer " << name << ": num_axes must be >= 0, or -1 for all";
  const int end_axis = p.num_axes() == -1 ? bottom_axes
                                          : start_axis + p.num_axes();
  CAFFE_CHECK_LE(end_axis, bottom_axes)
      << "Reshape layer " << name << ": axis + num_axes (" << end_axis
      << ") out of range for bottom shape " << bottom[0]->shape_string();
  const BlobShape& shape = p.shape();
  const vector<int>& in = bottom[0]->shape();
  vector<int> top_shape(in.begin(), in.begin() + start_axis);
  for (int i = 0; i < shape.dim_size(); ++i)
    top_shape.push_back(static_cast<int>(shape.dim(i)));
  top_shape.insert(top_shape.end(), in.begin() + end_axis, in.end());
  for (int copy_axis : copy_axes_) {
    CAFFE_CHECK_GT(bottom_axes, start_axis + copy_axis)
        << "Reshape layer " << name << ": the new shape has a 0 at position "
        << copy_axis << " but the bottom " << bottom[0]->shape_string()
        << " has no axis to copy there";
    top_shape[start_axis + copy_axis] = in[start_axis + copy_axis];
  }
  if (inferred_axis_ >= 0) {
    int64_t explicit_count = constant_count_;
    explicit_count *= bottom[0]->count(0, start_axis);
    explicit_count *= bottom[0]->count(end_axis);
    for (int copy_axis : copy_axes_)
      explicit_count *= top_shape[start_axis + copy_axis];
    CAFFE_CHECK(explicit_count > 0 && bottom[0]->count() % explicit_count == 0)
        << "Reshape layer " << name << ": bottom count ("
        << bottom[0]->count() << ", shape " << bottom[0]->shape_string()
        << ") is not divisible by the product of the given dimensions ("
        << explicit_count << ")";
    top_shape[start_axis + inferred_axis_] =
        static_cast<int>(bottom[0]->count() / explicit_count);
  }
  top[0]->Reshape(top_shape);
  CAFFE_CHECK_EQ(top[0]->count(), bottom[0]->count())
      << "Reshape layer " << name << ": output count must match input count "
      << "(bottom " << bottom[0]->shape_string() << ", top "
      << top[0]->shape_string() << ")";
  top[0]->ShareData(*bottom[0]);
  top[0]->ShareDiff(*bottom[0]);
}

INSTANTIATE_CLASS(ReshapeLayer);
REGISTER_LAYER_CLASS(Reshape);

}  // namespace caffe
