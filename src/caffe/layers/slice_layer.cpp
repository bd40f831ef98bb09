#include "caffe/layers/slice_layer.hpp"
#include "caffe/util/device_math.hpp"

#include <vector>

#include "caffe/util/math_functions.hpp"

namespace caffe {

template <typename Dtype>
void SliceLayer<Dtype>::LayerSetUp(const vector<Blob<Dtype>*>& bottom,
                                   const vector<Blob<Dtype>*>& top) {
  const SliceParameter& p = this->layer_param_.slice_param();
  CAFFE_CHECK(!(p.has_axis() && p.has_slice_dim()))
      << "Slice layer " << this->layer_param_.name()
      << ": give either axis or slice_dim, not both";
  slice_point_.assign(p.slice_point().begin(), p.slice_point().end());
}

template <typename Dtype>
void SliceLayer<Dtype>::Reshape(const vector<Blob<Dtype>*>& bottom,
                                const vector<Blob<Dtype>*>& top) {
  const string& name = this->layer_param_.name();
  const SliceParameter& p = this->layer_param_.slice_param();
  const int num_axes = bottom[0]->num_axes();
  if (p.has_slice_dim()) {
    slice_axis_ = static_cast<int>(p.slice_dim());
    CAFFE_CHECK(slice_axis_ >= 0 && slice_axis_ < num_axes)
        << "Slice layer " << name << ": slice_dim " << p.slice_dim()
        << " out of range for bottom shape " << bottom[0]->shape_string();
  } else {
    slice_axis_ = bottom[0]->CanonicalAxisIndex(p.axis());
  }
  const int axis_size = bottom[0]->shape(slice_axis_);
  const int num_tops = static_cast<int>(top.size());
  num_slices_ = bottom[0]->count(0, slice_axis_);
  slice_size_ = bottom[0]->count(slice_axis_ + 1);
  vector<int> sizes;
  if (!slice_point_.empty()) {
    CAFFE_CHECK_EQ(static_cast<int>(slice_point_.size()), num_tops - 1)
        << "Slice layer " << name << ": " << num_tops << " tops need "
        << num_tops - 1 << " slice points";
    int prev = 0;
    for (int point : slice_point_) {
      CAFFE_CHECK(point > prev && point < axis_size)
          << "Slice layer " << name << ": slice points must increase "
          << "strictly and lie inside axis " << slice_axis_ << " (size "
          << axis_size << ") of bottom " << bottom[0]->shape_string()
          << "; got " << point << " after " << prev;
      sizes.push_back(point - prev);
      prev = point;
    }
    sizes.push_back(axis_size - prev);
  } else {
    CAFFE_CHECK_EQ(axis_size % num_tops, 0)
        << "Slice layer " << name << ": " << num_tops << " tops do not evenly "
        << "divide axis " << slice_axis_ << " of bottom "
        << bottom[0]->shape_string();
    sizes.assign(num_tops, axis_size / num_tops);
  }
  vector<int> top_shape = bottom[0]->shape();
  for (int i = 0; i < num_tops; ++i) {
    CAFFE_CHECK(top[i] != bottom[0])
        << "Slice layer " << name << " does not allow in-place computation";
    top_shape[slice_axis_] = sizes[i];
    top[i]->Reshape(top_shape);
  }
}

// One body for both devices (util/device_math.hpp).
template <typename Dtype>
void SliceLayer<Dtype>::ForwardOn(bool gpu, const vector<Blob<Dtype>*>& bottom,
                                  const vector<Blob<Dtype>*>& top) {
  const Dtype* bottom_data = DataOn(gpu, *bottom[0]);
  const long bottom_axis = bottom[0]->shape(slice_axis_);
  long offset = 0;  // position along the slice axis
  for (size_t i = 0; i < top.size(); ++i) {
    Dtype* top_data = MutableDataOn(gpu, top[i]);
    const long axis_size = top[i]->shape(slice_axis_);
    const long chunk = axis_size * slice_size_;
    for (long n = 0; n < num_slices_; ++n) {
      CopyOn(gpu, chunk,
             bottom_data + (n * bottom_axis + offset) * slice_size_,
             top_data + n * chunk);
    }
    offset += axis_size;
  }
}

template <typename Dtype>
void SliceLayer<Dtype>::BackwardOn(bool gpu, const vector<Blob<Dtype>*>& top,
                                   const vector<bool>& propagate_down,
                                   const vector<Blob<Dtype>*>& bottom) {
  if (!propagate_down[0]) return;
  Dtype* bottom_diff = MutableDiffOn(gpu, bottom[0]);
  const long bottom_axis = bottom[0]->shape(slice_axis_);
  long offset = 0;
  for (size_t i = 0; i < top.size(); ++i) {
    const Dtype* top_diff = DiffOn(gpu, *top[i]);
    const long axis_size = top[i]->shape(slice_axis_);
    const long chunk = axis_size * slice_size_;
    for (long n = 0; n < num_slices_; ++n) {
      CopyOn(gpu, chunk, top_diff + n * chunk,
             bottom_diff + (n * bottom_axis + offset) * slice_size_);
    }
    offset += axis_size;
  }
}

DEFINE_CPU_BY_ON(SliceLayer);
DEFINE_GPU_BY_ON(SliceLayer);

INSTANTIATE_CLASS(SliceLayer);
REGISTER_LAYER_CLASS(Slice);

}  // namespace caffe
