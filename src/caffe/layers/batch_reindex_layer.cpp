#include "caffe/layers/batch_reindex_layer.hpp"

#include <vector>

#include "caffe/util/device_math.hpp"

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

// One body for both devices (util/device_math.hpp): the indices are read
// and checked on the host (a handful of numbers), each item is one copy,
// and backward adds the items in the CPU's order on either device.
template <typename Dtype>
void BatchReindexLayer<Dtype>::ForwardOn(bool gpu,
                                         const vector<Blob<Dtype>*>& bottom,
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
  const long inner = bottom[0]->count(1);
  const Dtype* src = DataOn(gpu, *bottom[0]);
  Dtype* dst = MutableDataOn(gpu, top[0]);
  for (size_t m = 0; m < indices_.size(); ++m)
    CopyOn(gpu, inner, src + indices_[m] * inner, dst + m * inner);
}

template <typename Dtype>
void BatchReindexLayer<Dtype>::BackwardOn(
    bool gpu, const vector<Blob<Dtype>*>& top,
    const vector<bool>& propagate_down, const vector<Blob<Dtype>*>& bottom) {
  CAFFE_CHECK(!propagate_down[1])
      << "BatchReindex layer " << this->layer_param_.name()
      << " cannot backpropagate to the index input";
  if (!propagate_down[0]) return;
  const long inner = bottom[0]->count(1);
  const Dtype* src = DiffOn(gpu, *top[0]);
  Dtype* dst = MutableDiffOn(gpu, bottom[0]);
  SetOn(gpu, bottom[0]->count(), Dtype(0), dst);
  for (size_t m = 0; m < indices_.size(); ++m)
    AxpyOn(gpu, inner, Dtype(1), src + m * inner, dst + indices_[m] * inner);
}

DEFINE_CPU_BY_ON(BatchReindexLayer);
DEFINE_GPU_BY_ON(BatchReindexLayer);

INSTANTIATE_CLASS(BatchReindexLayer);
REGISTER_LAYER_CLASS(BatchReindex);

}  // namespace caffe
