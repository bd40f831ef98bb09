#include "caffe/layers/concat_layer.hpp"

#include <vector>

#include "caffe/util/device_math.hpp"
#include "caffe/util/math_functions.hpp"

namespace caffe {

template <typename Dtype>
void ConcatLayer<Dtype>::LayerSetUp(const vector<Blob<Dtype>*>& bottom,
                                    const vector<Blob<Dtype>*>& top) {
  const ConcatParameter& p = this->layer_param_.concat_param();
  CAFFE_CHECK(!(p.has_axis() && p.has_concat_dim()))
      << "Concat layer " << this->layer_param_.name()
      << ": give either axis or concat_dim, not both";
}

template <typename Dtype>
void ConcatLayer<Dtype>::Reshape(const vector<Blob<Dtype>*>& bottom,
                                 const vector<Blob<Dtype>*>& top) {
  const string& name = this->layer_param_.name();
  const ConcatParameter& p = this->layer_param_.concat_param();
  const int num_axes = bottom[0]->num_axes();
  if (p.has_concat_dim()) {
    concat_axis_ = static_cast<int>(p.concat_dim());
    CAFFE_CHECK(concat_axis_ >= 0 && concat_axis_ < num_axes)
        << "Concat layer " << name << ": concat_dim " << p.concat_dim()
        << " out of range for bottom shape " << bottom[0]->shape_string();
  } else {
    concat_axis_ = bottom[0]->CanonicalAxisIndex(p.axis());
  }
  vector<int> top_shape = bottom[0]->shape();
  num_concats_ = bottom[0]->count(0, concat_axis_);
  concat_input_size_ = bottom[0]->count(concat_axis_ + 1);
  for (size_t i = 0; i < bottom.size(); ++i) {
    CAFFE_CHECK(top[0] != bottom[i])
        << "Concat layer " << name << " does not allow in-place computation";
  }
  for (size_t i = 1; i < bottom.size(); ++i) {
    bool same = bottom[i]->num_axes() == num_axes;
    for (int j = 0; same && j < num_axes; ++j)
      same = j == concat_axis_ || bottom[i]->shape(j) == top_shape[j];
    CAFFE_CHECK(same)
        << "Concat layer " << name << ": all bottoms must have the same "
        << "shape except along axis " << concat_axis_ << ", but bottom 0 is "
        << bottom[0]->shape_string() << " and bottom " << i << " is "
        << bottom[i]->shape_string();
    top_shape[concat_axis_] += bottom[i]->shape(concat_axis_);
  }
  top[0]->Reshape(top_shape);
}

// One body for both devices (util/device_math.hpp).
template <typename Dtype>
void ConcatLayer<Dtype>::ForwardOn(bool gpu, const vector<Blob<Dtype>*>& bottom,
                                   const vector<Blob<Dtype>*>& top) {
  Dtype* top_data = MutableDataOn(gpu, top[0]);
  const long top_axis = top[0]->shape(concat_axis_);
  long offset = 0;  // position along the concat axis
  for (size_t i = 0; i < bottom.size(); ++i) {
    const Dtype* bottom_data = DataOn(gpu, *bottom[i]);
    const long axis_size = bottom[i]->shape(concat_axis_);
    const long chunk = axis_size * concat_input_size_;
    for (long n = 0; n < num_concats_; ++n) {
      CopyOn(gpu, chunk, bottom_data + n * chunk,
             top_data + (n * top_axis + offset) * concat_input_size_);
    }
    offset += axis_size;
  }
}

template <typename Dtype>
void ConcatLayer<Dtype>::BackwardOn(bool gpu, const vector<Blob<Dtype>*>& top,
                                    const vector<bool>& propagate_down,
                                    const vector<Blob<Dtype>*>& bottom) {
  const Dtype* top_diff = DiffOn(gpu, *top[0]);
  const long top_axis = top[0]->shape(concat_axis_);
  long offset = 0;
  for (size_t i = 0; i < bottom.size(); ++i) {
    const long axis_size = bottom[i]->shape(concat_axis_);
    if (propagate_down[i]) {
      Dtype* bottom_diff = MutableDiffOn(gpu, bottom[i]);
      const long chunk = axis_size * concat_input_size_;
      for (long n = 0; n < num_concats_; ++n) {
        CopyOn(gpu, chunk,
               top_diff + (n * top_axis + offset) * concat_input_size_,
               bottom_diff + n * chunk);
      }
    }
    offset += axis_size;
  }
}

DEFINE_CPU_BY_ON(ConcatLayer);
DEFINE_GPU_BY_ON(ConcatLayer);

INSTANTIATE_CLASS(ConcatLayer);
REGISTER_LAYER_CLASS(Concat);

}  // namespace caffe
