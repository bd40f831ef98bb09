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
  SoftmaxLabelLossLayer<Dtype>::LayerSetUp(bottom, top);
  const string& name = this->layer_param_.name();
  const InfogainLossParameter& ip = this->layer_param_.infogain_loss_param();

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
  SoftmaxLabelLossLayer<Dtype>::Reshape(bottom, top);
  const int K = this->num_classes_;
  const int h_count = bottom.size() >= 3
                          ? bottom[2]->count()
                          : static_cast<int>(infogain_.size());
  CAFFE_CHECK_EQ(h_count, K * K)
      << "InfogainLoss layer " << this->layer_param_.name()
      << ": the infogain matrix must be " << K << " x " << K
      << " for prediction shape " << bottom[0]->shape_string() << " (axis "
      << this->axis_ << "), but it has " << h_count << " elements"
      << (bottom.size() >= 3 ? " (bottom 2: " + bottom[2]->shape_string() + ")"
                             : string(""));
  sum_rows_H_.resize(K);
}

template <typename Dtype>
void InfogainLossLayer<Dtype>::Forward_cpu(const vector<Blob<Dtype>*>& bottom,
                                           const vector<Blob<Dtype>*>& top) {
  this->ForwardSoftmaxAndLabels(*bottom[1]);
  if (bottom.size() >= 3) {
    infogain_.assign(bottom[2]->cpu_data(),
                     bottom[2]->cpu_data() + bottom[2]->count());
  }
  const int K = this->num_classes_;
  for (int r = 0; r < K; ++r) {
    Dtype s = 0;
    for (int c = 0; c < K; ++c) s += infogain_[r * K + c];
    sum_rows_H_[r] = s;
  }
  const Dtype* prob = this->prob_.cpu_data();
  const int inner_num = this->inner_num_;
  const int dim = K * inner_num;
  Dtype loss = 0;
  for (int i = 0; i < this->outer_num_; ++i) {
    for (int j = 0; j < inner_num; ++j) {
      const int l = this->labels_.cpu_data()[i * inner_num + j];
      if (this->ignored(l)) continue;
      for (int k = 0; k < K; ++k) {
        const Dtype p = std::max(prob[i * dim + k * inner_num + j],
                                 Dtype(kLOG_THRESHOLD));
        loss -= infogain_[l * K + k] * std::log(p);
      }
    }
  }
  top[0]->mutable_cpu_data()[0] = loss / this->normalizer();
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
  const Dtype* prob = this->prob_.cpu_data();
  Dtype* diff = bottom[0]->mutable_cpu_diff();
  const int K = this->num_classes_;
  const int inner_num = this->inner_num_;
  const int dim = K * inner_num;
  for (int i = 0; i < this->outer_num_; ++i) {
    for (int j = 0; j < inner_num; ++j) {
      const int l = this->labels_.cpu_data()[i * inner_num + j];
      const bool skip = this->ignored(l);
      for (int k = 0; k < K; ++k) {
        const int at = i * dim + k * inner_num + j;
        diff[at] = skip ? Dtype(0)
                        : prob[at] * sum_rows_H_[l] - infogain_[l * K + k];
      }
    }
  }
  const Dtype scale = top[0]->cpu_diff()[0] / this->normalizer();
  caffe_scal(bottom[0]->count(), scale, diff);
}

INSTANTIATE_CLASS(InfogainLossLayer);
REGISTER_LAYER_CLASS(InfogainLoss);

}  // namespace caffe
