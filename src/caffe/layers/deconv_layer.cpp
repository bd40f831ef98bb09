#include <vector>

#include "caffe/layers/deconv_layer.hpp"
#include "caffe/util/device_math.hpp"

namespace caffe {

template <typename Dtype>
void DeconvolutionLayer<Dtype>::compute_output_shape() {
  const int first_spatial_axis = this->channel_axis_ + 1;
  this->output_shape_.clear();
  for (int i = 0; i < this->num_spatial_axes_; ++i) {
    const int input_dim = (*this->bottom_shape_)[first_spatial_axis + i];
    const int kernel_extent =
        this->dilation_[i] * (this->kernel_shape_[i] - 1) + 1;
    this->output_shape_.push_back(this->stride_[i] * (input_dim - 1) +
                                  kernel_extent - 2 * this->pad_[i]);
  }
}

template <typename Dtype>
void DeconvolutionLayer<Dtype>::ForwardOn(bool gpu,
                                          const vector<Blob<Dtype>*>& bottom,
                                          const vector<Blob<Dtype>*>& top) {
  const Dtype* weight = DataOn(gpu, *this->blobs_[0]);
  for (size_t i = 0; i < bottom.size(); ++i) {
    const Dtype* bottom_data = DataOn(gpu, *bottom[i]);
    Dtype* top_data = MutableDataOn(gpu, top[i]);
    for (int n = 0; n < this->num_; ++n) {
      Dtype* out = top_data + static_cast<long>(n) * this->top_dim_;
      this->backward_gemm(
          gpu, bottom_data + static_cast<long>(n) * this->bottom_dim_, weight,
          out);
      if (this->bias_term_ && !gpu)
        this->forward_cpu_bias(out, this->blobs_[1]->cpu_data());
    }
#ifdef USE_CUDA
    // On the GPU the bias goes over the whole batch at once.
    if (this->bias_term_ && gpu)
      this->forward_gpu_bias(top_data, this->blobs_[1]->gpu_data());
#endif
  }
}

template <typename Dtype>
void DeconvolutionLayer<Dtype>::BackwardOn(
    bool gpu, const vector<Blob<Dtype>*>& top,
    const vector<bool>& propagate_down, const vector<Blob<Dtype>*>& bottom) {
  const Dtype* weight = DataOn(gpu, *this->blobs_[0]);
  const bool weight_grad = this->param_propagate_down(0);
  const bool bias_grad = this->bias_term_ && this->param_propagate_down(1);
  for (size_t i = 0; i < top.size(); ++i) {
    const Dtype* top_diff = DiffOn(gpu, *top[i]);
    if (bias_grad && gpu) {
#ifdef USE_CUDA
      this->backward_gpu_bias(this->blobs_[1]->mutable_gpu_diff(), top_diff);
#endif
    } else if (bias_grad) {
      Dtype* bias_diff = this->blobs_[1]->mutable_cpu_diff();
      for (int n = 0; n < this->num_; ++n) {
        this->backward_cpu_bias(
            bias_diff, top_diff + static_cast<long>(n) * this->top_dim_);
      }
    }
    if (!weight_grad && !propagate_down[i]) continue;
    const Dtype* bottom_data =
        weight_grad ? DataOn(gpu, *bottom[i]) : nullptr;
    Dtype* bottom_diff =
        propagate_down[i] ? MutableDiffOn(gpu, bottom[i]) : nullptr;
    for (int n = 0; n < this->num_; ++n) {
      const Dtype* dy = top_diff + static_cast<long>(n) * this->top_dim_;
      if (weight_grad) {
        // Leaves im2col(dy) in the workspace for the data gradient below.
        this->weight_gemm(
            gpu, dy, bottom_data + static_cast<long>(n) * this->bottom_dim_,
            MutableDiffOn(gpu, this->blobs_[0].get()));
      }
      if (propagate_down[i]) {
        this->forward_gemm(
            gpu, dy, weight,
            bottom_diff + static_cast<long>(n) * this->bottom_dim_,
            weight_grad);
      }
    }
  }
}

DEFINE_CPU_BY_ON(DeconvolutionLayer);
DEFINE_GPU_BY_ON(DeconvolutionLayer);

INSTANTIATE_CLASS(DeconvolutionLayer);
REGISTER_LAYER_CLASS(Deconvolution);

}  // namespace caffe
