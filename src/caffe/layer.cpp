#include "caffe/layer.hpp"

#include <climits>
#include <string>

namespace caffe {

template <typename Dtype>
Layer<Dtype>::Layer(const LayerParameter& param) : layer_param_(param) {
  phase_ = param.phase();
  if (layer_param_.blobs_size() > 0) {
    blobs_.resize(layer_param_.blobs_size());
    for (int i = 0; i < layer_param_.blobs_size(); ++i) {
      blobs_[i].reset(new Blob<Dtype>());
      blobs_[i]->FromProto(layer_param_.blobs(i));
    }
  }
}

template <typename Dtype>
void Layer<Dtype>::SetUp(const vector<Blob<Dtype>*>& bottom,
                         const vector<Blob<Dtype>*>& top) {
  CheckBlobCounts(bottom, top);
  CheckCountsFit(bottom, {});  // before LayerSetUp reads the bottoms
  LayerSetUp(bottom, top);
  Reshape(bottom, top);
  CheckCountsFit(bottom, top);
  SetLossWeights(top);
}

template <typename Dtype>
void Layer<Dtype>::CheckCountsFit(const vector<Blob<Dtype>*>& bottom,
                                  const vector<Blob<Dtype>*>& top) const {
  auto check = [this](const vector<Blob<Dtype>*>& blobs, bool is_top) {
    for (size_t i = 0; i < blobs.size(); ++i) {
      if (blobs[i]->count64() <= INT_MAX) continue;
      if (Memory().counts_over_int_max) return;
      const auto& names = is_top ? layer_param_.top() : layer_param_.bottom();
      const string name = static_cast<int>(i) < names.size()
                              ? "'" + names[static_cast<int>(i)] + "'"
                              : "#" + std::to_string(i);
      CAFFE_THROW() << (is_top ? "top " : "bottom ") << name << " ("
                    << blobs[i]->shape_string()
                    << ") holds more than INT_MAX elements, and layers of "
                    << "type " << type() << " count in 32 bits; the types "
                    << "that handle such blobs are listed in docs/gpu.md "
                    << "(\"Blobs over 2^31 elements\"): a smaller batch fits";
    }
  };
  check(bottom, false);
  check(top, true);
}

template <typename Dtype>
void Layer<Dtype>::ToProto(LayerParameter* param, bool write_diff) {
  param->Clear();
  param->CopyFrom(layer_param_);
  param->clear_blobs();
  for (size_t i = 0; i < blobs_.size(); ++i)
    blobs_[i]->ToProto(param->add_blobs(), write_diff);
}

template <typename Dtype>
void Layer<Dtype>::CheckBlobCounts(const vector<Blob<Dtype>*>& bottom,
                                   const vector<Blob<Dtype>*>& top) {
  const int nb = static_cast<int>(bottom.size());
  const int nt = static_cast<int>(top.size());
  if (ExactNumBottomBlobs() >= 0)
    CAFFE_CHECK_EQ(ExactNumBottomBlobs(), nb)
        << type() << " layer takes " << ExactNumBottomBlobs()
        << " bottom blob(s) as input.";
  if (MinBottomBlobs() >= 0)
    CAFFE_CHECK_LE(MinBottomBlobs(), nb)
        << type() << " layer takes at least " << MinBottomBlobs()
        << " bottom blob(s) as input.";
  if (MaxBottomBlobs() >= 0)
    CAFFE_CHECK_GE(MaxBottomBlobs(), nb)
        << type() << " layer takes at most " << MaxBottomBlobs()
        << " bottom blob(s) as input.";
  if (ExactNumTopBlobs() >= 0)
    CAFFE_CHECK_EQ(ExactNumTopBlobs(), nt)
        << type() << " layer produces " << ExactNumTopBlobs()
        << " top blob(s) as output.";
  if (MinTopBlobs() >= 0)
    CAFFE_CHECK_LE(MinTopBlobs(), nt)
        << type() << " layer produces at least " << MinTopBlobs()
        << " top blob(s) as output.";
  if (MaxTopBlobs() >= 0)
    CAFFE_CHECK_GE(MaxTopBlobs(), nt)
        << type() << " layer produces at most " << MaxTopBlobs()
        << " top blob(s) as output.";
  if (EqualNumBottomTopBlobs())
    CAFFE_CHECK_EQ(nb, nt) << type()
                           << " layer produces one top blob as output for "
                              "each bottom blob input.";
}

template <typename Dtype>
void Layer<Dtype>::SetLossWeights(const vector<Blob<Dtype>*>& top) {
  const int num_loss_weights = layer_param_.loss_weight_size();
  if (!num_loss_weights) return;
  CAFFE_CHECK_EQ(static_cast<int>(top.size()), num_loss_weights)
      << "loss_weight must be unspecified or given once per top blob";
  for (int top_id = 0; top_id < static_cast<int>(top.size()); ++top_id) {
    const Dtype loss_weight = layer_param_.loss_weight(top_id);
    if (loss_weight == Dtype(0)) continue;
    set_loss(top_id, loss_weight);
    const int count = top[top_id]->count();
    caffe_set(count, loss_weight, top[top_id]->mutable_cpu_diff());
  }
}

INSTANTIATE_CLASS(Layer);

}  // namespace caffe
