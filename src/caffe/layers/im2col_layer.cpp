#include "caffe/layers/im2col_layer.hpp"

#include <vector>

#include "caffe/util/device_math.hpp"
#include "caffe/util/gpu_kernels.hpp"
#include "caffe/util/im2col.hpp"
#include "caffe/util/im2col_kernels.hpp"

namespace caffe {

namespace {

// A per-axis field given 0 (default), 1 (shared) or num_axes times.
bool ReadPerAxis(const google::protobuf::RepeatedField<uint32_t>& field,
                 int num_axes, int default_value, vector<int>* out) {
  const int n = field.size();
  if (n != 0 && n != 1 && n != num_axes) return false;
  out->assign(num_axes, default_value);
  for (int i = 0; i < num_axes && n > 0; ++i)
    (*out)[i] = static_cast<int>(field.Get(n == 1 ? 0 : i));
  return true;
}

}  // namespace

template <typename Dtype>
void Im2colLayer<Dtype>::LayerSetUp(const vector<Blob<Dtype>*>& bottom,
                                    const vector<Blob<Dtype>*>& top) {
  const string& name = this->layer_param_.name();
  const ConvolutionParameter& p = this->layer_param_.convolution_param();
  force_nd_im2col_ = p.force_nd_im2col();
  channel_axis_ = bottom[0]->CanonicalAxisIndex(p.axis());
  num_spatial_axes_ = bottom[0]->num_axes() - channel_axis_ - 1;
  CAFFE_CHECK_GE(num_spatial_axes_, 1)
      << "Im2col layer " << name << ": the input needs at least one spatial "
      << "axis after the channel axis " << channel_axis_ << ", but its shape "
      << "is " << bottom[0]->shape_string();

  if (p.has_kernel_h() || p.has_kernel_w()) {
    CAFFE_CHECK_EQ(num_spatial_axes_, 2)
        << "Im2col layer " << name << ": kernel_h & kernel_w can only be "
        << "used with 2 spatial axes (input " << bottom[0]->shape_string()
        << ")";
    CAFFE_CHECK_EQ(0, p.kernel_size_size())
        << "Im2col layer " << name
        << ": either kernel_size or kernel_h/w should be specified; not both";
    CAFFE_CHECK(p.has_kernel_h() && p.has_kernel_w())
        << "Im2col layer " << name << ": kernel_h and kernel_w must both be "
        << "given";
    kernel_shape_ = {static_cast<int>(p.kernel_h()),
                     static_cast<int>(p.kernel_w())};
  } else {
    const int n = p.kernel_size_size();
    CAFFE_CHECK(n == 1 || n == num_spatial_axes_)
        << "Im2col layer " << name << ": kernel_size must be specified once, "
        << "or once per spatial axis (given " << n << " times; input "
        << bottom[0]->shape_string() << " has " << num_spatial_axes_
        << " spatial axes)";
    ReadPerAxis(p.kernel_size(), num_spatial_axes_, 0, &kernel_shape_);
  }
  for (int i = 0; i < num_spatial_axes_; ++i) {
    CAFFE_CHECK_GT(kernel_shape_[i], 0)
        << "Im2col layer " << name << ": kernel dimensions must be nonzero";
  }

  if (p.has_stride_h() || p.has_stride_w()) {
    CAFFE_CHECK_EQ(num_spatial_axes_, 2)
        << "Im2col layer " << name << ": stride_h & stride_w can only be "
        << "used with 2 spatial axes";
    CAFFE_CHECK_EQ(0, p.stride_size())
        << "Im2col layer " << name
        << ": either stride or stride_h/w should be specified; not both";
    stride_ = {static_cast<int>(p.stride_h()),
               static_cast<int>(p.stride_w())};
  } else {
    CAFFE_CHECK(ReadPerAxis(p.stride(), num_spatial_axes_, 1, &stride_))
        << "Im2col layer " << name << ": stride must be specified once, or "
        << "once per spatial axis (given " << p.stride_size() << " times; "
        << num_spatial_axes_ << " spatial axes)";
  }
  for (int i = 0; i < num_spatial_axes_; ++i) {
    CAFFE_CHECK_GT(stride_[i], 0)
        << "Im2col layer " << name << ": stride dimensions must be nonzero";
  }

  if (p.has_pad_h() || p.has_pad_w()) {
    CAFFE_CHECK_EQ(num_spatial_axes_, 2)
        << "Im2col layer " << name << ": pad_h & pad_w can only be used "
        << "with 2 spatial axes";
    CAFFE_CHECK_EQ(0, p.pad_size())
        << "Im2col layer " << name
        << ": either pad or pad_h/w should be specified; not both";
    pad_ = {static_cast<int>(p.pad_h()), static_cast<int>(p.pad_w())};
  } else {
    CAFFE_CHECK(ReadPerAxis(p.pad(), num_spatial_axes_, 0, &pad_))
        << "Im2col layer " << name << ": pad must be specified once, or "
        << "once per spatial axis (given " << p.pad_size() << " times; "
        << num_spatial_axes_ << " spatial axes)";
  }

  CAFFE_CHECK(ReadPerAxis(p.dilation(), num_spatial_axes_, 1, &dilation_))
      << "Im2col layer " << name << ": dilation must be specified once, or "
      << "once per spatial axis (given " << p.dilation_size() << " times; "
      << num_spatial_axes_ << " spatial axes)";
  for (int i = 0; i < num_spatial_axes_; ++i) {
    CAFFE_CHECK_GT(dilation_[i], 0)
        << "Im2col layer " << name << ": dilation must be nonzero";
  }
}

template <typename Dtype>
void Im2colLayer<Dtype>::Reshape(const vector<Blob<Dtype>*>& bottom,
                                 const vector<Blob<Dtype>*>& top) {
  const string& name = this->layer_param_.name();
  CAFFE_CHECK_EQ(bottom[0]->num_axes(), channel_axis_ + 1 + num_spatial_axes_)
      << "Im2col layer " << name << ": the number of input axes may not "
      << "change after setup (input now " << bottom[0]->shape_string() << ")";
  CAFFE_CHECK(top[0] != bottom[0])
      << "Im2col layer " << name << " does not allow in-place computation";
  channels_ = bottom[0]->shape(channel_axis_);
  int kernel_count = 1;
  for (int k : kernel_shape_) kernel_count *= k;
  vector<int> top_shape = bottom[0]->shape();
  top_shape[channel_axis_] = channels_ * kernel_count;
  for (int i = 0; i < num_spatial_axes_; ++i) {
    const int in = bottom[0]->shape(channel_axis_ + 1 + i);
    const int extent = dilation_[i] * (kernel_shape_[i] - 1) + 1;
    const int out = (in + 2 * pad_[i] - extent) / stride_[i] + 1;
    CAFFE_CHECK(in + 2 * pad_[i] >= extent)
        << "Im2col layer " << name << ": the kernel (extent " << extent
        << " with dilation) does not fit spatial axis " << i << " of input "
        << bottom[0]->shape_string() << " with pad " << pad_[i];
    top_shape[channel_axis_ + 1 + i] = out;
  }
  top[0]->Reshape(top_shape);
  num_ = bottom[0]->count(0, channel_axis_);
  bottom_dim_ = bottom[0]->count(channel_axis_);
  top_dim_ = top[0]->count(channel_axis_);
}

// One image either way; the N-D bodies are the same code on both devices,
// the 2-D ones give the CPU loop's values (a copy, and sums in the GPU
// body's order: test_gpu_bodies).
template <typename Dtype>
void Im2colLayer<Dtype>::Columns(bool gpu, bool to_columns,
                                 const Dtype* from, Dtype* to,
                                 const Blob<Dtype>& bottom,
                                 const Blob<Dtype>& top) const {
  const int sa = channel_axis_ + 1;  // first spatial axis
  if (!Use2D()) {
    const int* im_shape = bottom.shape().data() + channel_axis_;
    const int* col_shape = top.shape().data() + channel_axis_;
#ifdef USE_CUDA
    if (gpu) {
      const ConvGeometryNd g = MakeConvGeometryNd(
          num_spatial_axes_, im_shape, col_shape, kernel_shape_.data(),
          pad_.data(), stride_.data(), dilation_.data());
      return to_columns ? im2col_nd_gpu(from, g, to)
                        : col2im_nd_gpu(from, g, to);
    }
#endif
    if (to_columns) {
      im2col_nd_cpu(from, num_spatial_axes_, im_shape, col_shape,
                    kernel_shape_.data(), pad_.data(), stride_.data(),
                    dilation_.data(), to);
    } else {
      col2im_nd_cpu(from, num_spatial_axes_, im_shape, col_shape,
                    kernel_shape_.data(), pad_.data(), stride_.data(),
                    dilation_.data(), to);
    }
    return;
  }
#ifdef USE_CUDA
  if (gpu) {
    const ConvGeometry g = MakeConvGeometry(
        channels_, bottom.shape().data() + sa, top.shape().data() + sa,
        kernel_shape_.data(), pad_.data(), stride_.data(), dilation_.data());
    return to_columns ? im2col_gpu(from, g, to) : col2im_gpu(from, g, to);
  }
#endif
  if (to_columns) {
    im2col_cpu(from, channels_, bottom.shape(sa), bottom.shape(sa + 1),
               kernel_shape_[0], kernel_shape_[1], pad_[0], pad_[1],
               stride_[0], stride_[1], dilation_[0], dilation_[1], to);
  } else {
    col2im_cpu(from, channels_, bottom.shape(sa), bottom.shape(sa + 1),
               kernel_shape_[0], kernel_shape_[1], pad_[0], pad_[1],
               stride_[0], stride_[1], dilation_[0], dilation_[1], to);
  }
}

template <typename Dtype>
void Im2colLayer<Dtype>::ForwardOn(bool gpu,
                                   const vector<Blob<Dtype>*>& bottom,
                                   const vector<Blob<Dtype>*>& top) {
  const Dtype* src = DataOn(gpu, *bottom[0]);
  Dtype* dst = MutableDataOn(gpu, top[0]);
  for (int n = 0; n < num_; ++n)
    Columns(gpu, true, src + static_cast<long>(n) * bottom_dim_,
            dst + static_cast<long>(n) * top_dim_, *bottom[0], *top[0]);
}

template <typename Dtype>
void Im2colLayer<Dtype>::BackwardOn(bool gpu, const vector<Blob<Dtype>*>& top,
                                    const vector<bool>& propagate_down,
                                    const vector<Blob<Dtype>*>& bottom) {
  if (!propagate_down[0]) return;
  const Dtype* src = DiffOn(gpu, *top[0]);
  Dtype* dst = MutableDiffOn(gpu, bottom[0]);
  for (int n = 0; n < num_; ++n)
    Columns(gpu, false, src + static_cast<long>(n) * top_dim_,
            dst + static_cast<long>(n) * bottom_dim_, *bottom[0], *top[0]);
}

DEFINE_CPU_BY_ON(Im2colLayer);
DEFINE_GPU_BY_ON(Im2colLayer);

INSTANTIATE_CLASS(Im2colLayer);
REGISTER_LAYER_CLASS(Im2col);

}  // namespace caffe
