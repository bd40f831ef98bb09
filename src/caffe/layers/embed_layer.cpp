#include "caffe/layers/embed_layer.hpp"

#include <vector>

#include "caffe/filler.hpp"
#include "caffe/util/elementwise.hpp"
#include "embed_compute.hpp"

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
  indices_.Reshape(vector<int>(1, M_));
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
void EmbedLayer<Dtype>::CheckIndices(const Blob<Dtype>& bottom) {
  int* indices = indices_.mutable_cpu_data();
  for (int m = 0; m < M_; ++m) indices[m] = IndexAt(bottom, m);
}

DEFINE_CPU_BY_LAUNCH_POLICY(EmbedLayer);

INSTANTIATE_CLASS(EmbedLayer);
REGISTER_LAYER_CLASS(Embed);

}  // namespace caffe
