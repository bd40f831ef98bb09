// Tests for PowerLayer: y = (shift + scale * x)^power, including Caffe's
// special cases (constant output, power 1, power 2, shift 0), whose
// BackwardReads declarations differ.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "caffe/blob.hpp"
#include "caffe/common.hpp"
#include "caffe/layers/power_layer.hpp"
#include "caffe/test/test_gradient_check_util.hpp"
#include "caffe/test/test_layer_contract_util.hpp"

namespace caffe {

using contract_test::CheckBackwardReads;
using contract_test::CheckInPlaceMatches;

template <typename Dtype>
class PowerLayerTest : public ::testing::Test {
 protected:
  PowerLayerTest() : bottom_(2, 3, 4, 5) {
    Caffe::set_random_seed(1701);
    caffe_rng_gaussian<Dtype>(bottom_.count(), Dtype(0), Dtype(1),
                              bottom_.mutable_cpu_data());
    bottom_vec_.push_back(&bottom_);
    top_vec_.push_back(&top_);
  }

  LayerParameter Param(float power, float scale, float shift) {
    LayerParameter p;
    p.set_name("power");
    p.set_type("Power");
    p.mutable_power_param()->set_power(power);
    p.mutable_power_param()->set_scale(scale);
    p.mutable_power_param()->set_shift(shift);
    return p;
  }

  // Moves every input where shift + scale * x would be negative (or too
  // close to 0) to a safe positive base, for fractional powers.
  void MakeBasePositive(float scale, float shift) {
    Dtype* x = bottom_.mutable_cpu_data();
    for (int i = 0; i < bottom_.count(); ++i) {
      if (shift + scale * x[i] < 0.2) x[i] = (Dtype(0.5) - shift) / scale;
    }
  }

  void TestForward(float power, float scale, float shift) {
    PowerLayer<Dtype> layer(Param(power, scale, shift));
    layer.SetUp(bottom_vec_, top_vec_);
    layer.Forward(bottom_vec_, top_vec_);
    ASSERT_EQ(bottom_.shape(), top_.shape());
    const double tol_rel = sizeof(Dtype) == 4 ? 1e-5 : 1e-12;
    for (int i = 0; i < bottom_.count(); ++i) {
      const double x = bottom_.cpu_data()[i];
      const double expected =
          std::pow(double(shift) + double(scale) * x, double(power));
      const Dtype y = top_.cpu_data()[i];
      if (power == 0 || std::isnan(expected) == false) {
        const double e = (power == 0) ? 1.0 : expected;
        EXPECT_NEAR(e, y, tol_rel * std::max(1.0, std::fabs(e)))
            << "power " << power << " scale " << scale << " shift " << shift;
      } else {
        EXPECT_TRUE(std::isnan(y));
      }
    }
  }

  void TestGradient(float power, float scale, float shift) {
    PowerLayer<Dtype> layer(Param(power, scale, shift));
    if (power != 0 && power != 1 && power != 2) MakeBasePositive(scale, shift);
    GradientChecker<Dtype> checker(1e-3, 1e-2, 1701);
    checker.CheckGradientEltwise(&layer, bottom_vec_, top_vec_);
  }

  void TestBackwardReads(float power, float scale, float shift,
                         int expected_reads) {
    PowerLayer<Dtype> layer(Param(power, scale, shift));
    EXPECT_EQ(expected_reads, layer.Memory().backward_reads)
        << "power " << power << " scale " << scale << " shift " << shift;
    EXPECT_EQ(expected_reads == kReadsNothing, layer.Memory().in_place);
    if (power != 0 && power != 1 && power != 2) MakeBasePositive(scale, shift);
    layer.SetUp(bottom_vec_, top_vec_);
    CheckBackwardReads<Dtype>(&layer, bottom_vec_, top_vec_);
  }

  Blob<Dtype> bottom_;
  Blob<Dtype> top_;
  vector<Blob<Dtype>*> bottom_vec_;
  vector<Blob<Dtype>*> top_vec_;
};

TYPED_TEST_SUITE(PowerLayerTest, TestDtypes);

TYPED_TEST(PowerLayerTest, Forward) {
  // Fractional power with some negative bases: NaN there, as pow gives.
  this->TestForward(0.37f, 0.83f, -2.4f);
  this->TestForward(0.37f, 0.83f, 2.4f);
}

TYPED_TEST(PowerLayerTest, ForwardShiftZero) {
  this->TestForward(3.f, 0.83f, 0.f);
  this->TestForward(-1.f, 1.5f, 0.f);
}

TYPED_TEST(PowerLayerTest, ForwardSpecialCases) {
  this->TestForward(0.f, 0.83f, -2.4f);  // constant 1
  this->TestForward(1.f, 0.83f, -2.4f);  // affine
  this->TestForward(2.f, 0.34f, -2.4f);  // square
  this->TestForward(2.f, 0.5f, 0.f);
  this->TestForward(3.f, 0.f, 2.f);      // scale 0: constant shift^power = 8
}

TYPED_TEST(PowerLayerTest, ScaleZeroIsConstant) {
  typedef TypeParam Dtype;
  PowerLayer<Dtype> layer(this->Param(3.f, 0.f, 2.f));
  layer.SetUp(this->bottom_vec_, this->top_vec_);
  layer.Forward(this->bottom_vec_, this->top_vec_);
  for (int i = 0; i < this->top_.count(); ++i)
    EXPECT_EQ(Dtype(8), this->top_.cpu_data()[i]);
  PowerLayer<Dtype> zero(this->Param(0.f, 2.f, 0.f));  // 0^0 taken as 1
  zero.SetUp(this->bottom_vec_, this->top_vec_);
  zero.Forward(this->bottom_vec_, this->top_vec_);
  for (int i = 0; i < this->top_.count(); ++i)
    EXPECT_EQ(Dtype(1), this->top_.cpu_data()[i]);
}

TYPED_TEST(PowerLayerTest, Gradient) {
  this->TestGradient(0.37f, 0.83f, -2.4f);
}

TYPED_TEST(PowerLayerTest, GradientShiftZero) {
  this->TestGradient(0.37f, 0.83f, 0.f);
  this->TestGradient(3.f, -0.6f, 0.f);
}

TYPED_TEST(PowerLayerTest, GradientSpecialCases) {
  this->TestGradient(0.f, 0.83f, -2.4f);
  this->TestGradient(1.f, 0.83f, -2.4f);
  this->TestGradient(2.f, 0.83f, -2.4f);
  this->TestGradient(2.f, 0.5f, 0.f);
  this->TestGradient(3.f, 0.f, 2.f);
}

TYPED_TEST(PowerLayerTest, BackwardReads) {
  this->TestBackwardReads(0.37f, 0.83f, 2.4f,
                          kReadsBottomData | kReadsTopData);
  this->TestBackwardReads(0.37f, 0.83f, 0.f,
                          kReadsBottomData | kReadsTopData);
  this->TestBackwardReads(2.f, 0.83f, -2.4f, kReadsBottomData);
  this->TestBackwardReads(1.f, 0.83f, -2.4f, kReadsNothing);
  this->TestBackwardReads(0.f, 0.83f, -2.4f, kReadsNothing);
  this->TestBackwardReads(3.f, 0.f, 2.f, kReadsNothing);
}

TYPED_TEST(PowerLayerTest, InPlaceWhenAllowed) {
  typedef TypeParam Dtype;
  CheckInPlaceMatches<Dtype>(this->Param(1.f, 0.83f, -2.4f),
                             this->bottom_vec_);
  CheckInPlaceMatches<Dtype>(this->Param(0.f, 0.83f, -2.4f),
                             this->bottom_vec_);
}

TYPED_TEST(PowerLayerTest, BadBlobCounts) {
  typedef TypeParam Dtype;
  PowerLayer<Dtype> layer(this->Param(2.f, 1.f, 0.f));
  vector<Blob<Dtype>*> two(2, &this->bottom_);
  EXPECT_THROW(layer.SetUp(two, this->top_vec_), Error);
  vector<Blob<Dtype>*> none;
  EXPECT_THROW(layer.SetUp(this->bottom_vec_, none), Error);
}

TYPED_TEST(PowerLayerTest, Registered) {
  typedef TypeParam Dtype;
  EXPECT_STREQ("Power", LayerRegistry<Dtype>::CreateLayer(
                            this->Param(2.f, 1.f, 0.f))->type());
}

}  // namespace caffe
