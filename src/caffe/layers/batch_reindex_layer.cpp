#include "caffe/layers/batch_reindex_layer.hpp"

#include <vector>

#include "caffe/util/math_functions.hpp"

namespace caffe {

template <typename Dtype>
void BatchReindexLayer<Dtype>::Reshape(const vector<Blob<Dtype>*>& bottom,
                                       const vector<Blob<Dtype>*>& top) {
  const string& name = this->layer_param_.name();
  CAFFE_CHECK_EQ(bottom[1]->num_axes(), 1)
      << "BatchReindex layer " << name << ": the index blob must have one "
      << "axis, but its shape is " << bottom[1]->shape_string();
  CAFFE_CHECK_GE(bottom[0]->num_axes(), 1)
      << "BatchReindex layer " << name << ": the data blob needs a batch "
      << "axis, but its shape is " << bottom[0]->shape_string();
  vector<int> top_shape = bottom[0]->shape();
  top_shape[0] = bottom[1]->shape(0);
  top[0]->Reshape(top_shape);
  indices_.resize(bottom[1]->count());
}

template <typename Dtype>
void BatchReindexLayer<Dtype>::Forward_cpu(const vector<Blob<Dtype>*>& bottom,
                                           const vector<Blob<Dtype>*>& top) {
  const int batch = bottom[0]->shape(0);
  const Dtype* idx = bottom[1]->cpu_data();
  for (size_t m = 0; m < indices_.size(); ++m) {
    const Dtype v = idx[m];
    // Caffe truncates a fractional index; only the range is checked.
    CAFFE_CHECK(v >= 0 && v < batch)
        << "BatchReindex layer " << this->layer_param_.name() << ": index "
        << v << " at position " << m << " is not an item of the batch "
        << "(data shape " << bottom[0]->shape_string() << ")";
    indices_[m] = static_cast<int>(v);
  }
  const int inner = bottom[0]->count(1);
  const Dtype* src = bottom[0]->cpu_data();
  Dtype* dst = top[0]->mutable_cpu_data();
  for (size_t m = 0; m < indices_.size(); ++m)
    caffe_copy(inner, src + indices_[m] * inner, dst + m * inner);
}

template <typename Dtype>
void BatchReindexLayer<Dtype>::Backward_cpu(
    const vector<Blob<Dtype>*>& top, const vector<bool>& propagate_down,
    const vector<Blob<Dtype>*>& bottom) {
  CAFFE_CHECK(!propagate_down[1])
      << "BatchReindex layer " << this->layer_param_.name()
      << " cannot backpropagate to the index input";
  if (!propagate_down[0]) return;
  const int inner = bottom[0]->count(1);
  const Dtype* src = top[0]->cpu_diff();
  Dtype* dst = bottom[0]->mutable_cpu_diff();
  caffe_set(bottom[0]->count(), Dtype(0), dst);
  for (size_t m = 0; m < indices_.size(); ++m)
    caffe_axpy(inner, Dtype(1), src + m * inner, dst + indices_[m] * inner);
}

INSTANTIATE_CLASS(BatchReindexLayer);
REGISTER_LAYER_CLASS(BatchReindex);

}  // namespace caffe
