#include "caffe/layers/flatten_layer.hpp"

#include <vector>

namespace caffe {

template <typename Dtype>
void FlattenLayer<Dtype>::Reshape(const vector<Blob<Dtype>*>& bottom,
                                  const vector<Blob<Dtype>*>& top) {
  const string& name = this->layer_param_.name();
  CAFFE_CHECK(top[0] != bottom[0])
      << "Flatten layer " << name << " does not allow in-place computation";
  const FlattenParameter& p = this->layer_param_.flatten_param();
  const int start_axis = bottom[0]->CanonicalAxisIndex(p.axis());
  const int end_axis = bottom[0]->CanonicalAxisIndex(p.end_axis());
  CAFFE_CHECK_LE(start_axis, end_axis)
      << "Flatten layer " << name << ": axis " << p.axis()
      << " comes after end_axis " << p.end_axis() << " for bottom shape "
      << bottom[0]->shape_string();
  const vector<int>& in = bottom[0]->shape();
  vector<int> top_shape(in.begin(), in.begin() + start_axis);
  top_shape.push_back(bottom[0]->count(start_axis, end_axis + 1));
  top_shape.insert(top_shape.end(), in.begin() + end_axis + 1, in.end());
  top[0]->Reshape(top_shape);
  CAFFE_CHECK_EQ(top[0]->count(), bottom[0]->count());
  top[0]->ShareData(*bottom[0]);
  top[0]->ShareDiff(*bottom[0]);
}

INSTANTIATE_CLASS(FlattenLayer);
REGISTER_LAYER_CLASS(Flatten);

}  // namespace caffe
