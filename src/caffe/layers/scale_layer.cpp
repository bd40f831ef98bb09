#include <memory>
#include <vector>

#include "caffe/filler.hpp"
#include "scale_compute.hpp"
#include "caffe/util/elementwise.hpp"

namespace caffe {

template <typename Dtype>
void ScaleLayer<Dtype>::LayerSetUp(const vector<Blob<Dtype>*>& bottom,
                                   const vector<Blob<Dtype>*>& top) {
  const ScaleParameter& param = this->layer_param_.scale_param();
  const string& name = this->layer_param_.name();
  if (bottom.size() == 1 && this->blobs_.empty()) {
    // The scale is learned: its shape is bottom[0]'s [axis, axis + num_axes).
    const int axis = bottom[0]->CanonicalAxisIndex(param.axis());
    const int num_axes = param.num_axes();
    CAFFE_CHECK_GE(num_axes, -1)
        << "Scale layer " << name << ": num_axes must be non-negative, or -1 "
        << "to extend to the end of bottom[0]";
    if (num_axes >= 0) {
      CAFFE_CHECK_GE(bottom[0]->num_axes(), axis + num_axes)
          << "Scale layer " << name << ": scale blob's shape extends past "
          << "bottom[0]'s shape " << bottom[0]->shape_string()
          << " when applied starting with bottom[0] axis = " << axis;
    }
    const vector<int>& shape = bottom[0]->shape();
    vector<int> scale_shape(shape.begin() + axis,
                            num_axes == -1 ? shape.end()
                                           : shape.begin() + axis + num_axes);
    this->blobs_.resize(1);
    this->blobs_[0].reset(new Blob<Dtype>(scale_shape));
    FillerParameter filler_param(param.filler());
    if (!param.has_filler()) {
      // Identity by default.
      filler_param.set_type("constant");
      filler_param.set_value(1);
    }
    std::unique_ptr<Filler<Dtype> > filler(GetFiller<Dtype>(filler_param));
    filler->Fill(this->blobs_[0].get());
  }
  if (param.bias_term()) {
    LayerParameter bias_param(this->layer_param_);
    bias_param.set_type("Bias");
    bias_param.clear_blobs();  // the bias blob, if stored, is wired in below
    bias_param.clear_loss_weight();
    BiasParameter* bp = bias_param.mutable_bias_param();
    bp->set_axis(param.axis());
    bp->set_num_axes(bottom.size() > 1 ? bottom[1]->num_axes()
                                       : param.num_axes());
    bp->mutable_filler()->CopyFrom(param.bias_filler());
    bias_layer_.reset(new BiasLayer<Dtype>(bias_param));
    bias_bottom_vec_.assign(1, bottom[0]);
    bias_layer_->SetUp(bias_bottom_vec_, top);
    if (this->blobs_.size() + bottom.size() < 3) {
      // No stored bias (1 bottom + scale blob, or 2 bottoms + nothing): share
      // the bias layer's freshly filled blob.
      bias_param_id_ = static_cast<int>(this->blobs_.size());
      this->blobs_.push_back(bias_layer_->blobs()[0]);
    } else {
      // The bias came with the stored blobs: it is the last one.
      bias_param_id_ = static_cast<int>(this->blobs_.size()) - 1;
      bias_layer_->blobs()[0] = this->blobs_[bias_param_id_];
    }
    bias_propagate_down_.assign(1, false);
  }
  this->param_propagate_down_.resize(this->blobs_.size(), true);
}

template <typename Dtype>
void ScaleLayer<Dtype>::Reshape(const vector<Blob<Dtype>*>& bottom,
                                const vector<Blob<Dtype>*>& top) {
  in_place_single_bottom_ = bottom.size() == 1 && bottom[0] == top[0];
  const string& name = this->layer_param_.name();
  const Blob<Dtype>* scale =
      (bottom.size() > 1) ? bottom[1] : this->blobs_[0].get();
  // A scalar scale is the same for any axis; axis 0 makes outer_dim_ 1.
  const int axis = (scale->num_axes() == 0)
                       ? 0
                       : bottom[0]->CanonicalAxisIndex(
                             this->layer_param_.scale_param().axis());
  CAFFE_CHECK_GE(bottom[0]->num_axes(), axis + scale->num_axes())
      << "Scale layer " << name << ": scale shape " << scale->shape_string()
      << " extends past bottom[0]'s shape " << bottom[0]->shape_string()
      << " when applied starting with bottom[0] axis = " << axis;
  for (int i = 0; i < scale->num_axes(); ++i) {
    CAFFE_CHECK_EQ(bottom[0]->shape(axis + i), scale->shape(i))
        << "Scale layer " << name << ": dimension mismatch between "
        << "bottom[0] " << bottom[0]->shape_string() << " axis " << axis + i
        << " and scale " << scale->shape_string() << " axis " << i;
  }
  outer_dim_ = bottom[0]->count(0, axis);
  scale_dim_ = scale->count();
  inner_dim_ = bottom[0]->count(axis + scale->num_axes());
  if (bottom[0] == top[0] && !borrowed_.empty()) {
    const Blob<Dtype>& lent = borrowed_.copy ? *borrowed_.copy
                                             : *borrowed_.input;
    CAFFE_CHECK_EQ(lent.count64(), bottom[0]->count64())
        << "Scale layer " << this->layer_param_.name()
        << ": the borrowed copy of the input does not match it";
    if (borrowed_.copy) {
      temp_.ReshapeLike(*bottom[0]);
      temp_.ShareData(*borrowed_.copy);
    } else {
      temp_.Reshape(vector<int>(1, 0));  // backward normalizes the input
    }
  } else if (bottom[0] == top[0] && this->backward_runs()) {
    temp_.ReshapeLike(*bottom[0]);
  } else {
    // Out of place, or in place with no backward to come: no copy.
    temp_.Reshape(vector<int>(1, 0));
    if (bottom[0] != top[0]) top[0]->ReshapeLike(*bottom[0]);
  }
  if (bias_layer_) {
    // The bias is added to the scaled output, in place.
    bias_bottom_vec_[0] = top[0];
    bias_layer_->Reshape(bias_bottom_vec_, top);
  }
}

template <typename Dtype>
void ScaleLayer<Dtype>::Forward_cpu(const vector<Blob<Dtype>*>& bottom,
    const vector<Blob<Dtype>*>& top) {
  ForwardWith(CpuLaunch(), bottom, top);
}

template <typename Dtype>
void ScaleLayer<Dtype>::Backward_cpu(const vector<Blob<Dtype>*>& top,
    const vector<bool>& propagate_down, const vector<Blob<Dtype>*>& bottom) {
  BackwardWith(CpuLaunch(), top, propagate_down, bottom);
}

INSTANTIATE_CLASS(ScaleLayer);
REGISTER_LAYER_CLASS(Scale);

}  // namespace caffe
