#include <algorithm>
#include <memory>
#include <type_traits>
#include <vector>

#include "caffe/filler.hpp"
#include "caffe/layers/base_conv_layer.hpp"
#include "caffe/util/device_math.hpp"
#include "caffe/util/gpu_kernels.hpp"
#include "caffe/util/im2col.hpp"
#include "caffe/util/im2col_kernels.hpp"
#include "caffe/util/scratch.hpp"
#include "caffe/util/math_functions.hpp"
#include "caffe/util/parallel.hpp"

namespace caffe {

namespace {

// Reads a per-axis repeated field that may be given 0, 1 or num_axes times.
// Returns false if the count is none of these.
bool ReadAxisValues(const google::protobuf::RepeatedField<uint32_t>& field,
                    int num_axes, int default_value, vector<int>* out) {
  const int n = field.size();
  if (n != 0 && n != 1 && n != num_axes) return false;
  out->assign(num_axes, default_value);
  for (int i = 0; i < num_axes; ++i) {
    if (n > 0) (*out)[i] = static_cast<int>(field.Get(n == 1 ? 0 : i));
  }
  return true;
}

// Same format as Blob::shape_string(), for shapes without a blob.
string ShapeString(const vector<int>& shape) {
  ostringstream s;
  long count = 1;
  for (int d : shape) {
    s << d << " ";
    count *= d;
  }
  s << "(" << count << ")";
  return s.str();
}

}  // namespace

// The column buffer and the oneDNN engine's scratch are the layer's planned
// scratch during its steps, else the thread's shared workspace
// (util/parallel.hpp), also used by other layers' scratch.
template <typename Dtype>
Dtype* BaseConvolutionLayer<Dtype>::ColBuffer(size_t count) {
  return static_cast<Dtype*>(ScratchOn(false, count * sizeof(Dtype)));
}

template <typename Dtype>
void* BaseConvolutionLayer<Dtype>::ScratchOn(bool gpu, size_t bytes) {
  return ScratchOrShared(scratch_.get(), gpu, bytes);
}

template <typename Dtype>
size_t BaseConvolutionLayer<Dtype>::ScratchBytes(bool gpu) {
  return gpu ? ColCount() * sizeof(Dtype) : WorkspaceBytes();
}

template <typename Dtype>
size_t BaseConvolutionLayer<Dtype>::ColBufferBytes() {
  return SharedWorkspaceBytes();
}

template <typename Dtype>
void BaseConvolutionLayer<Dtype>::ReleaseColBuffer() {
  ReleaseSharedWorkspace();
}

template <typename Dtype>
size_t BaseConvolutionLayer<Dtype>::ColCount() const {
  if (is_1x1_ || col_buffer_shape_.empty()) return 0;
  size_t count = 1;
  for (int d : col_buffer_shape_) count *= static_cast<size_t>(d);
  return count;
}

template <typename Dtype>
size_t BaseConvolutionLayer<Dtype>::WorkspaceBytes() const {
  if (dnnl_) return dnnl_->WorkspaceBytes();
  return ColCount() * sizeof(Dtype);
}

template <typename Dtype>
void* BaseConvolutionLayer<Dtype>::Workspace() {
  return ScratchOn(false, WorkspaceBytes());
}

template <typename Dtype>
void BaseConvolutionLayer<Dtype>::SelectEngine() {
  dnnl_.reset();
  if (!std::is_same<Dtype, float>::value || !DnnlAvailable()) return;
  const ConvolutionParameter& cp = this->layer_param_.convolution_param();
  if (cp.engine() == ConvolutionParameter_Engine_CAFFE) return;
  if (reverse_dimensions() || num_spatial_axes_ != 2 || force_nd_im2col_) {
    return;
  }
  // Blobs over INT_MAX elements run im2col one image at a time: oneDNN
  // reorders the whole batch into its layouts (copies as large as the
  // blobs themselves), and its kernels have not been run that far.
  if (static_cast<int64_t>(num_) * bottom_dim_ > INT_MAX ||
      static_cast<int64_t>(num_) * top_dim_ > INT_MAX)
    return;
  DnnlConvShape s;
  s.num = num_;
  s.channels = channels_;
  s.height = conv_input_shape_[1];
  s.width = conv_input_shape_[2];
  s.num_output = num_output_;
  s.out_height = output_shape_[0];
  s.out_width = output_shape_[1];
  s.kernel_h = kernel_shape_[0];
  s.kernel_w = kernel_shape_[1];
  s.stride_h = stride_[0];
  s.stride_w = stride_[1];
  s.pad_h = pad_[0];
  s.pad_w = pad_[1];
  s.dilation_h = dilation_[0];
  s.dilation_w = dilation_[1];
  s.group = group_;
  s.bias = bias_term_;
  if (s.num == 0) return;
  for (const auto& c : dnnl_cache_) {
    if (c->shape() == s) {
      dnnl_ = c;
      return;
    }
  }
  for (const auto& d : dnnl_declined_) {
    if (d == s) return;
  }
  std::shared_ptr<DnnlConv> conv = DnnlConv::Create(s);
  if (!conv) {
    dnnl_declined_.push_back(s);
    return;
  }
  // A handful of shapes (e.g. TRAIN and TEST batch sizes) stay set up.
  if (dnnl_cache_.size() >= 4) dnnl_cache_.erase(dnnl_cache_.begin());
  dnnl_cache_.push_back(conv);
  dnnl_ = conv;
}

template <typename Dtype>
void BaseConvolutionLayer<Dtype>::LayerSetUp(
    const vector<Blob<Dtype>*>& bottom, const vector<Blob<Dtype>*>& top) {
  const string& name = this->layer_param_.name();
  const ConvolutionParameter& conv_param =
      this->layer_param_.convolution_param();
  force_nd_im2col_ = conv_param.force_nd_im2col();
  channel_axis_ = bottom[0]->CanonicalAxisIndex(conv_param.axis());
  const int first_spatial_axis = channel_axis_ + 1;
  num_spatial_axes_ = bottom[0]->num_axes() - first_spatial_axis;
  CAFFE_CHECK_GE(num_spatial_axes_, 0)
      << "layer " << name << ": no spatial axes in input "
      << bottom[0]->shape_string();
  CAFFE_CHECK_LE(num_spatial_axes_, kMaxConvSpatialAxes)
      << "layer " << name << ": " << num_spatial_axes_ << " spatial axes in "
      << "input " << bottom[0]->shape_string() << "; at most "
      << kMaxConvSpatialAxes << " are supported";

  // Kernel.
  if (conv_param.has_kernel_h() || conv_param.has_kernel_w()) {
    CAFFE_CHECK_EQ(num_spatial_axes_, 2)
        << "layer " << name
        << ": kernel_h & kernel_w can only be used for 2D convolution (input "
        << bottom[0]->shape_string() << ")";
    CAFFE_CHECK_EQ(0, conv_param.kernel_size_size())
        << "layer " << name
        << ": either kernel_size or kernel_h/w should be specified; not both";
    CAFFE_CHECK(conv_param.has_kernel_h() && conv_param.has_kernel_w())
        << "layer " << name << ": kernel_h and kernel_w must both be given";
    kernel_shape_ = {static_cast<int>(conv_param.kernel_h()),
                     static_cast<int>(conv_param.kernel_w())};
  } else {
    const int n = conv_param.kernel_size_size();
    CAFFE_CHECK(n == 1 || n == num_spatial_axes_)
        << "layer " << name
        << ": kernel_size must be specified once, or once per spatial "
           "dimension (kernel_size specified "
        << n << " times; " << num_spatial_axes_ << " spatial dims in input "
        << bottom[0]->shape_string() << ")";
    ReadAxisValues(conv_param.kernel_size(), num_spatial_axes_, 0,
                   &kernel_shape_);
  }
  for (int i = 0; i < num_spatial_axes_; ++i) {
    CAFFE_CHECK_GT(kernel_shape_[i], 0)
        << "layer " << name << ": filter dimensions must be nonzero";
  }

  // Stride.
  if (conv_param.has_stride_h() || conv_param.has_stride_w()) {
    CAFFE_CHECK_EQ(num_spatial_axes_, 2)
        << "layer " << name
        << ": stride_h & stride_w can only be used for 2D convolution";
    CAFFE_CHECK_EQ(0, conv_param.stride_size())
        << "layer " << name
        << ": either stride or stride_h/w should be specified; not both";
    stride_ = {static_cast<int>(conv_param.stride_h()),
               static_cast<int>(conv_param.stride_w())};
  } else {
    CAFFE_CHECK(ReadAxisValues(conv_param.stride(), num_spatial_axes_, 1,
                               &stride_))
        << "layer " << name
        << ": stride must be specified once, or once per spatial dimension "
           "(stride specified "
        << conv_param.stride_size() << " times; " << num_spatial_axes_
        << " spatial dims)";
  }
  for (int i = 0; i < num_spatial_axes_; ++i) {
    CAFFE_CHECK_GT(stride_[i], 0)
        << "layer " << name << ": stride dimensions must be nonzero";
  }

  // Pad.
  if (conv_param.has_pad_h() || conv_param.has_pad_w()) {
    CAFFE_CHECK_EQ(num_spatial_axes_, 2)
        << "layer " << name
        << ": pad_h & pad_w can only be used for 2D convolution";
    CAFFE_CHECK_EQ(0, conv_param.pad_size())
        << "layer " << name
        << ": either pad or pad_h/w should be specified; not both";
    pad_ = {static_cast<int>(conv_param.pad_h()),
            static_cast<int>(conv_param.pad_w())};
  } else {
    CAFFE_CHECK(
        ReadAxisValues(conv_param.pad(), num_spatial_axes_, 0, &pad_))
        << "layer " << name
        << ": pad must be specified once, or once per spatial dimension "
           "(pad specified "
        << conv_param.pad_size() << " times; " << num_spatial_axes_
        << " spatial dims)";
  }

  // Dilation.
  CAFFE_CHECK(ReadAxisValues(conv_param.dilation(), num_spatial_axes_, 1,
                             &dilation_))
      << "layer " << name
      << ": dilation must be specified once, or once per spatial dimension "
         "(dilation specified "
      << conv_param.dilation_size() << " times; " << num_spatial_axes_
      << " spatial dims)";
  for (int i = 0; i < num_spatial_axes_; ++i) {
    CAFFE_CHECK_GT(dilation_[i], 0)
        << "layer " << name << ": dilation must be nonzero";
  }

  is_1x1_ = true;
  for (int i = 0; i < num_spatial_axes_; ++i) {
    is_1x1_ &= kernel_shape_[i] == 1 && stride_[i] == 1 && pad_[i] == 0;
  }

  // Channels and groups.
  channels_ = bottom[0]->shape(channel_axis_);
  num_output_ = static_cast<int>(conv_param.num_output());
  CAFFE_CHECK_GT(num_output_, 0)
      << "layer " << name << ": num_output must be positive";
  group_ = static_cast<int>(conv_param.group());
  CAFFE_CHECK_GT(group_, 0) << "layer " << name << ": group must be positive";
  CAFFE_CHECK_EQ(channels_ % group_, 0)
      << "layer " << name << ": input channels (" << channels_
      << " in input " << bottom[0]->shape_string()
      << ") must be a multiple of group (" << group_ << ")";
  CAFFE_CHECK_EQ(num_output_ % group_, 0)
      << "layer " << name << ": num_output (" << num_output_
      << ") must be a multiple of group (" << group_ << ")";
  if (reverse_dimensions()) {
    conv_out_channels_ = channels_;
    conv_in_channels_ = num_output_;
  } else {
    conv_out_channels_ = num_output_;
    conv_in_channels_ = channels_;
  }

  vector<int> weight_shape = {conv_out_channels_, conv_in_channels_ / group_};
  weight_shape.insert(weight_shape.end(), kernel_shape_.begin(),
                      kernel_shape_.end());
  bias_term_ = conv_param.bias_term();
  const vector<int> bias_shape = {num_output_};
  if (!this->blobs_.empty()) {
    CAFFE_CHECK_EQ(static_cast<int>(this->blobs_.size()), 1 + bias_term_)
        << "layer " << name << ": incorrect number of weight blobs";
    CAFFE_CHECK(this->blobs_[0]->shape() == weight_shape)
        << "layer " << name << ": incorrect weight shape: expected "
        << ShapeString(weight_shape) << "; instead, shape was "
        << this->blobs_[0]->shape_string();
    if (bias_term_) {
      CAFFE_CHECK(this->blobs_[1]->shape() == bias_shape)
          << "layer " << name << ": incorrect bias shape: expected ("
          << num_output_ << "); instead, shape was "
          << this->blobs_[1]->shape_string();
    }
    LOG(INFO) << "Skipping parameter initialization";
  } else {
    this->blobs_.resize(bias_term_ ? 2 : 1);
    this->blobs_[0].reset(new Blob<Dtype>(weight_shape));
    std::unique_ptr<Filler<Dtype> > weight_filler(
        GetFiller<Dtype>(conv_param.weight_filler()));
    weight_filler->Fill(this->blobs_[0].get());
    if (bias_term_) {
      this->blobs_[1].reset(new Blob<Dtype>(bias_shape));
      std::unique_ptr<Filler<Dtype> > bias_filler(
          GetFiller<Dtype>(conv_param.bias_filler()));
      bias_filler->Fill(this->blobs_[1].get());
    }
  }
  kernel_dim_ = this->blobs_[0]->count(1);
  weight_offset_ = conv_out_channels_ * kernel_dim_ / group_;
  this->param_propagate_down_.resize(this->blobs_.size(), true);
}

template <typename Dtype>
void BaseConvolutionLayer<Dtype>::Reshape(const vector<Blob<Dtype>*>& bottom,
                                          const vector<Blob<Dtype>*>& top) {
  const string& name = this->layer_param_.name();
  const int first_spatial_axis = channel_axis_ + 1;
  CAFFE_CHECK_EQ(bottom[0]->num_axes(), first_spatial_axis + num_spatial_axes_)
      << "layer " << name << ": bottom num_axes may not change (input "
      << bottom[0]->shape_string() << ")";
  num_ = bottom[0]->count(0, channel_axis_);
  CAFFE_CHECK_EQ(bottom[0]->shape(channel_axis_), channels_)
      << "layer " << name
      << ": input size incompatible with convolution kernel (input "
      << bottom[0]->shape_string() << ")";
  for (size_t i = 1; i < bottom.size(); ++i) {
    CAFFE_CHECK(bottom[0]->shape() == bottom[i]->shape())
        << "layer " << name << ": shape mismatch - bottom[0]: "
        << bottom[0]->shape_string() << " vs. bottom[" << i
        << "]: " << bottom[i]->shape_string();
  }
  bottom_shape_ = &bottom[0]->shape();
  compute_output_shape();
  for (int i = 0; i < num_spatial_axes_; ++i) {
    CAFFE_CHECK_GT(output_shape_[i], 0)
        << "layer " << name << ": empty output along spatial axis " << i
        << " for input " << bottom[0]->shape_string() << " (kernel "
        << kernel_shape_[i] << ", pad " << pad_[i] << ", stride "
        << stride_[i] << ", dilation " << dilation_[i] << ")";
  }
  vector<int> top_shape(bottom[0]->shape().begin(),
                        bottom[0]->shape().begin() + channel_axis_);
  top_shape.push_back(num_output_);
  top_shape.insert(top_shape.end(), output_shape_.begin(),
                   output_shape_.end());
  for (size_t i = 0; i < top.size(); ++i) top[i]->Reshape(top_shape);

  conv_out_spatial_dim_ = reverse_dimensions()
                              ? bottom[0]->count(first_spatial_axis)
                              : top[0]->count(first_spatial_axis);
  col_offset_ = kernel_dim_ * conv_out_spatial_dim_;
  output_offset_ = conv_out_channels_ * conv_out_spatial_dim_ / group_;

  const Blob<Dtype>* conv_input = reverse_dimensions() ? top[0] : bottom[0];
  conv_input_shape_.assign(num_spatial_axes_ + 1, 0);
  for (int i = 0; i <= num_spatial_axes_; ++i) {
    conv_input_shape_[i] = conv_input->shape(channel_axis_ + i);
  }
  const Blob<Dtype>* conv_output = reverse_dimensions() ? bottom[0] : top[0];
  col_buffer_shape_.assign(1, kernel_dim_ * group_);
  for (int i = 0; i < num_spatial_axes_; ++i) {
    col_buffer_shape_.push_back(conv_output->shape(first_spatial_axis + i));
  }
  bottom_dim_ = bottom[0]->count(channel_axis_);
  top_dim_ = top[0]->count(channel_axis_);
  out_spatial_dim_ = top[0]->count(first_spatial_axis);
  SelectEngine();
  scratch_.Resize(ScratchBytes(Caffe::mode() == Caffe::GPU));
}

template <typename Dtype>
void BaseConvolutionLayer<Dtype>::conv_im2col_cpu(const Dtype* data,
                                                  Dtype* col_buff) {
  if (!force_nd_im2col_ && num_spatial_axes_ == 2) {
    im2col_cpu(data, conv_in_channels_, conv_input_shape_[1],
               conv_input_shape_[2], kernel_shape_[0], kernel_shape_[1],
               pad_[0], pad_[1], stride_[0], stride_[1], dilation_[0],
               dilation_[1], col_buff);
  } else {
    im2col_nd_cpu(data, num_spatial_axes_, conv_input_shape_.data(),
                  col_buffer_shape_.data(), kernel_shape_.data(), pad_.data(),
                  stride_.data(), dilation_.data(), col_buff);
  }
}

template <typename Dtype>
void BaseConvolutionLayer<Dtype>::conv_col2im_cpu(const Dtype* col_buff,
                                                  Dtype* data) {
  if (!force_nd_im2col_ && num_spatial_axes_ == 2) {
    col2im_cpu(col_buff, conv_in_channels_, conv_input_shape_[1],
               conv_input_shape_[2], kernel_shape_[0], kernel_shape_[1],
               pad_[0], pad_[1], stride_[0], stride_[1], dilation_[0],
               dilation_[1], data);
  } else {
    col2im_nd_cpu(col_buff, num_spatial_axes_, conv_input_shape_.data(),
                  col_buffer_shape_.data(), kernel_shape_.data(), pad_.data(),
                  stride_.data(), dilation_.data(), data);
  }
}

// The column work of one image on either device (util/device_math.hpp):
// the host workspace and im2col_cpu, or the device workspace and the GPU
// im2col bodies.
template <typename Dtype>
Dtype* BaseConvolutionLayer<Dtype>::ColumnsOn(bool gpu) {
  return static_cast<Dtype*>(ScratchOn(gpu, ColCount() * sizeof(Dtype)));
}

template <typename Dtype>
void BaseConvolutionLayer<Dtype>::Im2colOn(bool gpu, const Dtype* data,
                                           Dtype* col_buff) {
#ifdef USE_CUDA
  if (gpu && uses_2d_im2col()) return im2col_gpu(data, Geometry(), col_buff);
  if (gpu) return im2col_nd_gpu(data, GeometryNd(), col_buff);
#endif
  conv_im2col_cpu(data, col_buff);
}

template <typename Dtype>
void BaseConvolutionLayer<Dtype>::Col2imOn(bool gpu, const Dtype* col_buff,
                                           Dtype* data) {
#ifdef USE_CUDA
  if (gpu && uses_2d_im2col()) return col2im_gpu(col_buff, Geometry(), data);
  if (gpu) return col2im_nd_gpu(col_buff, GeometryNd(), data);
#endif
  conv_col2im_cpu(col_buff, data);
}

template <typename Dtype>
void BaseConvolutionLayer<Dtype>::forward_gemm(bool gpu, const Dtype* input,
                                               const Dtype* weights,
                                               Dtype* output,
                                               bool skip_im2col) {
  const Dtype* col_buff = input;
  if (!is_1x1_) {
    Dtype* buffer = ColumnsOn(gpu);
    if (!skip_im2col) Im2colOn(gpu, input, buffer);
    col_buff = buffer;
  }
  for (int g = 0; g < group_; ++g) {
    GemmOn<Dtype>(gpu, CblasNoTrans, CblasNoTrans,
                  conv_out_channels_ / group_, conv_out_spatial_dim_,
                  kernel_dim_, Dtype(1), weights + weight_offset_ * g,
                  col_buff + col_offset_ * g, Dtype(0),
                  output + output_offset_ * g);
  }
}

template <typename Dtype>
void BaseConvolutionLayer<Dtype>::backward_gemm(bool gpu, const Dtype* output,
                                                const Dtype* weights,
                                                Dtype* input) {
  Dtype* col_buff = is_1x1_ ? input : ColumnsOn(gpu);
  for (int g = 0; g < group_; ++g) {
    GemmOn<Dtype>(gpu, CblasTrans, CblasNoTrans, kernel_dim_,
                  conv_out_spatial_dim_, conv_out_channels_ / group_,
                  Dtype(1), weights + weight_offset_ * g,
                  output + output_offset_ * g, Dtype(0),
                  col_buff + col_offset_ * g);
  }
  if (!is_1x1_) Col2imOn(gpu, col_buff, input);
}

template <typename Dtype>
void BaseConvolutionLayer<Dtype>::weight_gemm(bool gpu, const Dtype* input,
                                              const Dtype* output,
                                              Dtype* weights) {
  const Dtype* col_buff = input;
  if (!is_1x1_) {
    Dtype* buffer = ColumnsOn(gpu);
    Im2colOn(gpu, input, buffer);
    col_buff = buffer;
  }
  for (int g = 0; g < group_; ++g) {
    GemmOn<Dtype>(gpu, CblasNoTrans, CblasTrans,
                  conv_out_channels_ / group_, kernel_dim_,
                  conv_out_spatial_dim_, Dtype(1),
                  output + output_offset_ * g, col_buff + col_offset_ * g,
                  Dtype(1), weights + weight_offset_ * g);
  }
}

template <typename Dtype>
void BaseConvolutionLayer<Dtype>::forward_cpu_bias(Dtype* output,
                                                   const Dtype* bias) {
  for (int o = 0; o < num_output_; ++o) {
    Dtype* row = output + static_cast<long>(o) * out_spatial_dim_;
    const Dtype b = bias[o];
    for (int s = 0; s < out_spatial_dim_; ++s) row[s] += b;
  }
}

template <typename Dtype>
void BaseConvolutionLayer<Dtype>::backward_cpu_bias(Dtype* bias,
                                                    const Dtype* input) {
  for (int o = 0; o < num_output_; ++o) {
    const Dtype* row = input + static_cast<long>(o) * out_spatial_dim_;
    Dtype sum = 0;
    for (int s = 0; s < out_spatial_dim_; ++s) sum += row[s];
    bias[o] += sum;
  }
}

#ifdef USE_CUDA
template <typename Dtype>
ConvGeometry BaseConvolutionLayer<Dtype>::Geometry() const {
  return MakeConvGeometry(conv_in_channels_, conv_input_shape_.data() + 1,
                          col_buffer_shape_.data() + 1, kernel_shape_.data(),
                          pad_.data(), stride_.data(), dilation_.data());
}

template <typename Dtype>
ConvGeometryNd BaseConvolutionLayer<Dtype>::GeometryNd() const {
  return MakeConvGeometryNd(num_spatial_axes_, conv_input_shape_.data(),
                            col_buffer_shape_.data(), kernel_shape_.data(),
                            pad_.data(), stride_.data(), dilation_.data());
}

template <typename Dtype>
void BaseConvolutionLayer<Dtype>::forward_gpu_bias(Dtype* output,
                                                   const Dtype* bias) {
  gpu_channel_bias_add<Dtype>(num_, num_output_, out_spatial_dim_, bias,
                              output);
}

template <typename Dtype>
void BaseConvolutionLayer<Dtype>::backward_gpu_bias(Dtype* bias,
                                                    const Dtype* input) {
  gpu_channel_sum<Dtype>(num_, num_output_, out_spatial_dim_, input, bias);
}
#endif  // USE_CUDA

INSTANTIATE_CLASS(BaseConvolutionLayer);

}  // namespace caffe
