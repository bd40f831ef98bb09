#include "caffe/layers/inner_product_layer.hpp"
#include "caffe/util/device_math.hpp"

#include <vector>

#include "caffe/filler.hpp"
#include "caffe/util/math_functions.hpp"

namespace caffe {

template <typename Dtype>
void InnerProductLayer<Dtype>::LayerSetUp(const vector<Blob<Dtype>*>& bottom,
                                          const vector<Blob<Dtype>*>& top) {
  const InnerProductParameter& p = this->layer_param_.inner_product_param();
  const string& name = this->layer_param_.name();
  CAFFE_CHECK_GT(static_cast<int>(p.num_output()), 0)
      << "InnerProduct layer " << name << ": num_output must be positive";
  N_ = static_cast<int>(p.num_output());
  bias_term_ = p.bias_term();
  transpose_ = p.transpose();
  axis_ = bottom[0]->CanonicalAxisIndex(p.axis());
  K_ = bottom[0]->count(axis_);
  const int expected_blobs = bias_term_ ? 2 : 1;
  if (!this->blobs_.empty()) {
    // Weights came with the layer (a model file): check they fit.
    CAFFE_CHECK_EQ(static_cast<int>(this->blobs_.size()), expected_blobs)
        << "InnerProduct layer " << name << " has the wrong number of blobs "
        << "for bias_term=" << bias_term_;
    CAFFE_CHECK_EQ(this->blobs_[0]->count(), N_ * K_)
        << "InnerProduct layer " << name << ": weight shape "
        << this->blobs_[0]->shape_string() << " does not fit num_output "
        << N_ << " and input " << bottom[0]->shape_string();
    if (bias_term_) {
      CAFFE_CHECK_EQ(this->blobs_[1]->count(), N_)
          << "InnerProduct layer " << name << ": bias shape "
          << this->blobs_[1]->shape_string() << " does not fit num_output "
          << N_;
    }
  } else {
    this->blobs_.resize(expected_blobs);
    const vector<int> weight_shape =
        transpose_ ? vector<int>{K_, N_} : vector<int>{N_, K_};
    this->blobs_[0].reset(
        NewFilledBlob<Dtype>(weight_shape, p.weight_filler()));
    if (bias_term_) {
      this->blobs_[1].reset(
          NewFilledBlob<Dtype>(vector<int>{N_}, p.bias_filler()));
    }
  }
  this->param_propagate_down_.resize(this->blobs_.size(), true);
}

template <typename Dtype>
void InnerProductLayer<Dtype>::Reshape(const vector<Blob<Dtype>*>& bottom,
                                       const vector<Blob<Dtype>*>& top) {
  const InnerProductParameter& p = this->layer_param_.inner_product_param();
  axis_ = bottom[0]->CanonicalAxisIndex(p.axis());
  const int new_K = bottom[0]->count(axis_);
  CAFFE_CHECK_EQ(K_, new_K)
      << "InnerProduct layer " << this->layer_param_.name()
      << ": input size incompatible with the weights (input shape "
      << bottom[0]->shape_string() << ", weight shape "
      << this->blobs_[0]->shape_string() << ")";
  M_ = bottom[0]->count(0, axis_);
  vector<int> top_shape(bottom[0]->shape().begin(),
                        bottom[0]->shape().begin() + axis_);
  top_shape.push_back(N_);
  top[0]->Reshape(top_shape);
  if (bias_term_) {
    bias_multiplier_.Reshape(vector<int>{M_});
    caffe_set(M_, Dtype(1), bias_multiplier_.mutable_cpu_data());
  }
}

// One body for both devices (util/device_math.hpp).
template <typename Dtype>
void InnerProductLayer<Dtype>::ForwardOn(bool gpu,
                                         const vector<Blob<Dtype>*>& bottom,
                                         const vector<Blob<Dtype>*>& top) {
  const Dtype* bottom_data = DataOn(gpu, *bottom[0]);
  const Dtype* weight = DataOn(gpu, *this->blobs_[0]);
  Dtype* top_data = MutableDataOn(gpu, top[0]);
  // top (M x N) = bottom (M x K) * W^T, with W stored N x K (or K x N).
  GemmOn<Dtype>(gpu, CblasNoTrans, transpose_ ? CblasNoTrans : CblasTrans,
                M_, N_, K_, Dtype(1), bottom_data, weight, Dtype(0),
                top_data);
  if (bias_term_) {
    GemmOn<Dtype>(gpu, CblasNoTrans, CblasNoTrans, M_, N_, 1, Dtype(1),
                  DataOn(gpu, bias_multiplier_),
                  DataOn(gpu, *this->blobs_[1]), Dtype(1), top_data);
  }
}

template <typename Dtype>
void InnerProductLayer<Dtype>::BackwardOn(
    bool gpu, const vector<Blob<Dtype>*>& top,
    const vector<bool>& propagate_down, const vector<Blob<Dtype>*>& bottom) {
  const Dtype* top_diff = DiffOn(gpu, *top[0]);
  if (this->param_propagate_down(0)) {
    const Dtype* bottom_data = DataOn(gpu, *bottom[0]);
    Dtype* weight_diff = MutableDiffOn(gpu, this->blobs_[0].get());
    if (transpose_) {
      GemmOn<Dtype>(gpu, CblasTrans, CblasNoTrans, K_, N_, M_, Dtype(1),
                    bottom_data, top_diff, Dtype(1), weight_diff);
    } else {
      GemmOn<Dtype>(gpu, CblasTrans, CblasNoTrans, N_, K_, M_, Dtype(1),
                    top_diff, bottom_data, Dtype(1), weight_diff);
    }
  }
  if (bias_term_ && this->param_propagate_down(1)) {
    GemvOn<Dtype>(gpu, CblasTrans, M_, N_, Dtype(1), top_diff,
                  DataOn(gpu, bias_multiplier_), Dtype(1),
                  MutableDiffOn(gpu, this->blobs_[1].get()));
  }
  if (propagate_down[0]) {
    GemmOn<Dtype>(gpu, CblasNoTrans, transpose_ ? CblasTrans : CblasNoTrans,
                  M_, K_, N_, Dtype(1), top_diff,
                  DataOn(gpu, *this->blobs_[0]), Dtype(0),
                  MutableDiffOn(gpu, bottom[0]));
  }
}

DEFINE_CPU_BY_ON(InnerProductLayer);
DEFINE_GPU_BY_ON(InnerProductLayer);

INSTANTIATE_CLASS(InnerProductLayer);
REGISTER_LAYER_CLASS(InnerProduct);

}  // namespace caffe
