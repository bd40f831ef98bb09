// Tests for HingeLossLayer: L1 and L2 losses against loops, gradients,
// loss-weight scaling, the BackwardReads declaration and label errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "caffe/blob.hpp"
#include "caffe/common.hpp"
#include "caffe/layers/hinge_loss_layer.hpp"
#include "caffe/test/test_gradient_check_util.hpp"
#include "caffe/test/test_layer_contract_util.hpp"

namespace caffe {

template <typename Dtype>
class HingeLossLayerTest : public ::testing::Test {
 protected:
  HingeLossLayerTest()
      : score_(vector<int>{10, 5, 1, 1}), label_(vector<int>{10, 1, 1, 1}) {
    Caffe::set_random_seed(1701);
    caffe_rng_gaussian<Dtype>(score_.count(), Dtype(0), Dtype(2),
                              score_.mutable_cpu_data());
    // Keep scores away from the hinges at +-1.
    Dtype* x = score_.mutable_cpu_data();
    for (int i = 0; i < score_.count(); ++i)
      if (std::fabs(std::fabs(x[i]) - 1) < Dtype(0.05)) x[i] *= Dtype(1.2);
    for (int i = 0; i < 10; ++i)
      label_.mutable_cpu_data()[i] = Dtype((i * 2 + 3) % 5);
    bottom_vec_ = {&score_, &label_};
    top_vec_.push_back(&loss_);
  }
  LayerParameter Param(HingeLossParameter_Norm norm) {
    LayerParameter p;
    p.set_name("hinge");
    p.set_type("HingeLoss");
    p.mutable_hinge_loss_param()->set_norm(norm);
    return p;
  }
  double Expected(bool l2) const {
    double loss = 0;
    for (int n = 0; n < 10; ++n) {
      const int l = static_cast<int>(label_.cpu_data()[n]);
      for (int k = 0; k < 5; ++k) {
        const double t = k == l ? 1 : -1;
        const double h = std::max(0.0, 1 - t * score_.cpu_data()[n * 5 + k]);
        loss += l2 ? h * h : h;
      }
    }
    return loss / 10;
  }
  Blob<Dtype> score_, label_, loss_;
  vector<Blob<Dtype>*> bottom_vec_, top_vec_;
};

TYPED_TEST_SUITE(HingeLossLayerTest, TestDtypes);

TYPED_TEST(HingeLossLayerTest, ForwardL1AndL2) {
  typedef TypeParam Dtype;
  for (bool l2 : {false, true}) {
    HingeLossLayer<Dtype> layer(this->Param(
        l2 ? HingeLossParameter_Norm_L2 : HingeLossParameter_Norm_L1));
    layer.SetUp(this->bottom_vec_, this->top_vec_);
    const Dtype ret = layer.Forward(this->bottom_vec_, this->top_vec_);
    const double want = this->Expected(l2);
    EXPECT_NEAR(want, this->loss_.cpu_data()[0], 1e-5 * std::max(1.0, want));
    EXPECT_NEAR(want, ret, 1e-5 * std::max(1.0, want));
  }
  // L1 is the default.
  LayerParameter p = this->Param(HingeLossParameter_Norm_L1);
  p.clear_hinge_loss_param();
  HingeLossLayer<Dtype> layer(p);
  layer.SetUp(this->bottom_vec_, this->top_vec_);
  layer.Forward(this->bottom_vec_, this->top_vec_);
  EXPECT_NEAR(this->Expected(false), this->loss_.cpu_data()[0], 1e-4);
}

TYPED_TEST(HingeLossLayerTest, BackwardValues) {
  typedef TypeParam Dtype;
  for (bool l2 : {false, true}) {
    HingeLossLayer<Dtype> layer(this->Param(
        l2 ? HingeLossParameter_Norm_L2 : HingeLossParameter_Norm_L1));
    layer.SetUp(this->bottom_vec_, this->top_vec_);
    layer.Forward(this->bottom_vec_, this->top_vec_);
    this->loss_.mutable_cpu_diff()[0] = Dtype(3);
    layer.Backward(this->top_vec_, vector<bool>{true, false},
                   this->bottom_vec_);
    for (int n = 0; n < 10; ++n) {
      const int l = static_cast<int>(this->label_.cpu_data()[n]);
      for (int k = 0; k < 5; ++k) {
        const double t = k == l ? 1 : -1;
        const double h =
            std::max(0.0, 1 - t * this->score_.cpu_data()[n * 5 + k]);
        const double g = h > 0 ? (l2 ? -2 * t * h : -t) : 0;
        EXPECT_NEAR(3 * g / 10, this->score_.cpu_diff()[n * 5 + k], 1e-5);
      }
    }
  }
}

TYPED_TEST(HingeLossLayerTest, Gradient) {
  typedef TypeParam Dtype;
  for (auto norm : {HingeLossParameter_Norm_L1, HingeLossParameter_Norm_L2}) {
    HingeLossLayer<Dtype> layer(this->Param(norm));
    GradientChecker<Dtype> checker(1e-2, 2e-3);
    checker.CheckGradientExhaustive(&layer, this->bottom_vec_,
                                    this->top_vec_, 0);
  }
}

TYPED_TEST(HingeLossLayerTest, BackwardReads) {
  typedef TypeParam Dtype;
  for (auto norm : {HingeLossParameter_Norm_L1, HingeLossParameter_Norm_L2}) {
    HingeLossLayer<Dtype> layer(this->Param(norm));
    EXPECT_EQ(kReadsBottomData, layer.Memory().backward_reads);
    EXPECT_FALSE(layer.Memory().in_place);
    EXPECT_FALSE(layer.AllowForceBackward(1));
    layer.SetUp(this->bottom_vec_, this->top_vec_);
    contract_test::CheckBackwardReads<Dtype>(
        &layer, this->bottom_vec_, this->top_vec_, vector<bool>{true, false});
  }
}

TYPED_TEST(HingeLossLayerTest, Errors) {
  typedef TypeParam Dtype;
  {
    HingeLossLayer<Dtype> layer(this->Param(HingeLossParameter_Norm_L1));
    layer.SetUp(this->bottom_vec_, this->top_vec_);
    this->label_.mutable_cpu_data()[2] = 7;
    EXPECT_THROW(layer.Forward(this->bottom_vec_, this->top_vec_), Error);
    this->label_.mutable_cpu_data()[2] = 0;
    layer.Forward(this->bottom_vec_, this->top_vec_);
    EXPECT_THROW(layer.Backward(this->top_vec_, vector<bool>{true, true},
                                this->bottom_vec_),
                 Error);
  }
  {
    Blob<Dtype> label2(vector<int>{10, 2});
    vector<Blob<Dtype>*> b{&this->score_, &label2};
    HingeLossLayer<Dtype> layer(this->Param(HingeLossParameter_Norm_L1));
    EXPECT_THROW(layer.SetUp(b, this->top_vec_), Error);
  }
}

}  // namespace caffe
