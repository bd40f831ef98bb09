#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <vector>

#include "caffe/blob.hpp"
#include "caffe/layers/loss_layer.hpp"
#include "caffe/layers/softmax_loss_layer.hpp"
#include "caffe/test/test_fill_util.hpp"
#include "caffe/test/test_gradient_check_util.hpp"
#include "caffe/test/test_layer_contract_util.hpp"

namespace caffe {

using contract_test::CheckBackwardReads;

template <typename Dtype>
class SoftmaxWithLossLayerTest : public ::testing::Test {
 protected:
  SoftmaxWithLossLayerTest()
      : data_(new Blob<Dtype>(vector<int>{4, 5, 2, 3})),
        label_(new Blob<Dtype>(vector<int>{4, 1, 2, 3})),
        loss_(new Blob<Dtype>()), prob_(new Blob<Dtype>()) {
    Caffe::set_random_seed(1701);
    caffe_rng_gaussian<Dtype>(data_->count(), Dtype(0), Dtype(3),
                              data_->mutable_cpu_data());
    for (int i = 0; i < label_->count(); ++i)
      label_->mutable_cpu_data()[i] = (i * 3 + 1) % 5;
    bottom_vec_ = {data_.get(), label_.get()};
    top_vec_ = {loss_.get()};
  }
  LayerParameter Param() {
    LayerParameter param;
    param.set_name("loss");
    return param;
  }
  // Sum of -log softmax(label) over non-ignored positions, from the
  // definition, and the number of such positions.
  double ReferenceSum(bool has_ignore, int ignore, int* valid) {
    const int channels = 5, inner = 6;
    double sum = 0;
    *valid = 0;
    for (int n = 0; n < 4; ++n)
      for (int k = 0; k < inner; ++k) {
        const int label = static_cast<int>(label_->cpu_data()[n * inner + k]);
        if (has_ignore && label == ignore) continue;
        double denom = 0;
        for (int c = 0; c < channels; ++c)
          denom += std::exp(double(data_->cpu_data()[(n * channels + c) * inner + k]));
        sum -= data_->cpu_data()[(n * channels + label) * inner + k] -
               std::log(denom);
        ++*valid;
      }
    return sum;
  }
  std::unique_ptr<Blob<Dtype> > data_, label_, loss_, prob_;
  vector<Blob<Dtype>*> bottom_vec_, top_vec_;
};

TYPED_TEST_SUITE(SoftmaxWithLossLayerTest, TestDtypes);

TYPED_TEST(SoftmaxWithLossLayerTest, LossLayerBasics) {
  typedef TypeParam Dtype;
  SoftmaxWithLossLayer<Dtype> layer(this->Param());
  EXPECT_STREQ(layer.type(), "SoftmaxWithLoss");
  EXPECT_TRUE(layer.AutoTopBlobs());
  EXPECT_TRUE(layer.AllowForceBackward(0));
  EXPECT_FALSE(layer.AllowForceBackward(1));
  layer.SetUp(this->bottom_vec_, this->top_vec_);
  EXPECT_EQ(this->loss_->num_axes(), 0);
  EXPECT_EQ(this->loss_->count(), 1);
  // Loss layers weigh their first top 1 unless told otherwise.
  EXPECT_EQ(layer.loss(0), Dtype(1));
  EXPECT_EQ(this->loss_->cpu_diff()[0], Dtype(1));
  ASSERT_EQ(layer.layer_param().loss_weight_size(), 1);
  EXPECT_EQ(layer.layer_param().loss_weight(0), 1);
  // The returned objective is the loss times its weight.
  const Dtype loss = layer.Forward(this->bottom_vec_, this->top_vec_);
  EXPECT_NEAR(loss, this->loss_->cpu_data()[0], 1e-6);

  LayerParameter weighted = this->Param();
  weighted.add_loss_weight(3);
  SoftmaxWithLossLayer<Dtype> layer3(weighted);
  layer3.SetUp(this->bottom_vec_, this->top_vec_);
  EXPECT_EQ(layer3.loss(0), Dtype(3));
  EXPECT_NEAR(layer3.Forward(this->bottom_vec_, this->top_vec_), 3 * loss,
              1e-4);
}

TYPED_TEST(SoftmaxWithLossLayerTest, GetNormalizer) {
  typedef TypeParam Dtype;
  typedef LossLayer<Dtype> L;
  EXPECT_EQ(L::GetNormalizer(LossParameter_NormalizationMode_FULL, 4, 6, 10),
            Dtype(24));
  EXPECT_EQ(L::GetNormalizer(LossParameter_NormalizationMode_VALID, 4, 6, 10),
            Dtype(10));
  EXPECT_EQ(L::GetNormalizer(LossParameter_NormalizationMode_VALID, 4, 6, -1),
            Dtype(24));
  EXPECT_EQ(L::GetNormalizer(LossParameter_NormalizationMode_VALID, 4, 6, 0),
            Dtype(1));
  EXPECT_EQ(
      L::GetNormalizer(LossParameter_NormalizationMode_BATCH_SIZE, 4, 6, 10),
      Dtype(4));
  EXPECT_EQ(L::GetNormalizer(LossParameter_NormalizationMode_NONE, 4, 6, 10),
            Dtype(1));
  LossParameter p;
  EXPECT_EQ(L::ResolveNormalization(p, LossParameter_NormalizationMode_VALID),
            LossParameter_NormalizationMode_VALID);
  EXPECT_EQ(
      L::ResolveNormalization(p, LossParameter_NormalizationMode_BATCH_SIZE),
      LossParameter_NormalizationMode_BATCH_SIZE);
  p.set_normalize(false);
  EXPECT_EQ(L::ResolveNormalization(p, LossParameter_NormalizationMode_VALID),
            LossParameter_NormalizationMode_BATCH_SIZE);
  p.set_normalize(true);
  EXPECT_EQ(
      L::ResolveNormalization(p, LossParameter_NormalizationMode_BATCH_SIZE),
      LossParameter_NormalizationMode_VALID);
  p.set_normalization(LossParameter_NormalizationMode_FULL);
  EXPECT_EQ(L::ResolveNormalization(p, LossParameter_NormalizationMode_VALID),
            LossParameter_NormalizationMode_FULL);
}

TYPED_TEST(SoftmaxWithLossLayerTest, ForwardMatchesDefinition) {
  typedef TypeParam Dtype;
  struct Case {
    bool has_ignore;
    int mode;  // -1: not given
    int normalize;  // -1: not given
  };
  const vector<Case> cases = {
      {false, -1, -1}, {true, -1, -1}, {true, 0, -1}, {true, 1, -1},
      {true, 2, -1},   {true, 3, -1},  {true, -1, 0}, {false, -1, 1},
  };
  for (const Case& c : cases) {
    LayerParameter param = this->Param();
    LossParameter* lp = param.mutable_loss_param();
    if (c.has_ignore) lp->set_ignore_label(1);
    if (c.mode >= 0)
      lp->set_normalization(static_cast<LossParameter_NormalizationMode>(c.mode));
    if (c.normalize >= 0) lp->set_normalize(c.normalize);
    SoftmaxWithLossLayer<Dtype> layer(param);
    layer.SetUp(this->bottom_vec_, this->top_vec_);
    layer.Forward(this->bottom_vec_, this->top_vec_);
    int valid = 0;
    const double sum = this->ReferenceSum(c.has_ignore, 1, &valid);
    if (c.has_ignore) {
      EXPECT_LT(valid, 24);
    }
    // Mode actually used: explicit, else normalize (true VALID / false
    // BATCH_SIZE), else VALID.
    int mode = c.mode >= 0 ? c.mode : c.normalize == 0 ? 2 : 1;
    const double norm = mode == 0 ? 24 : mode == 1 ? valid : mode == 2 ? 4 : 1;
    EXPECT_NEAR(sum / norm, this->loss_->cpu_data()[0], 1e-4)
        << c.has_ignore << " " << c.mode << " " << c.normalize;
  }
}

TYPED_TEST(SoftmaxWithLossLayerTest, ProbabilityTop) {
  typedef TypeParam Dtype;
  vector<Blob<Dtype>*> tops{this->loss_.get(), this->prob_.get()};
  SoftmaxWithLossLayer<Dtype> layer(this->Param());
  layer.SetUp(this->bottom_vec_, tops);
  // The probabilities are an output, not a second loss.
  EXPECT_EQ(layer.loss(0), Dtype(1));
  EXPECT_EQ(layer.loss(1), Dtype(0));
  layer.Forward(this->bottom_vec_, tops);
  ASSERT_EQ(this->prob_->shape(), this->data_->shape());
  for (int n = 0; n < 4; ++n)
    for (int k = 0; k < 6; ++k) {
      double denom = 0;
      for (int c = 0; c < 5; ++c)
        denom += std::exp(double(this->data_->cpu_data()[(n * 5 + c) * 6 + k]));
      for (int c = 0; c < 5; ++c) {
        const int i = (n * 5 + c) * 6 + k;
        EXPECT_NEAR(std::exp(double(this->data_->cpu_data()[i])) / denom,
                    this->prob_->cpu_data()[i], 1e-5);
      }
    }
  // Backward reads the probabilities from that top: declared, and no extra
  // internal copy.
  EXPECT_EQ(layer.Memory().backward_reads, kReadsTopData);
  EXPECT_EQ(layer.InternalBytes(), 24 * sizeof(int));
}

TYPED_TEST(SoftmaxWithLossLayerTest, Gradient) {
  typedef TypeParam Dtype;
  for (int mode = -1; mode < 4; ++mode) {
    LayerParameter param = this->Param();
    param.mutable_loss_param()->set_ignore_label(1);
    if (mode >= 0)
      param.mutable_loss_param()->set_normalization(
          static_cast<LossParameter_NormalizationMode>(mode));
    SoftmaxWithLossLayer<Dtype> layer(param);
    GradientChecker<Dtype> checker(1e-2, 1e-2, 1701);
    checker.CheckGradientExhaustive(&layer, this->bottom_vec_, this->top_vec_,
                                    0);
  }
}

TYPED_TEST(SoftmaxWithLossLayerTest, GradientLastAxis) {
  typedef TypeParam Dtype;
  // Classes on the last axis: 4 x 6 positions of 5 classes.
  this->data_->Reshape(vector<int>{4, 6, 5});
  caffe_rng_gaussian<Dtype>(this->data_->count(), Dtype(0), Dtype(1),
                            this->data_->mutable_cpu_data());
  this->label_->Reshape(vector<int>{4, 6});
  LayerParameter param = this->Param();
  param.mutable_softmax_param()->set_axis(-1);
  SoftmaxWithLossLayer<Dtype> layer(param);
  GradientChecker<Dtype> checker(1e-2, 1e-2, 1701);
  checker.CheckGradientExhaustive(&layer, this->bottom_vec_, this->top_vec_, 0);
}

TYPED_TEST(SoftmaxWithLossLayerTest, BackwardReadsDeclaration) {
  typedef TypeParam Dtype;
  LayerParameter param = this->Param();
  param.mutable_loss_param()->set_ignore_label(3);
  {
    SoftmaxWithLossLayer<Dtype> layer(param);
    EXPECT_EQ(layer.Memory().backward_reads, kReadsNothing);
    EXPECT_FALSE(layer.Memory().in_place);
    layer.SetUp(this->bottom_vec_, this->top_vec_);
    CheckBackwardReads(&layer, this->bottom_vec_, this->top_vec_,
                       vector<bool>{true, false});
    // The probabilities and the copied labels are kept internally.
    EXPECT_EQ(layer.InternalBytes(),
              this->data_->count() * sizeof(Dtype) + 24 * sizeof(int));
  }
  {
    vector<Blob<Dtype>*> tops{this->loss_.get(), this->prob_.get()};
    SoftmaxWithLossLayer<Dtype> layer(param);
    layer.SetUp(this->bottom_vec_, tops);
    CheckBackwardReads(&layer, this->bottom_vec_, tops,
                       vector<bool>{true, false});
  }
}

TYPED_TEST(SoftmaxWithLossLayerTest, BadInputsThrow) {
  typedef TypeParam Dtype;
  {
    // One label too many per sample.
    Blob<Dtype> label(vector<int>{4, 7});
    vector<Blob<Dtype>*> bottom{this->data_.get(), &label};
    SoftmaxWithLossLayer<Dtype> layer(this->Param());
    try {
      layer.SetUp(bottom, this->top_vec_);
      ADD_FAILURE() << "no error";
    } catch (const Error& e) {
      const string msg = e.what();
      EXPECT_NE(msg.find("loss"), string::npos) << msg;
      EXPECT_NE(msg.find("4 7"), string::npos) << msg;
    }
  }
  {
    // Different batch sizes.
    Blob<Dtype> label(vector<int>{3, 8});
    vector<Blob<Dtype>*> bottom{this->data_.get(), &label};
    SoftmaxWithLossLayer<Dtype> layer(this->Param());
    EXPECT_THROW(layer.SetUp(bottom, this->top_vec_), Error);
  }
  {
    // A label outside [0, classes).
    this->label_->mutable_cpu_data()[5] = 5;
    SoftmaxWithLossLayer<Dtype> layer(this->Param());
    layer.SetUp(this->bottom_vec_, this->top_vec_);
    EXPECT_THROW(layer.Forward(this->bottom_vec_, this->top_vec_), Error);
    this->label_->mutable_cpu_data()[5] = -1;
    EXPECT_THROW(layer.Forward(this->bottom_vec_, this->top_vec_), Error);
    // ... unless it is the ignored label.
    LayerParameter param = this->Param();
    param.mutable_loss_param()->set_ignore_label(-1);
    SoftmaxWithLossLayer<Dtype> ignoring(param);
    ignoring.SetUp(this->bottom_vec_, this->top_vec_);
    ignoring.Forward(this->bottom_vec_, this->top_vec_);
    this->label_->mutable_cpu_data()[5] = 1;
  }
  {
    SoftmaxWithLossLayer<Dtype> layer(this->Param());
    layer.SetUp(this->bottom_vec_, this->top_vec_);
    layer.Forward(this->bottom_vec_, this->top_vec_);
    EXPECT_THROW(layer.Backward(this->top_vec_, vector<bool>{true, true},
                                this->bottom_vec_),
                 Error);
  }
  {
    vector<Blob<Dtype>*> three{this->loss_.get(), this->prob_.get(),
                               this->prob_.get()};
    SoftmaxWithLossLayer<Dtype> layer(this->Param());
    EXPECT_THROW(layer.SetUp(this->bottom_vec_, three), Error);
  }
}

TYPED_TEST(SoftmaxWithLossLayerTest, CreatedByRegistry) {
  typedef TypeParam Dtype;
  LayerParameter param = this->Param();
  param.set_type("SoftmaxWithLoss");
  shared_ptr<Layer<Dtype> > layer = LayerRegistry<Dtype>::CreateLayer(param);
  layer->SetUp(this->bottom_vec_, this->top_vec_);
  layer->Forward(this->bottom_vec_, this->top_vec_);
  int valid;
  EXPECT_NEAR(this->ReferenceSum(false, 0, &valid) / 24,
              this->loss_->cpu_data()[0], 1e-4);
}

}  // namespace caffe
