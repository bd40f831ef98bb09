#include "caffe/layers/infogain_loss_layer.hpp"

#include <vector>

#include "caffe/util/io.hpp"
#include "caffe/util/elementwise.hpp"
#include "infogain_loss_compute.hpp"

namespace caffe {

template <typename Dtype>
void InfogainLossLayer<Dtype>::LayerSetUp(const vector<Blob<Dtype>*>& bottom,
                                          const vector<Blob<Dtype>*>& top) {
  SoftmaxLabelLossLayer<Dtype>::LayerSetUp(bottom, top);
  const string& name = this->layer_param_.name();
  const InfogainLossParameter& ip = this->layer_param_.infogain_loss_param();

  infogain_.Reshape(vector<int>(1, 0));
  if (bottom.size() < 3) {
    CAFFE_CHECK(ip.has_source())
        << "InfogainLoss layer " << name << ": the infogain matrix must be "
        << "given as infogain_loss_param.source or as a third bottom";
    BlobProto proto;
    string error;
    CAFFE_CHECK(ReadProtoFromBinaryFile(ip.source(), &proto, &error))
        << "InfogainLoss layer " << name << ": cannot read the infogain "
        << "matrix from '" << ip.source() << "': " << error;
    infogain_.FromProto(proto);
  }
}

template <typename Dtype>
void InfogainLossLayer<Dtype>::Reshape(const vector<Blob<Dtype>*>& bottom,
                                       const vector<Blob<Dtype>*>& top) {
  SoftmaxLabelLossLayer<Dtype>::Reshape(bottom, top);
  const int K = this->num_classes_;
  const int h_count = bottom.size() >= 3
                          ? bottom[2]->count()
                          : infogain_.count();
  CAFFE_CHECK_EQ(h_count, K * K)
      << "InfogainLoss layer " << this->layer_param_.name()
      << ": the infogain matrix must be " << K << " x " << K
      << " for prediction shape " << bottom[0]->shape_string() << " (axis "
      << this->axis_ << "), but it has " << h_count << " elements"
      << (bottom.size() >= 3 ? " (bottom 2: " + bottom[2]->shape_string() + ")"
                             : string(""));
  sum_rows_H_.Reshape(vector<int>(1, K));
}

DEFINE_CPU_BY_LAUNCH_POLICY(InfogainLossLayer);

INSTANTIATE_CLASS(InfogainLossLayer);
REGISTER_LAYER_CLASS(InfogainLoss);

}  // namespace caffe
