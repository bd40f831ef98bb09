#include "caffe/layers/embed_layer.hpp"

#include <vector>

#include "caffe/filler.hpp"
#include "caffe/util/math_functions.hpp"

namespace caffe {

template <typename Dtype>
void EmbedLayer<Dtype>::LayerSetUp(const vector<Blob<Dtype>*>& bottom,
                                   const vector<Blob<Dtype>*>& top) {
  const EmbedParameter& p = this->layer_param_.embed_param();
  const string& name = this->layer_param_.name();
  CAFFE_CHECK_GT(static_cast<int>(p.num_output()), 0)
      << "Embed layer " << name << ": num_output must be positive";
  CAFFE_CHECK_GT(static_cast<int>(p.input_dim()), 0)
      << "Embed layer " << name << ": input_dim must be positive";
  N_ = static_cast<int>(p.num_output());
  K_ = static_cast<int>(p.input_dim());
  bias_term_ = p.bias_term();
  const int expected_blobs = bias_term_ ? 2 : 1;
  const vector<int> weight_shape{K_, N_};
  if (!this->blobs_.empty()) {
    // Weights came with the layer (a model file): check they fit.
    CAFFE_CHECK_EQ(static_cast<int>(this->blobs_.size()), expected_blobs)
        << "Embed layer " << name << " has the wrong number of blobs for "
        << "bias_term=" << bias_term_;
    CAFFE_CHECK(this->blobs_[0]->shape() == weight_shape)
        << "Embed layer " << name << ": weight shape "
        << this->blobs_[0]->shape_string() << " does not fit input_dim "
        << K_ << " x num_output " << N_;
    if (bias_term_) {
      CAFFE_CHECK_EQ(this->blobs_[1]->count(), N_)
          << "Embed layer " << name << ": bias shape "
          << this->blobs_[1]->shape_string() << " does not fit num_output "
          << N_;
    }
  } else {
    this->blobs_.resize(expected_blobs);
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
void EmbedLayer<Dtype>::Reshape(const vector<Blob<Dtype>*>& bottom,
                                const vector<Blob<Dtype>*>& top) {
  M_ = bottom[0]->count();
  vector<int> top_shape = bottom[0]->shape();
  top_shape.push_back(N_);
  top[0]->Reshape(top_shape);
}

template <typename Dtype>
int EmbedLayer<Dtype>::IndexAt(const Blob<Dtype>& bottom, int i) const {
  const Dtype value = bottom.cpu_data()[i];
  // Compare as Dtype first: a huge or NaN value must not reach the int cast.
  CAFFE_CHECK(value >= Dtype(0) && value < Dtype(K_))
      << "Embed layer " << this->layer_param_.name() << ": index " << value
      << " at position " << i << " of bottom " << bottom.shape_string()
      << " is outside [0, input_dim = " << K_ << ")";
  const int index = static_cast<int>(value);
  CAFFE_CHECK(static_cast<Dtype>(index) == value)
      << "Embed layer " << this->layer_param_.name() << ": index " << value
      << " at position " << i << " of bottom " << bottom.shape_string()
      << " is not an integer";
  return index;
}

template <typename Dtype>
void EmbedLayer<Dtype>::Forward_cpu(const vector<Blob<Dtype>*>& bottom,
                                    const vector<Blob<Dtype>*>& top) {
  const Dtype* weight = this->blobs_[0]->cpu_data();
  Dtype* top_data = top[0]->mutable_cpu_data();
  for (int m = 0; m < M_; ++m) {
    const int index = IndexAt(*bottom[0], m);
    caffe_copy(N_, weight + index * N_, top_data + m * N_);
  }
  if (bias_term_) {
    const Dtype* bias = this->blobs_[1]->cpu_data();
    for (int m = 0; m < M_; ++m)
      caffe_axpy<Dtype>(N_, Dtype(1), bias, top_data + m * N_);
  }
}

template <typename Dtype>
void EmbedLayer<Dtype>::Backward_cpu(const vector<Blob<Dtype>*>& top,
                                     const vector<bool>& propagate_down,
                                     const vector<Blob<Dtype>*>& bottom) {
  CAFFE_CHECK(!propagate_down[0])
      << "Embed layer " << this->layer_param_.name()
      << ": cannot backpropagate to the index input";
  const Dtype* top_diff = top[0]->cpu_diff();
  if (this->param_propagate_down(0)) {
    // Rows accumulate: the same index may occur several times.
    Dtype* weight_diff = this->blobs_[0]->mutable_cpu_diff();
    for (int m = 0; m < M_; ++m) {
      const int index = IndexAt(*bottom[0], m);
      caffe_axpy<Dtype>(N_, Dtype(1), top_diff + m * N_,
                        weight_diff + index * N_);
    }
  }
  if (bias_term_ && this->param_propagate_down(1)) {
    Dtype* bias_diff = this->blobs_[1]->mutable_cpu_diff();
    for (int m = 0; m < M_; ++m)
      caffe_axpy<Dtype>(N_, Dtype(1), top_diff + m * N_, bias_diff);
  }
}

INSTANTIATE_CLASS(EmbedLayer);
REGISTER_LAYER_CLASS(Embed);

}  // namespace caffe
