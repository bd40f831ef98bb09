#include <vector>

#include "caffe/layers/conv_layer.hpp"

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
      if (weight_grad) {
        // Weight and bias gradients in one pass.
        this->dnnl_->BackwardWeights(
            F(bottom[i]->cpu_data()), F(top_diff),
            F(this->blobs_[0]->mutable_cpu_diff()),
            bias_grad ? F(this->blobs_[1]->mutable_cpu_diff()) : nullptr,
            ws);
      } else if (bias_grad) {
        Dtype* bias_diff = this->blobs_[1]->mutable_cpu_diff();
        for (int n = 0; n < this->num_; ++n) {
          this->backward_cpu_bias(
              bias_diff, top_diff + static_cast<long>(n) * this->top_dim_);
        }
      }
      if (propagate_down[i]) {
        this->dnnl_->BackwardData(F(top_diff), F(weight),
                                  F(bottom[i]->mutable_cpu_diff()), ws);
      }
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

INSTANTIATE_CLASS(ConvolutionLayer);
REGISTER_LAYER_CLASS(Convolution);

}  // namespace caffe
