#include "caffe/layers/argmax_layer.hpp"

#include <algorithm>
#include <functional>
#include <utility>
#include <vector>

namespace caffe {

template <typename Dtype>
void ArgMaxLayer<Dtype>::LayerSetUp(const vector<Blob<Dtype>*>& bottom,
                                    const vector<Blob<Dtype>*>& top) {
  const string& name = this->layer_param_.name();
  const ArgMaxParameter& p = this->layer_param_.argmax_param();
  out_max_val_ = p.out_max_val();
  top_k_ = static_cast<int>(p.top_k());
  has_axis_ = p.has_axis();
  CAFFE_CHECK_GE(top_k_, 1) << "ArgMax layer " << name
                            << ": top_k must be at least 1";
  if (has_axis_) {
    axis_ = bottom[0]->CanonicalAxisIndex(p.axis());
    CAFFE_CHECK_LE(top_k_, bottom[0]->shape(axis_))
        << "ArgMax layer " << name << ": top_k exceeds axis " << axis_
        << " of bottom " << bottom[0]->shape_string();
  } else {
    CAFFE_CHECK_LE(top_k_, bottom[0]->count(1))
        << "ArgMax layer " << name << ": top_k exceeds the size of one "
        << "sample of bottom " << bottom[0]->shape_string();
  }
}

template <typename Dtype>
void ArgMaxLayer<Dtype>::Reshape(const vector<Blob<Dtype>*>& bottom,
                                 const vector<Blob<Dtype>*>& top) {
  vector<int> shape;
  if (has_axis_) {
    axis_ = bottom[0]->CanonicalAxisIndex(
        this->layer_param_.argmax_param().axis());
    CAFFE_CHECK_LE(top_k_, bottom[0]->shape(axis_))
        << "ArgMax layer " << this->layer_param_.name()
        << ": top_k exceeds axis " << axis_ << " of bottom "
        << bottom[0]->shape_string();
    shape = bottom[0]->shape();
    shape[axis_] = top_k_;
  } else {
    CAFFE_CHECK_LE(top_k_, bottom[0]->count(1))
        << "ArgMax layer " << this->layer_param_.name()
        << ": top_k exceeds the size of one sample of bottom "
        << bottom[0]->shape_string();
    shape.assign(std::max(bottom[0]->num_axes(), 3), 1);
    shape[0] = bottom[0]->shape(0);
    shape[1] = out_max_val_ ? 2 : 1;
    shape[2] = top_k_;
  }
  top[0]->Reshape(shape);
}

template <typename Dtype>
void ArgMaxLayer<Dtype>::Forward_cpu(const vector<Blob<Dtype>*>& bottom,
                                     const vector<Blob<Dtype>*>& top) {
  const Dtype* bottom_data = bottom[0]->cpu_data();
  Dtype* top_data = top[0]->mutable_cpu_data();
  // dim: entries searched; stride: distance between them in memory.
  const int dim = has_axis_ ? bottom[0]->shape(axis_) : bottom[0]->count(1);
  const int stride = has_axis_ ? bottom[0]->count(axis_ + 1) : 1;
  const int num = dim > 0 ? bottom[0]->count() / dim : 0;
  vector<std::pair<Dtype, int> > entries(dim);
  for (int i = 0; i < num; ++i) {
    const int outer = i / stride, inner = i % stride;
    for (int j = 0; j < dim; ++j)
      entries[j] = std::make_pair(
          bottom_data[(outer * dim + j) * stride + inner], j);
    // Comparing (value, index) pairs sends ties to the larger index.
    std::partial_sort(entries.begin(), entries.begin() + top_k_,
                      entries.end(), std::greater<std::pair<Dtype, int> >());
    for (int j = 0; j < top_k_; ++j) {
      if (has_axis_) {
        top_data[(outer * top_k_ + j) * stride + inner] =
            out_max_val_ ? entries[j].first : Dtype(entries[j].second);
      } else {
        top_data[i * top_k_ * (out_max_val_ ? 2 : 1) + j] = entries[j].second;
        if (out_max_val_)
          top_data[2 * i * top_k_ + top_k_ + j] = entries[j].first;
      }
    }
  }
}

template <typename Dtype>
void ArgMaxLayer<Dtype>::Backward_cpu(const vector<Blob<Dtype>*>& top,
                                      const vector<bool>& propagate_down,
                                      const vector<Blob<Dtype>*>& bottom) {
  CAFFE_THROW() << "ArgMax layer " << this->layer_param_.name()
                << " has no backward pass (indices are not differentiable)";
}

INSTANTIATE_CLASS(ArgMaxLayer);
REGISTER_LAYER_CLASS(ArgMax);

}  // namespace caffe
