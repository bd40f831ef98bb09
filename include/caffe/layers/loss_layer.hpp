// LossLayer: the base of layers that turn (prediction, target) into a scalar
// loss.  Not registered itself.
//
// Contract: two bottoms (prediction, then target/label) with the same first
// dimension; top 0 is a scalar (shape {}).  A net may omit the top
// (AutoTopBlobs).  Unless the prototxt gives loss_weight, top 0 gets weight 1
// (extra tops, such as SoftmaxWithLoss's probabilities, get 0), which is what
// makes the net treat the layer as a loss.  The label bottom (1) cannot be
// forced to backpropagate.  GetNormalizer maps a normalization mode to the
// divisor, as Caffe does.
#ifndef CAFFE_LOSS_LAYER_HPP_
#define CAFFE_LOSS_LAYER_HPP_

#include <algorithm>
#include <vector>

#include "caffe/blob.hpp"
#include "caffe/layer.hpp"
#include "caffe/proto/caffe.pb.h"

namespace caffe {

template <typename Dtype>
class LossLayer : public Layer<Dtype> {
 public:
  explicit LossLayer(const LayerParameter& param) : Layer<Dtype>(param) {}

  void LayerSetUp(const vector<Blob<Dtype>*>& bottom,
                  const vector<Blob<Dtype>*>& top) override {
    if (this->layer_param_.loss_weight_size() == 0) {
      this->layer_param_.add_loss_weight(Dtype(1));
      // Caffe would refuse a second top without explicit weights; weighting
      // it 0 gives the only sensible meaning.
      for (size_t i = 1; i < top.size(); ++i)
        this->layer_param_.add_loss_weight(Dtype(0));
    }
  }
  void Reshape(const vector<Blob<Dtype>*>& bottom,
               const vector<Blob<Dtype>*>& top) override {
    CAFFE_CHECK(bottom[0]->num_axes() > 0 && bottom[1]->num_axes() > 0 &&
                bottom[0]->shape(0) == bottom[1]->shape(0))
        << this->type() << " layer " << this->layer_param_.name()
        << ": the data and label should have the same first dimension "
        << "(data " << bottom[0]->shape_string() << ", label "
        << bottom[1]->shape_string() << ")";
    top[0]->Reshape(vector<int>());
  }

  int ExactNumBottomBlobs() const override { return 2; }
  int ExactNumTopBlobs() const override { return 1; }
  bool AutoTopBlobs() const override { return true; }
  // Labels are not differentiable.
  bool AllowForceBackward(const int bottom_index) const override {
    return bottom_index != 1;
  }

  // The divisor for a summed loss: FULL counts every element (outer *
  // inner), VALID only the non-ignored ones (valid_count; -1 means all),
  // BATCH_SIZE the outer dimension, NONE 1.  Never less than 1, so an
  // all-ignored batch gives loss 0 rather than NaN.
  static Dtype GetNormalizer(LossParameter_NormalizationMode mode,
                             int outer_num, int inner_num, int valid_count) {
    Dtype normalizer = 1;
    switch (mode) {
      case LossParameter_NormalizationMode_FULL:
        normalizer = Dtype(outer_num) * Dtype(inner_num);
        break;
      case LossParameter_NormalizationMode_VALID:
        normalizer = valid_count == -1 ? Dtype(outer_num) * Dtype(inner_num)
                                       : Dtype(valid_count);
        break;
      case LossParameter_NormalizationMode_BATCH_SIZE:
        normalizer = Dtype(outer_num);
        break;
      case LossParameter_NormalizationMode_NONE:
        normalizer = 1;
        break;
      default:
        CAFFE_THROW() << "unknown loss normalization mode " << mode;
    }
    return std::max(Dtype(1), normalizer);
  }

  // The mode a layer uses: `normalization` when given; otherwise the
  // deprecated `normalize` flag (true: VALID, false: BATCH_SIZE) when given;
  // otherwise `fallback` (Caffe 1.0: VALID for SoftmaxWithLoss, BATCH_SIZE for
  // SigmoidCrossEntropyLoss).
  static LossParameter_NormalizationMode ResolveNormalization(
      const LossParameter& p, LossParameter_NormalizationMode fallback) {
    if (p.has_normalization()) return p.normalization();
    if (p.has_normalize())
      return p.normalize() ? LossParameter_NormalizationMode_VALID
                           : LossParameter_NormalizationMode_BATCH_SIZE;
    return fallback;
  }
};

}  // namespace caffe

#endif  // CAFFE_LOSS_LAYER_HPP_
