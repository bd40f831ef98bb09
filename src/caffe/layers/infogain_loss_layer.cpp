#include "caffe/layers/infogain_loss_layer.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "caffe/util/io.hpp"
#include "caffe/util/math_functions.hpp"

namespace caffe {

template <typename Dtype>
void InfogainLossLayer<Dtype>::LayerSetUp(const vector<Blob<Dtype>*>& bottom,
                                          const vector<Blob<Dtype>*>& top) {
  LossLayer<Dtype>::LayerSetUp(bottom, top);
  const string& name = this->layer_param_.name();
  const InfogainLossParameter& ip = this->layer_param_.infogain_loss_param();
  prob_top_ = top.size() >= 2;

  // The inner softmax sees only the axis: no loss weights, blobs or names.
  LayerParameter softmax_param;
  softmax_param.set_name(name + "/softmax");
  softmax_param.set_type("Softmax");
  softmax_param.mutable_softmax_param()->set_axis(ip.axis());
  softmax_layer_.reset(new SoftmaxLayer<Dtype>(softmax_param));
  softmax_bottom_vec_.assign(1, bottom[0]);
  softmax_top_vec_.assign(1, &prob_);
  softmax_layer_->SetUp(softmax_bottom_vec_, softmax_top_vec_);

  const LossParameter& lp = this->layer_param_.loss_param();
  has_ignore_label_ = lp.has_ignore_label();
  if (has_ignore_label_) ignore_label_ = lp.ignore_label();
  normalization_ = LossLayer<Dtype>::ResolveNormalization(
      lp, LossParameter_NormalizationMode_VALID);

  infogain_.clear();
  if (bottom.size() < 3) {
    CAFFE_CHECK(ip.has_source())
        << "InfogainLoss layer " << name << ": the infogain matrix must be "
        << "given as infogain_loss_param.source or as a third bottom";
    BlobProto proto;
    string error;
    CAFFE_CHECK(ReadProtoFromBinaryFile(ip.source(), &proto, &error))
        << "InfogainLoss layer " << name << ": cannot read the infogain "
        << "matrix from '" << ip.source() << "': " << error;
    Blob<Dtype> h;
    h.FromProto(proto);
    infogain_.assign(h.cpu_data(), h.cpu_data() + h.count());
  }
}

template <typename Dtype>
void InfogainLossLayer<Dtype>::Reshape(const vector<Blob<Dtype>*>& bottom,
                                       const vector<Blob<Dtype>*>& top) {
  LossLayer<Dtype>::Reshape(bottom, top);
  const string& name = this->layer_param_.name();
  softmax_bottom_vec_.assign(1, bottom[0]);
  softmax_layer_->Reshape(softmax_bottom_vec_, softmax_top_vec_);
  axis_ = bottom[0]->CanonicalAxisIndex(
      this->layer_param_.infogain_loss_param().axis());
  outer_num_ = bottom[0]->count(0, axis_);
  inner_num_ = bottom[0]->count(axis_ + 1);
  num_labels_ = bottom[0]->shape(axis_);
  CAFFE_CHECK_EQ(outer_num_ * inner_num_, bottom[1]->count())
      << "InfogainLoss layer " << name << ": the number of labels must "
      << "match the number of predictions; with axis " << axis_
      << " and prediction shape " << bottom[0]->shape_string()
      << " the label blob must hold " << outer_num_ * inner_num_
      << " labels, but its shape is " << bottom[1]->shape_string();
  const int h_count = bottom.size() >= 3
                          ? bottom[2]->count()
                          : static_cast<int>(infogain_.size());
  CAFFE_CHECK_EQ(h_count, num_labels_ * num_labels_)
      << "InfogainLoss layer " << name << ": the infogain matrix must be "
      << num_labels_ << " x " << num_labels_ << " for prediction shape "
      << bottom[0]->shape_string() << " (axis " << axis_ << "), but it has "
      << h_count << " elements"
      << (bottom.size() >= 3 ? " (bottom 2: " + bottom[2]->shape_string() + ")"
                             : string(""));
  labels_.resize(outer_num_ * inner_num_);
  sum_rows_H_.resize(num_labels_);
  prob_top_ = top.size() >= 2;
  if (prob_top_) {
    top[1]->ReshapeLike(*bottom[0]);
    top[1]->ShareData(prob_);
  }
}

template <typename Dtype>
void InfogainLossLayer<Dtype>::Forward_cpu(const vector<Blob<Dtype>*>& bottom,
                                           const vector<Blob<Dtype>*>& top) {
  softmax_layer_->Forward(softmax_bottom_vec_, softmax_top_vec_);
  if (bottom.size() >= 3) {
    infogain_.assign(bottom[2]->cpu_data(),
                     bottom[2]->cpu_data() + bottom[2]->count());
  }
  const int K = num_labels_;
  for (int r = 0; r < K; ++r) {
    Dtype s = 0;
    for (int c = 0; c < K; ++c) s += infogain_[r * K + c];
    sum_rows_H_[r] = s;
  }
  const Dtype* prob = prob_.cpu_data();
  const Dtype* label = bottom[1]->cpu_data();
  const int dim = K * inner_num_;
  int count = 0;
  Dtype loss = 0;
  for (int i = 0; i < outer_num_; ++i) {
    for (int j = 0; j < inner_num_; ++j) {
      const int l = static_cast<int>(label[i * inner_num_ + j]);
      labels_[i * inner_num_ + j] = l;
      if (has_ignore_label_ && l == ignore_label_) continue;
      CAFFE_CHECK(l >= 0 && l < K)
          << "InfogainLoss layer " << this->layer_param_.name()
          << ": label " << l << " at position " << i * inner_num_ + j
          << " is outside [0, " << K << ")";
      for (int k = 0; k < K; ++k) {
        const Dtype p = std::max(prob[i * dim + k * inner_num_ + j],
                                 Dtype(kLOG_THRESHOLD));
        loss -= infogain_[l * K + k] * std::log(p);
      }
      ++count;
    }
  }
  valid_count_ = count;
  top[0]->mutable_cpu_data()[0] =
      loss / LossLayer<Dtype>::GetNormalizer(normalization_, outer_num_,
                                             inner_num_, count);
}

template <typename Dtype>
void InfogainLossLayer<Dtype>::Backward_cpu(
    const vector<Blob<Dtype>*>& top, const vector<bool>& propagate_down,
    const vector<Blob<Dtype>*>& bottom) {
  for (size_t b = 1; b < propagate_down.size(); ++b) {
    CAFFE_CHECK(!propagate_down[b])
        << "InfogainLoss layer " << this->layer_param_.name()
        << " cannot backpropagate to "
        << (b == 1 ? "label inputs" : "the infogain matrix");
  }
  if (!propagate_down[0]) return;
  const Dtype* prob = prob_.cpu_data();
  Dtype* diff = bottom[0]->mutable_cpu_diff();
  const int K = num_labels_;
  const int dim = K * inner_num_;
  for (int i = 0; i < outer_num_; ++i) {
    for (int j = 0; j < inner_num_; ++j) {
      const int l = labels_[i * inner_num_ + j];
      const bool ignored = has_ignore_label_ && l == ignore_label_;
      for (int k = 0; k < K; ++k) {
        const int at = i * dim + k * inner_num_ + j;
        diff[at] = ignored ? Dtype(0)
                           : prob[at] * sum_rows_H_[l] - infogain_[l * K + k];
      }
    }
  }
  const Dtype scale =
      top[0]->cpu_diff()[0] /
      LossLayer<Dtype>::GetNormalizer(normalization_, outer_num_, inner_num_,
                                      valid_count_);
  caffe_scal(bottom[0]->count(), scale, diff);
}

INSTANTIATE_CLASS(InfogainLossLayer);
REGISTER_LAYER_CLASS(InfogainLoss);

}  // namespace caffe
