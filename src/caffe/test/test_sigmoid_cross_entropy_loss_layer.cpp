#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <vector>

#include "caffe/blob.hpp"
#include "caffe/layers/sigmoid_cross_entropy_loss_layer.hpp"
#include "caffe/test/test_fill_util.hpp"
#include "caffe/test/test_gradient_check_util.hpp"
#include "caffe/test/test_layer_contract_util.hpp"

namespace caffe {

using contract_test::CheckBackwardReads;

template <typename Dtype>
class SigmoidCrossEntropyLossLayerTest : public ::testing::Test {
 protected:
  SigmoidCrossEntropyLossLayerTest()
      : logits_(new Blob<Dtype>(vector<int>{4, 3, 2})),
        targets_(new Blob<Dtype>(vector<int>{4, 6})),
        loss_(new Blob<Dtype>()) {
    Caffe::set_random_seed(1701);
    caffe_rng_gaussian<Dtype>(logits_->count(), Dtype(0), Dtype(2),
                              logits_->mutable_cpu_data());
    caffe_rng_uniform<Dtype>(targets_->count(), Dtype(0), Dtype(1),
                             targets_->mutable_cpu_data());
    bottom_vec_ = {logits_.get(), targets_.get()};
    top_vec_ = {loss_.get()};
  }
  LayerParameter Param() {
    LayerParameter param;
    param.set_name("sce");
    return param;
  }
  // Cross-entropy summed over elements whose target is not `ignore`,
  // from the textbook formula in double precision.
  double ReferenceSum(bool has_ignore, int ignore, int* valid) {
    double sum = 0;
    *valid = 0;
    for (int i = 0; i < logits_->count(); ++i) {
      const double x = logits_->cpu_data()[i], t = targets_->cpu_data()[i];
      if (has_ignore && static_cast<int>(t) == ignore) continue;
      const double s = 1 / (1 + std::exp(-x));
      sum -= t * std::log(s) + (1 - t) * std::log(1 - s);
      ++*valid;
    }
    return sum;
  }
  std::unique_ptr<Blob<Dtype> > logits_, targets_, loss_;
  vector<Blob<Dtype>*> bottom_vec_, top_vec_;
};

TYPED_TEST_SUITE(SigmoidCrossEntropyLossLayerTest, TestDtypes);

TYPED_TEST(SigmoidCrossEntropyLossLayerTest, ForwardDefaultsToBatchSize) {
  typedef TypeParam Dtype;
  SigmoidCrossEntropyLossLayer<Dtype> layer(this->Param());
  EXPECT_STREQ(layer.type(), "SigmoidCrossEntropyLoss");
  layer.SetUp(this->bottom_vec_, this->top_vec_);
  EXPECT_EQ(layer.loss(0), Dtype(1));
  EXPECT_FALSE(layer.AllowForceBackward(1));
  layer.Forward(this->bottom_vec_, this->top_vec_);
  int valid;
  EXPECT_NEAR(this->ReferenceSum(false, 0, &valid) / 4,
              this->loss_->cpu_data()[0], 1e-4);
  EXPECT_EQ(layer.InternalBytes(), 24 * sizeof(Dtype));
}

TYPED_TEST(SigmoidCrossEntropyLossLayerTest, ForwardIgnoreAndNormalization) {
  typedef TypeParam Dtype;
  // Binary targets with some -1 entries to ignore.
  Dtype* t = this->targets_->mutable_cpu_data();
  for (int i = 0; i < 24; ++i) t[i] = (i % 5 == 0) ? -1 : (i % 3 == 0);
  struct Case { int mode; int normalize; double (*norm)(int valid); };
  const vector<Case> cases = {
      {-1, -1, [](int) { return 4.0; }},           // Caffe 1.0 default
      {-1, 1, [](int v) { return double(v); }},    // normalize: VALID
      {-1, 0, [](int) { return 4.0; }},            // !normalize: BATCH_SIZE
      {0, -1, [](int) { return 24.0; }},           // FULL
      {1, -1, [](int v) { return double(v); }},    // VALID
      {2, -1, [](int) { return 4.0; }},            // BATCH_SIZE
      {3, -1, [](int) { return 1.0; }},            // NONE
  };
  for (const Case& c : cases) {
    LayerParameter param = this->Param();
    param.mutable_loss_param()->set_ignore_label(-1);
    if (c.mode >= 0)
      param.mutable_loss_param()->set_normalization(
          static_cast<LossParameter_NormalizationMode>(c.mode));
    if (c.normalize >= 0) param.mutable_loss_param()->set_normalize(c.normalize);
    SigmoidCrossEntropyLossLayer<Dtype> layer(param);
    layer.SetUp(this->bottom_vec_, this->top_vec_);
    layer.Forward(this->bottom_vec_, this->top_vec_);
    int valid;
    const double sum = this->ReferenceSum(true, -1, &valid);
    EXPECT_EQ(valid, 19);
    EXPECT_NEAR(sum / c.norm(valid), this->loss_->cpu_data()[0], 1e-4)
        << c.mode << " " << c.normalize;
  }
}

TYPED_TEST(SigmoidCrossEntropyLossLayerTest, LargeLogitsStayFinite) {
  typedef TypeParam Dtype;
  Dtype* x = this->logits_->mutable_cpu_data();
  Dtype* t = this->targets_->mutable_cpu_data();
  for (int i = 0; i < 24; ++i) {
    x[i] = (i % 2) ? Dtype(200) : Dtype(-200);
    t[i] = 0;
  }
  LayerParameter param = this->Param();
  param.mutable_loss_param()->set_normalization(
      LossParameter_NormalizationMode_NONE);
  SigmoidCrossEntropyLossLayer<Dtype> layer(param);
  layer.SetUp(this->bottom_vec_, this->top_vec_);
  layer.Forward(this->bottom_vec_, this->top_vec_);
  // Each x = 200, t = 0 costs 200; each x = -200 costs ~0.
  EXPECT_NEAR(12 * 200.0, this->loss_->cpu_data()[0], 1e-2);
  caffe_set(1, Dtype(1), this->loss_->mutable_cpu_diff());
  layer.Backward(this->top_vec_, vector<bool>{true, false}, this->bottom_vec_);
  for (int i = 0; i < 24; ++i)
    EXPECT_NEAR((i % 2) ? 1.0 : 0.0, this->logits_->cpu_diff()[i], 1e-6);
}

TYPED_TEST(SigmoidCrossEntropyLossLayerTest, Gradient) {
  typedef TypeParam Dtype;
  for (int mode = -1; mode < 4; ++mode) {
    LayerParameter param = this->Param();
    if (mode >= 0)
      param.mutable_loss_param()->set_normalization(
          static_cast<LossParameter_NormalizationMode>(mode));
    SigmoidCrossEntropyLossLayer<Dtype> layer(param);
    GradientChecker<Dtype> checker(1e-2, 1e-2, 1701);
    checker.CheckGradientExhaustive(&layer, this->bottom_vec_, this->top_vec_,
                                    0);
  }
}

TYPED_TEST(SigmoidCrossEntropyLossLayerTest, GradientIgnoreLabel) {
  typedef TypeParam Dtype;
  Dtype* t = this->targets_->mutable_cpu_data();
  for (int i = 0; i < 24; ++i) t[i] = (i % 4 == 0) ? -1 : (i % 3 == 0);
  LayerParameter param = this->Param();
  param.mutable_loss_param()->set_ignore_label(-1);
  param.mutable_loss_param()->set_normalization(
      LossParameter_NormalizationMode_VALID);
  SigmoidCrossEntropyLossLayer<Dtype> layer(param);
  GradientChecker<Dtype> checker(1e-2, 1e-2, 1701);
  checker.CheckGradientExhaustive(&layer, this->bottom_vec_, this->top_vec_, 0);
  // Ignored entries get no gradient.
  layer.Forward(this->bottom_vec_, this->top_vec_);
  caffe_set(1, Dtype(1), this->loss_->mutable_cpu_diff());
  layer.Backward(this->top_vec_, vector<bool>{true, false}, this->bottom_vec_);
  for (int i = 0; i < 24; i += 4)
    EXPECT_EQ(Dtype(0), this->logits_->cpu_diff()[i]);
}

TYPED_TEST(SigmoidCrossEntropyLossLayerTest, BackwardReadsDeclaration) {
  typedef TypeParam Dtype;
  SigmoidCrossEntropyLossLayer<Dtype> layer(this->Param());
  EXPECT_EQ(layer.Memory().backward_reads, kReadsBottomData);
  EXPECT_FALSE(layer.Memory().in_place);
  layer.SetUp(this->bottom_vec_, this->top_vec_);
  CheckBackwardReads(&layer, this->bottom_vec_, this->top_vec_,
                     vector<bool>{true, false});
}

TYPED_TEST(SigmoidCrossEntropyLossLayerTest, BadInputsThrow) {
  typedef TypeParam Dtype;
  {
    Blob<Dtype> targets(vector<int>{4, 5});
    vector<Blob<Dtype>*> bottom{this->logits_.get(), &targets};
    SigmoidCrossEntropyLossLayer<Dtype> layer(this->Param());
    try {
      layer.SetUp(bottom, this->top_vec_);
      ADD_FAILURE() << "no error";
    } catch (const Error& e) {
      EXPECT_NE(string(e.what()).find("sce"), string::npos) << e.what();
      EXPECT_NE(string(e.what()).find("4 5"), string::npos) << e.what();
    }
  }
  {
    SigmoidCrossEntropyLossLayer<Dtype> layer(this->Param());
    layer.SetUp(this->bottom_vec_, this->top_vec_);
    layer.Forward(this->bottom_vec_, this->top_vec_);
    EXPECT_THROW(layer.Backward(this->top_vec_, vector<bool>{true, true},
                                this->bottom_vec_),
                 Error);
  }
}

}  // namespace caffe
