#include "caffe/layers/accuracy_layer.hpp"

#include <vector>

#include "caffe/util/math_functions.hpp"

namespace caffe {

template <typename Dtype>
void AccuracyLayer<Dtype>::LayerSetUp(const vector<Blob<Dtype>*>& bottom,
                                      const vector<Blob<Dtype>*>& top) {
  const AccuracyParameter& p = this->layer_param_.accuracy_param();
  top_k_ = static_cast<int>(p.top_k());
  CAFFE_CHECK_GE(top_k_, 1) << "Accuracy layer " << this->layer_param_.name()
                            << ": top_k must be at least 1";
  has_ignore_label_ = p.has_ignore_label();
  if (has_ignore_label_) ignore_label_ = p.ignore_label();
}

template <typename Dtype>
void AccuracyLayer<Dtype>::Reshape(const vector<Blob<Dtype>*>& bottom,
                                   const vector<Blob<Dtype>*>& top) {
  const string& name = this->layer_param_.name();
  label_axis_ = bottom[0]->CanonicalAxisIndex(
      this->layer_param_.accuracy_param().axis());
  outer_num_ = bottom[0]->count(0, label_axis_);
  inner_num_ = bottom[0]->count(label_axis_ + 1);
  const int num_labels = bottom[0]->shape(label_axis_);
  CAFFE_CHECK_EQ(outer_num_ * inner_num_, bottom[1]->count())
      << "Accuracy layer " << name << ": the number of labels must match the "
      << "number of predictions; with label axis " << label_axis_
      << " and prediction shape " << bottom[0]->shape_string()
      << " the label blob must hold " << outer_num_ * inner_num_
      << " labels, but its shape is " << bottom[1]->shape_string();
  CAFFE_CHECK_LE(top_k_, num_labels)
      << "Accuracy layer " << name << ": top_k must not exceed the number "
      << "of classes (prediction shape " << bottom[0]->shape_string() << ")";
  top[0]->Reshape(vector<int>());
  if (top.size() > 1) top[1]->Reshape(vector<int>{num_labels});
}

template <typename Dtype>
void AccuracyLayer<Dtype>::Forward_cpu(const vector<Blob<Dtype>*>& bottom,
                                       const vector<Blob<Dtype>*>& top) {
  const Dtype* scores = bottom[0]->cpu_data();
  const Dtype* label = bottom[1]->cpu_data();
  const int num_labels = bottom[0]->shape(label_axis_);
  const int dim = num_labels * inner_num_;
  const bool per_class = top.size() > 1;
  vector<int> class_total(num_labels, 0), class_hits(num_labels, 0);
  int count = 0, hits = 0;
  for (int i = 0; i < outer_num_; ++i) {
    for (int j = 0; j < inner_num_; ++j) {
      const int label_value = static_cast<int>(label[i * inner_num_ + j]);
      if (has_ignore_label_ && label_value == ignore_label_) continue;
      CAFFE_CHECK(label_value >= 0 && label_value < num_labels)
          << "Accuracy layer " << this->layer_param_.name() << ": label "
          << label_value << " at position " << i * inner_num_ + j
          << " is outside [0, " << num_labels << ")";
      const Dtype true_score = scores[i * dim + label_value * inner_num_ + j];
      // Classes scoring at least as high as the true one, itself excluded.
      int better = -1;
      for (int k = 0; k < num_labels && better < top_k_; ++k)
        better += scores[i * dim + k * inner_num_ + j] >= true_score;
      ++class_total[label_value];
      if (better < top_k_) {
        ++hits;
        ++class_hits[label_value];
      }
      ++count;
    }
  }
  top[0]->mutable_cpu_data()[0] = count == 0 ? Dtype(0) : Dtype(hits) / count;
  if (per_class) {
    Dtype* per_class_data = top[1]->mutable_cpu_data();
    for (int c = 0; c < num_labels; ++c)
      per_class_data[c] = class_total[c] == 0
                              ? Dtype(0)
                              : Dtype(class_hits[c]) / class_total[c];
  }
}

template <typename Dtype>
void AccuracyLayer<Dtype>::Backward_cpu(const vector<Blob<Dtype>*>& top,
                                        const vector<bool>& propagate_down,
                                        const vector<Blob<Dtype>*>& bottom) {
  for (size_t i = 0; i < propagate_down.size(); ++i) {
    CAFFE_CHECK(!propagate_down[i])
        << "Accuracy layer " << this->layer_param_.name()
        << " has no backward pass (bottom " << i << ")";
  }
}

INSTANTIATE_CLASS(AccuracyLayer);
REGISTER_LAYER_CLASS(Accuracy);

}  // namespace caffe
