#include "caffe/layers/filter_layer.hpp"

#include <vector>

#include "caffe/util/device_math.hpp"

namespace caffe {

template <typename Dtype>
void FilterLayer<Dtype>::LayerSetUp(const vector<Blob<Dtype>*>& bottom,
                                    const vector<Blob<Dtype>*>& top) {
  CAFFE_CHECK_EQ(top.size(), bottom.size() - 1)
      << "Filter layer " << this->layer_param_.name()
      << " needs one top per data bottom (the last bottom is the selector)";
  first_reshape_ = true;
}

template <typename Dtype>
void FilterLayer<Dtype>::Reshape(const vector<Blob<Dtype>*>& bottom,
                                 const vector<Blob<Dtype>*>& top) {
  const string& name = this->layer_param_.name();
  const int sel = static_cast<int>(bottom.size()) - 1;
  const Blob<Dtype>& selector = *bottom[sel];
  CAFFE_CHECK_GE(selector.num_axes(), 1)
      << "Filter layer " << name << ": the selector (last bottom) needs an "
      << "item axis, but its shape is " << selector.shape_string();
  for (int i = 1; i < selector.num_axes(); ++i) {
    CAFFE_CHECK_EQ(selector.shape(i), 1)
        << "Filter layer " << name << ": the selector must hold one value "
        << "per item (all axes but the first of size 1), but its shape is "
        << selector.shape_string();
  }
  for (int i = 0; i < sel; ++i) {
    CAFFE_CHECK(bottom[i]->num_axes() >= 1 &&
                bottom[i]->shape(0) == selector.shape(0))
        << "Filter layer " << name << ": bottom " << i << " (shape "
        << bottom[i]->shape_string() << ") must have as many items as the "
        << "selector (shape " << selector.shape_string() << ")";
    CAFFE_CHECK(top[i] != bottom[i])
        << "Filter layer " << name << " does not allow in-place computation";
  }
  const Dtype* s = selector.cpu_data();
  indices_to_forward_.clear();
  for (int n = 0; n < selector.shape(0); ++n)
    if (s[n] != Dtype(0)) indices_to_forward_.push_back(n);
  // At SetUp the selector need not hold data yet; size for the whole batch.
  int new_num = static_cast<int>(indices_to_forward_.size());
  if (first_reshape_) {
    new_num = selector.shape(0);
    first_reshape_ = false;
  }
  for (int t = 0; t < sel; ++t) {
    vector<int> shape = bottom[t]->shape();
    shape[0] = new_num;
    top[t]->Reshape(shape);
  }
}

// One body for both devices (util/device_math.hpp): the items to pass
// were chosen on the host in Reshape, so each is one copy on either device.
template <typename Dtype>
void FilterLayer<Dtype>::ForwardOn(bool gpu,
                                   const vector<Blob<Dtype>*>& bottom,
                                   const vector<Blob<Dtype>*>& top) {
  for (size_t t = 0; t < top.size(); ++t) {
    const long dim = bottom[t]->count(1);
    const Dtype* src = DataOn(gpu, *bottom[t]);
    Dtype* dst = MutableDataOn(gpu, top[t]);
    for (size_t n = 0; n < indices_to_forward_.size(); ++n)
      CopyOn(gpu, dim, src + indices_to_forward_[n] * dim, dst + n * dim);
  }
}

template <typename Dtype>
void FilterLayer<Dtype>::BackwardOn(bool gpu, const vector<Blob<Dtype>*>& top,
                                    const vector<bool>& propagate_down,
                                    const vector<Blob<Dtype>*>& bottom) {
  const size_t sel = bottom.size() - 1;
  CAFFE_CHECK(!propagate_down[sel])
      << "Filter layer " << this->layer_param_.name()
      << " cannot backpropagate to the selector (bottom " << sel << ")";
  for (size_t t = 0; t < top.size(); ++t) {
    if (!propagate_down[t]) continue;
    // From the bottom, not the top: the top may hold no items at all.
    const long dim = bottom[t]->count(1);
    const Dtype* src = DiffOn(gpu, *top[t]);
    Dtype* dst = MutableDiffOn(gpu, bottom[t]);
    SetOn(gpu, bottom[t]->count(), Dtype(0), dst);
    for (size_t n = 0; n < indices_to_forward_.size(); ++n)
      CopyOn(gpu, dim, src + n * dim, dst + indices_to_forward_[n] * dim);
  }
}

DEFINE_CPU_BY_ON(FilterLayer);
DEFINE_GPU_BY_ON(FilterLayer);

INSTANTIATE_CLASS(FilterLayer);
REGISTER_LAYER_CLASS(Filter);

}  // namespace caffe
