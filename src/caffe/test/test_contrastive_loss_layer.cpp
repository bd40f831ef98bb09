// Tests for ContrastiveLossLayer: current and legacy losses against loops,
// gradients w.r.t. both inputs, the BackwardReads declaration and shape /
// label errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "caffe/blob.hpp"
#include "caffe/common.hpp"
#include "caffe/layers/contrastive_loss_layer.hpp"
#include "caffe/test/test_gradient_check_util.hpp"
#include "caffe/test/test_layer_contract_util.hpp"

namespace caffe {

template <typename Dtype>
class ContrastiveLossLayerTest : public ::testing::Test {
 protected:
  static const int kNum = 12;
  static const int kDim = 4;
  ContrastiveLossLayerTest()
      : a_(vector<int>{kNum, kDim, 1, 1}), b_(vector<int>{kNum, kDim, 1, 1}),
        y_(vector<int>{kNum, 1, 1, 1}) {
    Caffe::set_random_seed(1701);
    caffe_rng_uniform<Dtype>(a_.count(), Dtype(-0.7), Dtype(0.7),
                             a_.mutable_cpu_data());
    // b = a - d_n * u_n with |u_n| = 1 and d_n = 0.2 + 0.23 n: the pair
    // distances are spread over [0.2, 2.73] and none lies within 0.05 of the
    // margin 1.5 (nor, squared, of 1.5 for the legacy loss).
    caffe_rng_gaussian<Dtype>(b_.count(), Dtype(0), Dtype(1),
                              b_.mutable_cpu_data());
    for (int n = 0; n < kNum; ++n) {
      Dtype* u = b_.mutable_cpu_data() + n * kDim;
      const Dtype norm = std::sqrt(caffe_cpu_dot(kDim, u, u));
      const Dtype d = Dtype(0.2 + 0.23 * n);
      for (int k = 0; k < kDim; ++k)
        u[k] = a_.cpu_data()[n * kDim + k] - d * u[k] / norm;
    }
    for (int i = 0; i < kNum; ++i) y_.mutable_cpu_data()[i] = Dtype(i % 3 == 0);
    bottom_vec_ = {&a_, &b_, &y_};
    top_vec_.push_back(&loss_);
  }
  LayerParameter Param(bool legacy, float margin = 1.5f) {
    LayerParameter p;
    p.set_name("contrastive");
    p.set_type("ContrastiveLoss");
    p.mutable_contrastive_loss_param()->set_legacy_version(legacy);
    p.mutable_contrastive_loss_param()->set_margin(margin);
    return p;
  }
  double DistSq(int n) const {
    double d = 0;
    for (int k = 0; k < kDim; ++k) {
      const double e = a_.cpu_data()[n * kDim + k] - b_.cpu_data()[n * kDim + k];
      d += e * e;
    }
    return d;
  }
  double Expected(bool legacy, double margin) const {
    double loss = 0;
    for (int n = 0; n < kNum; ++n) {
      const double d2 = DistSq(n);
      if (y_.cpu_data()[n] != 0) {
        loss += d2;
      } else if (legacy) {
        loss += std::max(margin - d2, 0.0);
      } else {
        const double g = std::max(margin - std::sqrt(d2), 0.0);
        loss += g * g;
      }
    }
    return loss / (2.0 * kNum);
  }
  Blob<Dtype> a_, b_, y_, loss_;
  vector<Blob<Dtype>*> bottom_vec_, top_vec_;
};

TYPED_TEST_SUITE(ContrastiveLossLayerTest, TestDtypes);

TYPED_TEST(ContrastiveLossLayerTest, Forward) {
  typedef TypeParam Dtype;
  // Margin 1.5 sits among the distances (up to ~2.8), so both the active and
  // the inactive dissimilar branches occur.
  int active = 0, inactive = 0;
  for (int n = 0; n < this->kNum; ++n) {
    if (this->y_.cpu_data()[n] != 0) continue;
    (std::sqrt(this->DistSq(n)) < 1.5 ? active : inactive)++;
  }
  EXPECT_GT(active, 0);
  EXPECT_GT(inactive, 0);
  for (bool legacy : {false, true}) {
    ContrastiveLossLayer<Dtype> layer(this->Param(legacy));
    layer.SetUp(this->bottom_vec_, this->top_vec_);
    const Dtype ret = layer.Forward(this->bottom_vec_, this->top_vec_);
    EXPECT_NEAR(this->Expected(legacy, 1.5), this->loss_.cpu_data()[0], 1e-5);
    EXPECT_NEAR(this->Expected(legacy, 1.5), ret, 1e-5);
  }
}

TYPED_TEST(ContrastiveLossLayerTest, ForwardTwoAxisAndDefaultMargin) {
  typedef TypeParam Dtype;
  this->a_.Reshape(vector<int>{this->kNum, this->kDim});
  this->b_.Reshape(vector<int>{this->kNum, this->kDim});
  this->y_.Reshape(vector<int>{this->kNum});
  LayerParameter p = this->Param(false);
  p.clear_contrastive_loss_param();
  ContrastiveLossLayer<Dtype> layer(p);
  layer.SetUp(this->bottom_vec_, this->top_vec_);
  layer.Forward(this->bottom_vec_, this->top_vec_);
  EXPECT_NEAR(this->Expected(false, 1.0), this->loss_.cpu_data()[0], 1e-5);
}

TYPED_TEST(ContrastiveLossLayerTest, Gradient) {
  typedef TypeParam Dtype;
  for (bool legacy : {false, true}) {
    // Stay off the hinge: no dissimilar distance (or squared distance, for
    // legacy) within 0.05 of the margin.
    for (int n = 0; n < this->kNum; ++n) {
      const double d2 = this->DistSq(n);
      const double v = legacy ? d2 : std::sqrt(d2);
      EXPECT_GT(std::fabs(v - 1.5), 0.05) << "pair " << n;
    }
    ContrastiveLossLayer<Dtype> layer(this->Param(legacy));
    GradientChecker<Dtype> checker(1e-2, 1e-3);
    checker.CheckGradientExhaustive(&layer, this->bottom_vec_,
                                    this->top_vec_, 0);
    checker.CheckGradientExhaustive(&layer, this->bottom_vec_,
                                    this->top_vec_, 1);
  }
}

TYPED_TEST(ContrastiveLossLayerTest, BackwardValues) {
  typedef TypeParam Dtype;
  ContrastiveLossLayer<Dtype> layer(this->Param(false));
  layer.SetUp(this->bottom_vec_, this->top_vec_);
  layer.Forward(this->bottom_vec_, this->top_vec_);
  this->loss_.mutable_cpu_diff()[0] = Dtype(2);
  layer.Backward(this->top_vec_, vector<bool>{true, true, false},
                 this->bottom_vec_);
  const int N = this->kNum, C = this->kDim;
  for (int n = 0; n < N; ++n) {
    const double d = std::sqrt(this->DistSq(n));
    for (int k = 0; k < C; ++k) {
      const double diff =
          this->a_.cpu_data()[n * C + k] - this->b_.cpu_data()[n * C + k];
      double g;
      if (this->y_.cpu_data()[n] != 0) {
        g = 2.0 / N * diff;
      } else {
        g = 1.5 - d > 0 ? -2.0 / N * (1.5 - d) / (d + 1e-4) * diff : 0;
      }
      EXPECT_NEAR(g, this->a_.cpu_diff()[n * C + k], 1e-5);
      EXPECT_NEAR(-g, this->b_.cpu_diff()[n * C + k], 1e-5);
    }
  }
}

TYPED_TEST(ContrastiveLossLayerTest, BackwardReads) {
  typedef TypeParam Dtype;
  for (bool legacy : {false, true}) {
    ContrastiveLossLayer<Dtype> layer(this->Param(legacy));
    EXPECT_EQ(kReadsNothing, layer.Memory().backward_reads);
    EXPECT_FALSE(layer.Memory().in_place);
    EXPECT_TRUE(layer.AllowForceBackward(0));
    EXPECT_TRUE(layer.AllowForceBackward(1));
    EXPECT_FALSE(layer.AllowForceBackward(2));
    layer.SetUp(this->bottom_vec_, this->top_vec_);
    EXPECT_GT(layer.InternalBytes(), 0u);
    contract_test::CheckBackwardReads<Dtype>(
        &layer, this->bottom_vec_, this->top_vec_,
        vector<bool>{true, true, false});
  }
}

TYPED_TEST(ContrastiveLossLayerTest, Errors) {
  typedef TypeParam Dtype;
  {
    ContrastiveLossLayer<Dtype> layer(this->Param(false));
    layer.SetUp(this->bottom_vec_, this->top_vec_);
    layer.Forward(this->bottom_vec_, this->top_vec_);
    EXPECT_THROW(layer.Backward(this->top_vec_, vector<bool>{true, true, true},
                                this->bottom_vec_),
                 Error);
  }
  {  // Feature sizes differ.
    Blob<Dtype> b3(vector<int>{this->kNum, 3, 1, 1});
    vector<Blob<Dtype>*> b{&this->a_, &b3, &this->y_};
    ContrastiveLossLayer<Dtype> layer(this->Param(false));
    EXPECT_THROW(layer.SetUp(b, this->top_vec_), Error);
  }
  {  // Spatial features.
    Blob<Dtype> a(vector<int>{this->kNum, this->kDim, 2, 1});
    Blob<Dtype> b(vector<int>{this->kNum, this->kDim, 2, 1});
    vector<Blob<Dtype>*> v{&a, &b, &this->y_};
    ContrastiveLossLayer<Dtype> layer(this->Param(false));
    EXPECT_THROW(layer.SetUp(v, this->top_vec_), Error);
  }
  {  // Two labels per pair, and a wrong number of pairs.
    Blob<Dtype> y2(vector<int>{this->kNum, 2, 1, 1});
    vector<Blob<Dtype>*> v{&this->a_, &this->b_, &y2};
    ContrastiveLossLayer<Dtype> layer(this->Param(false));
    EXPECT_THROW(layer.SetUp(v, this->top_vec_), Error);
    Blob<Dtype> y5(vector<int>{5, 1, 1, 1});
    vector<Blob<Dtype>*> w{&this->a_, &this->b_, &y5};
    ContrastiveLossLayer<Dtype> layer2(this->Param(false));
    EXPECT_THROW(layer2.SetUp(w, this->top_vec_), Error);
  }
  {  // Two bottoms only.
    vector<Blob<Dtype>*> v{&this->a_, &this->b_};
    ContrastiveLossLayer<Dtype> layer(this->Param(false));
    EXPECT_THROW(layer.SetUp(v, this->top_vec_), Error);
  }
}

}  // namespace caffe
