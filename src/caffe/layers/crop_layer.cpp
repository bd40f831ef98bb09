#include <vector>

#include "caffe/layers/crop_layer.hpp"
#include "caffe/util/device_launch.hpp"
#include "caffe/util/device_math.hpp"
#include "crop_kernels.hpp"

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
void CropLayer<Dtype>::CopyWindow(bool gpu, const vector<int>& big_shape,
                                  const vector<int>& small_shape, Dtype* big,
                                  Dtype* small, bool to_small) const {
  const int num_axes = static_cast<int>(small_shape.size());
  long small_count = 1;
  for (int d : small_shape) small_count *= d;
  if (small_count == 0) return;
  if (num_axes == 0) {
    if (to_small) {
      CopyOn(gpu, 1, big, small);
    } else {
      CopyOn(gpu, 1, small, big);
    }
    return;
  }
  CropRows<Dtype> rows{big, small, to_small, num_axes, {}, {}, {}};
  for (int a = 0; a < num_axes; ++a) {
    rows.big_shape[a] = big_shape[a];
    rows.small_shape[a] = small_shape[a];
    rows.offsets[a] = offsets_[a];
  }
  const int row = small_shape[num_axes - 1];
  ForEachOn(gpu, small_count / row, GrainFor(row), rows);
}

// One body for both devices (crop_kernels.hpp through ForEachOn).
template <typename Dtype>
void CropLayer<Dtype>::ForwardOn(bool gpu, const vector<Blob<Dtype>*>& bottom,
                                 const vector<Blob<Dtype>*>& top) {
  // Reading only: the big buffer is not written when to_small is true.
  CopyWindow(gpu, bottom[0]->shape(), top[0]->shape(),
             const_cast<Dtype*>(DataOn(gpu, *bottom[0])),
             MutableDataOn(gpu, top[0]), true);
}

template <typename Dtype>
void CropLayer<Dtype>::BackwardOn(bool gpu, const vector<Blob<Dtype>*>& top,
                                  const vector<bool>& propagate_down,
                                  const vector<Blob<Dtype>*>& bottom) {
  if (propagate_down[0]) {
    Dtype* bottom_diff = MutableDiffOn(gpu, bottom[0]);
    SetOn(gpu, bottom[0]->count(), Dtype(0), bottom_diff);
    CopyWindow(gpu, bottom[0]->shape(), top[0]->shape(), bottom_diff,
               const_cast<Dtype*>(DiffOn(gpu, *top[0])), false);
  }
  // bottom[1] only gives the shape; its data does not affect the output.
  if (propagate_down.size() > 1 && propagate_down[1]) {
    SetOn(gpu, bottom[1]->count(), Dtype(0), MutableDiffOn(gpu, bottom[1]));
  }
}

DEFINE_CPU_BY_ON(CropLayer);
DEFINE_GPU_BY_ON(CropLayer);

INSTANTIATE_CLASS(CropLayer);
REGISTER_LAYER_CLASS(Crop);

}  // namespace caffe
