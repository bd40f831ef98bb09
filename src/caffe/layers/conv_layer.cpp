#include <algorithm>
#include <vector>

#include "caffe/layers/conv_layer.hpp"
#include "caffe/util/cudnn_conv_batch.hpp"
#include "caffe/util/gpu_kernels.hpp"
#include "caffe/util/gpu_math_options.hpp"

namespace caffe {

template <typename Dtype>
void ConvolutionLayer<Dtype>::compute_output_shape() {
  const int first_spatial_axis = this->channel_axis_ + 1;
  this->output_shape_.clear();
  for (int i = 0; i < this->num_spatial_axes_; ++i) {
    const int input_dim = (*this->bottom_shape_)[first_spatial_axis + i];
    const int kernel_extent =
        this->dilation_[i] * (this->kernel_shape_[i] - 1) + 1;
    this->output_shape_.push_back(
        (input_dim + 2 * this->pad_[i] - kernel_extent) / this->stride_[i] +
        1);
  }
}

namespace {

// The oneDNN engine is only ever chosen for float; these casts are no-ops
// there and never reached for double.
template <typename Dtype>
const float* F(const Dtype* p) {
  return reinterpret_cast<const float*>(p);
}
template <typename Dtype>
float* F(Dtype* p) {
  return reinterpret_cast<float*>(p);
}

}  // namespace

template <typename Dtype>
void ConvolutionLayer<Dtype>::Forward_cpu(const vector<Blob<Dtype>*>& bottom,
                                          const vector<Blob<Dtype>*>& top) {
  const Dtype* weight = this->blobs_[0]->cpu_data();
  if (this->dnnl_) {
    void* ws = this->Workspace();
    const Dtype* bias = this->bias_term_ ? this->blobs_[1]->cpu_data()
                                         : nullptr;
    for (size_t i = 0; i < bottom.size(); ++i) {
      this->dnnl_->Forward(F(bottom[i]->cpu_data()), F(weight), F(bias),
                           F(top[i]->mutable_cpu_data()), ws);
    }
    return;
  }
  for (size_t i = 0; i < bottom.size(); ++i) {
    const Dtype* bottom_data = bottom[i]->cpu_data();
    Dtype* top_data = top[i]->mutable_cpu_data();
    for (int n = 0; n < this->num_; ++n) {
      Dtype* out = top_data + static_cast<long>(n) * this->top_dim_;
      this->forward_cpu_gemm(
          bottom_data + static_cast<long>(n) * this->bottom_dim_, weight, out);
      if (this->bias_term_) {
        this->forward_cpu_bias(out, this->blobs_[1]->cpu_data());
      }
    }
  }
}

template <typename Dtype>
void ConvolutionLayer<Dtype>::Backward_cpu(const vector<Blob<Dtype>*>& top,
                                           const vector<bool>& propagate_down,
                                           const vector<Blob<Dtype>*>& bottom) {
  const Dtype* weight = this->blobs_[0]->cpu_data();
  const bool weight_grad = this->param_propagate_down(0);
  const bool bias_grad = this->bias_term_ && this->param_propagate_down(1);
  if (this->dnnl_) {
    void* ws = this->Workspace();
    for (size_t i = 0; i < top.size(); ++i) {
      const Dtype* top_diff = top[i]->cpu_diff();
      if (bias_grad && !weight_grad) {
        Dtype* bias_diff = this->blobs_[1]->mutable_cpu_diff();
        for (int n = 0; n < this->num_; ++n) {
          this->backward_cpu_bias(
              bias_diff, top_diff + static_cast<long>(n) * this->top_dim_);
        }
      }
      // Weight and bias gradients in one pass, then the bottom's.  The
      // bottom's data is read only for the weight gradient (the memory
      // contract says so: a frozen layer's bottom may be reused memory).
      this->dnnl_->Backward(
          weight_grad ? F(bottom[i]->cpu_data()) : nullptr, F(top_diff),
          F(weight),
          weight_grad ? F(this->blobs_[0]->mutable_cpu_diff()) : nullptr,
          weight_grad && bias_grad ? F(this->blobs_[1]->mutable_cpu_diff())
                                   : nullptr,
          propagate_down[i] ? F(bottom[i]->mutable_cpu_diff()) : nullptr, ws);
    }
    return;
  }
  for (size_t i = 0; i < top.size(); ++i) {
    const Dtype* top_diff = top[i]->cpu_diff();
    if (bias_grad) {
      Dtype* bias_diff = this->blobs_[1]->mutable_cpu_diff();
      for (int n = 0; n < this->num_; ++n) {
        this->backward_cpu_bias(
            bias_diff, top_diff + static_cast<long>(n) * this->top_dim_);
      }
    }
    if (!weight_grad && !propagate_down[i]) continue;
    // Only touch bottom data when the weight gradient needs it.
    const Dtype* bottom_data = weight_grad ? bottom[i]->cpu_data() : nullptr;
    Dtype* bottom_diff =
        propagate_down[i] ? bottom[i]->mutable_cpu_diff() : nullptr;
    for (int n = 0; n < this->num_; ++n) {
      const Dtype* dy = top_diff + static_cast<long>(n) * this->top_dim_;
      if (weight_grad) {
        this->weight_cpu_gemm(
            bottom_data + static_cast<long>(n) * this->bottom_dim_, dy,
            this->blobs_[0]->mutable_cpu_diff());
      }
      if (propagate_down[i]) {
        this->backward_cpu_gemm(
            dy, weight, bottom_diff + static_cast<long>(n) * this->bottom_dim_);
      }
    }
  }
}

template <typename Dtype>
size_t ConvolutionLayer<Dtype>::ScratchBytes(bool gpu) {
  const size_t own = BaseConvolutionLayer<Dtype>::ScratchBytes(gpu);
#ifdef USE_CUDA
  if (gpu && UseCudnn()) return std::max(own, Cudnn()->WorkspaceBytes());
#endif
  return own;
}

#ifdef USE_CUDA
template <typename Dtype>
CudnnConvBatch<Dtype>* ConvolutionLayer<Dtype>::Cudnn() const {
  return static_cast<CudnnConvBatch<Dtype>*>(cudnn_.get());
}

template <typename Dtype>
bool ConvolutionLayer<Dtype>::UseCudnn() {
  if (!this->uses_2d_im2col() ||
      this->layer_param_.convolution_param().engine() ==
          ConvolutionParameter_Engine_CAFFE)
    return false;
  vector<int> key = this->conv_input_shape_;
  key.push_back(this->num_);
  key.insert(key.end(), this->output_shape_.begin(), this->output_shape_.end());
  // The GPU arithmetic settings too: changing them re-chooses algorithms.
  key.push_back(AllowTf32());
  key.push_back(static_cast<int>(ConvAlgo()));
  key.push_back(AllowNondeterministic());
  if (key == cudnn_key_) return cudnn_ != nullptr;
  cudnn_key_ = key;
  cudnn_.reset();
  CudnnConvShape s;
  s.num = this->num_;
  s.channels = this->channels_;
  s.height = this->conv_input_shape_[1];
  s.width = this->conv_input_shape_[2];
  s.out_channels = this->num_output_;
  s.out_height = this->output_shape_[0];
  s.out_width = this->output_shape_[1];
  s.kernel_h = this->kernel_shape_[0];
  s.kernel_w = this->kernel_shape_[1];
  s.pad_h = this->pad_[0];
  s.pad_w = this->pad_[1];
  s.stride_h = this->stride_[0];
  s.stride_w = this->stride_[1];
  s.dilation_h = this->dilation_[0];
  s.dilation_w = this->dilation_[1];
  s.group = this->group_;
  // cuDNN's descriptors count in int: a batch past INT_MAX elements runs in
  // chunks of images (util/cudnn_conv_batch.hpp); an image past it, never.
  if (!CudnnConvBatch<Dtype>::FitsOneImage(s)) return false;
  auto engine = std::make_shared<CudnnConvBatch<Dtype> >(s);
  // Each direction takes the fastest deterministic algorithm within the
  // limit, in fewer images per call where the whole batch does not fit;
  // a direction with none at all runs im2col + cuBLAS.
  if (engine->ChooseAlgorithms(this->workspace_limit())) cudnn_ = engine;
  if (!engine->WholeBatchEverywhere()) {
    LOG(INFO) << "Convolution layer " << this->layer_param_.name() << " ("
              << this->num_ << " images, workspace limit "
              << this->workspace_limit()
              << " bytes, mem_param.workspace_limit_mb): "
              << engine->Describe();
    // What cuDNN offered for the largest call there, to judge chunks by.
    const std::string rankings = engine->DescribeRankings();
    if (!rankings.empty())
      LOG(INFO) << "Convolution layer " << this->layer_param_.name()
                << ": " << rankings;
  }
  return cudnn_ != nullptr;
}

// The GPU path: cuDNN for the batch (in chunks of images past INT_MAX
// elements), else im2col + cuBLAS per image;
// the bias over the whole batch either way.
template <typename Dtype>
void ConvolutionLayer<Dtype>::Forward_gpu(const vector<Blob<Dtype>*>& bottom,
                                          const vector<Blob<Dtype>*>& top) {
  const Dtype* weight = this->blobs_[0]->gpu_data();
  if (UseCudnn() && Cudnn()->Has(ConvDirection::kForward)) {
    CudnnConvBatch<Dtype>* engine = Cudnn();
    void* workspace = this->ScratchOn(true, engine->WorkspaceBytes());
    for (size_t i = 0; i < bottom.size(); ++i) {
      Dtype* top_data = top[i]->mutable_gpu_data();
      engine->Forward(bottom[i]->gpu_data(), weight, top_data, workspace);
      if (this->bias_term_)
        this->forward_gpu_bias(top_data, this->blobs_[1]->gpu_data());
    }
    return;
  }
  for (size_t i = 0; i < bottom.size(); ++i) {
    const Dtype* bottom_data = bottom[i]->gpu_data();
    Dtype* top_data = top[i]->mutable_gpu_data();
    for (int n = 0; n < this->num_; ++n) {
      this->forward_gpu_gemm(
          bottom_data + static_cast<long>(n) * this->bottom_dim_, weight,
          top_data + static_cast<long>(n) * this->top_dim_);
    }
    if (this->bias_term_)
      this->forward_gpu_bias(top_data, this->blobs_[1]->gpu_data());
  }
}

template <typename Dtype>
void ConvolutionLayer<Dtype>::Backward_gpu(const vector<Blob<Dtype>*>& top,
                                           const vector<bool>& propagate_down,
                                           const vector<Blob<Dtype>*>& bottom) {
  const Dtype* weight = this->blobs_[0]->gpu_data();
  const bool weight_grad = this->param_propagate_down(0);
  const bool bias_grad = this->bias_term_ && this->param_propagate_down(1);
  CudnnConvBatch<Dtype>* engine = UseCudnn() ? Cudnn() : nullptr;
  const bool cudnn_filter = engine && engine->Has(ConvDirection::kFilter);
  const bool cudnn_data = engine && engine->Has(ConvDirection::kData);
  void* workspace =
      engine ? this->ScratchOn(true, engine->WorkspaceBytes()) : nullptr;
  for (size_t i = 0; i < top.size(); ++i) {
    const Dtype* top_diff = top[i]->gpu_diff();
    if (bias_grad)
      this->backward_gpu_bias(this->blobs_[1]->mutable_gpu_diff(), top_diff);
    if (weight_grad && cudnn_filter)
      engine->BackwardFilter(bottom[i]->gpu_data(), top_diff,
                             this->blobs_[0]->mutable_gpu_diff(), workspace);
    if (propagate_down[i] && cudnn_data)
      engine->BackwardData(weight, top_diff, bottom[i]->mutable_gpu_diff(),
                           workspace);
    // What cuDNN did not take runs as im2col + cuBLAS, image by image.
    // The column buffer is the same scratch as cuDNN's workspace: the
    // calls above have finished with it (one stream, in order).
    const bool own_filter = weight_grad && !cudnn_filter;
    const bool own_data = propagate_down[i] && !cudnn_data;
    if (!own_filter && !own_data) continue;
    const Dtype* bottom_data = own_filter ? bottom[i]->gpu_data() : nullptr;
    Dtype* bottom_diff = own_data ? bottom[i]->mutable_gpu_diff() : nullptr;
    for (int n = 0; n < this->num_; ++n) {
      const Dtype* dy = top_diff + static_cast<long>(n) * this->top_dim_;
      if (own_filter) {
        this->weight_gpu_gemm(
            bottom_data + static_cast<long>(n) * this->bottom_dim_, dy,
            this->blobs_[0]->mutable_gpu_diff());
      }
      if (own_data) {
        this->backward_gpu_gemm(
            dy, weight, bottom_diff + static_cast<long>(n) * this->bottom_dim_);
      }
    }
  }
}
#endif  // USE_CUDA

INSTANTIATE_CLASS(ConvolutionLayer);
REGISTER_LAYER_CLASS(Convolution);

}  // namespace caffe
