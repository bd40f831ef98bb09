#include <vector>

#include "caffe/layers/crop_layer.hpp"
#include "caffe/util/math_functions.hpp"

namespace caffe {

template <typename Dtype>
void CropLayer<Dtype>::LayerSetUp(const vector<Blob<Dtype>*>& bottom,
                                  const vector<Blob<Dtype>*>& top) {
  const string& name = this->layer_param_.name();
  const CropParameter& param = this->layer_param_.crop_param();
  CAFFE_CHECK_EQ(bottom[0]->num_axes(), bottom[1]->num_axes())
      << "layer " << name << ": bottom[0] " << bottom[0]->shape_string()
      << " and bottom[1] " << bottom[1]->shape_string()
      << " must have the same number of axes";
  const int start_axis = bottom[0]->CanonicalAxisIndex(param.axis());
  if (param.offset_size() > 1) {
    CAFFE_CHECK_EQ(start_axis + param.offset_size(), bottom[0]->num_axes())
        << "layer " << name
        << ": number of offset values specified must be equal to the number "
           "of dimensions following axis ("
        << bottom[0]->shape_string() << ", axis " << start_axis << ")";
  }
}

template <typename Dtype>
void CropLayer<Dtype>::Reshape(const vector<Blob<Dtype>*>& bottom,
                               const vector<Blob<Dtype>*>& top) {
  const string& name = this->layer_param_.name();
  const CropParameter& param = this->layer_param_.crop_param();
  const int num_axes = bottom[0]->num_axes();
  CAFFE_CHECK_EQ(num_axes, bottom[1]->num_axes())
      << "layer " << name << ": bottom[0] " << bottom[0]->shape_string()
      << " and bottom[1] " << bottom[1]->shape_string()
      << " must have the same number of axes";
  const int start_axis = bottom[0]->CanonicalAxisIndex(param.axis());
  offsets_.assign(num_axes, 0);
  vector<int> new_shape(bottom[0]->shape());
  for (int i = start_axis; i < num_axes; ++i) {
    int offset = 0;
    if (param.offset_size() == 1) {
      offset = static_cast<int>(param.offset(0));
    } else if (param.offset_size() > 1) {
      offset = static_cast<int>(param.offset(i - start_axis));
    }
    new_shape[i] = bottom[1]->shape(i);
    CAFFE_CHECK_GE(bottom[0]->shape(i) - offset, bottom[1]->shape(i))
        << "layer " << name << ": invalid crop parameters in dimension " << i
        << " (bottom[0] " << bottom[0]->shape_string() << ", bottom[1] "
        << bottom[1]->shape_string() << ", offset " << offset << ")";
    offsets_[i] = offset;
  }
  top[0]->Reshape(new_shape);
}

template <typename Dtype>
void CropLayer<Dtype>::CopyWindow(const vector<int>& big_shape,
                                  const vector<int>& small_shape, Dtype* big,
                                  Dtype* small, bool to_small) const {
  const int num_axes = static_cast<int>(small_shape.size());
  long small_count = 1;
  for (int d : small_shape) small_count *= d;
  if (small_count == 0) return;
  if (num_axes == 0) {
    if (to_small) {
      *small = *big;
    } else {
      *big = *small;
    }
    return;
  }
  // Copy one innermost row per step; idx walks the outer axes of the small
  // (top-shaped) blob.
  const int row = small_shape[num_axes - 1];
  const long rows = small_count / row;
  vector<int> idx(num_axes - 1, 0);
  for (long r = 0; r < rows; ++r) {
    long big_offset = 0;
    for (int a = 0; a < num_axes - 1; ++a)
      big_offset = big_offset * big_shape[a] + idx[a] + offsets_[a];
    big_offset = big_offset * big_shape[num_axes - 1] + offsets_[num_axes - 1];
    Dtype* b = big + big_offset;
    Dtype* s = small + r * row;
    if (to_small) {
      caffe_copy(row, b, s);
    } else {
      caffe_copy(row, s, b);
    }
    for (int a = num_axes - 2; a >= 0; --a) {
      if (++idx[a] < small_shape[a]) break;
      idx[a] = 0;
    }
  }
}

template <typename Dtype>
void CropLayer<Dtype>::Forward_cpu(const vector<Blob<Dtype>*>& bottom,
                                   const vector<Blob<Dtype>*>& top) {
  // Reading only: the big buffer is not written when to_small is true.
  CopyWindow(bottom[0]->shape(), top[0]->shape(),
             const_cast<Dtype*>(bottom[0]->cpu_data()),
             top[0]->mutable_cpu_data(), true);
}

template <typename Dtype>
void CropLayer<Dtype>::Backward_cpu(const vector<Blob<Dtype>*>& top,
                                    const vector<bool>& propagate_down,
                                    const vector<Blob<Dtype>*>& bottom) {
  if (propagate_down[0]) {
    Dtype* bottom_diff = bottom[0]->mutable_cpu_diff();
    caffe_set(bottom[0]->count(), Dtype(0), bottom_diff);
    CopyWindow(bottom[0]->shape(), top[0]->shape(), bottom_diff,
               const_cast<Dtype*>(top[0]->cpu_diff()), false);
  }
  // bottom[1] only gives the shape; its data does not affect the output.
  if (propagate_down.size() > 1 && propagate_down[1]) {
    caffe_set(bottom[1]->count(), Dtype(0), bottom[1]->mutable_cpu_diff());
  }
}

INSTANTIATE_CLASS(CropLayer);
REGISTER_LAYER_CLASS(Crop);

}  // namespace caffe
