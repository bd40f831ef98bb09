// Tests for the element-wise layers built on NeuronLayer: ReLU, PReLU, ELU,
// Sigmoid, TanH, AbsVal, BNLL, Exp, Log, Dropout, and master's Clip and
// Swish.  (Power has its own
// file.)  Each checks forward values against loops written here, the
// gradient by finite differences, in-place equivalence where allowed, the
// BackwardReads declaration by poisoning, and parameter errors.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "caffe/blob.hpp"
#include "caffe/common.hpp"
#include "caffe/layers/absval_layer.hpp"
#include "caffe/layers/bnll_layer.hpp"
#include "caffe/layers/clip_layer.hpp"
#include "caffe/layers/dropout_layer.hpp"
#include "caffe/layers/elu_layer.hpp"
#include "caffe/layers/exp_layer.hpp"
#include "caffe/layers/log_layer.hpp"
#include "caffe/layers/prelu_layer.hpp"
#include "caffe/layers/relu_layer.hpp"
#include "caffe/layers/sigmoid_layer.hpp"
#include "caffe/layers/swish_layer.hpp"
#include "caffe/layers/tanh_layer.hpp"
#include "caffe/test/test_gradient_check_util.hpp"
#include "caffe/test/test_layer_contract_util.hpp"

namespace caffe {

using contract_test::CheckBackwardReads;
using contract_test::CheckInPlaceMatches;

template <typename Dtype>
class NeuronLayerTest : public ::testing::Test {
 public:
  NeuronLayerTest() : bottom_(2, 3, 4, 5) {
    Caffe::set_random_seed(1701);
    caffe_rng_gaussian<Dtype>(bottom_.count(), Dtype(0), Dtype(1),
                              bottom_.mutable_cpu_data());
    bottom_vec_.push_back(&bottom_);
    top_vec_.push_back(&top_);
  }
  void FillUniform(Dtype lo, Dtype hi) {
    caffe_rng_uniform<Dtype>(bottom_.count(), lo, hi,
                             bottom_.mutable_cpu_data());
  }
  // Tolerance for comparing against a double-precision reference.
  Dtype Tol(double v) const {
    const double eps = sizeof(Dtype) == 4 ? 1e-5 : 1e-12;
    return static_cast<Dtype>(eps * std::max(1.0, std::fabs(v)));
  }
  Blob<Dtype> bottom_;
  Blob<Dtype> top_;
  vector<Blob<Dtype>*> bottom_vec_;
  vector<Blob<Dtype>*> top_vec_;
};

TYPED_TEST_SUITE(NeuronLayerTest, TestDtypes);

static LayerParameter NamedParam(const char* type) {
  LayerParameter p;
  p.set_name(string("test_") + type);
  p.set_type(type);
  return p;
}

// ---------------------------------------------------------------- ReLU

TYPED_TEST(NeuronLayerTest, ReLUForward) {
  typedef TypeParam Dtype;
  ReLULayer<Dtype> layer(NamedParam("ReLU"));
  layer.SetUp(this->bottom_vec_, this->top_vec_);
  layer.Forward(this->bottom_vec_, this->top_vec_);
  ASSERT_EQ(this->top_.shape(), this->bottom_.shape());
  for (int i = 0; i < this->bottom_.count(); ++i) {
    const Dtype x = this->bottom_.cpu_data()[i];
    EXPECT_EQ(x > 0 ? x : Dtype(0), this->top_.cpu_data()[i]);
  }
}

TYPED_TEST(NeuronLayerTest, ReLUForwardLeaky) {
  typedef TypeParam Dtype;
  LayerParameter p = NamedParam("ReLU");
  p.mutable_relu_param()->set_negative_slope(0.01f);
  const Dtype slope = p.relu_param().negative_slope();
  ReLULayer<Dtype> layer(p);
  layer.SetUp(this->bottom_vec_, this->top_vec_);
  layer.Forward(this->bottom_vec_, this->top_vec_);
  for (int i = 0; i < this->bottom_.count(); ++i) {
    const Dtype x = this->bottom_.cpu_data()[i];
    EXPECT_EQ(x > 0 ? x : slope * x, this->top_.cpu_data()[i]);
  }
}

TYPED_TEST(NeuronLayerTest, ReLUGradient) {
  typedef TypeParam Dtype;
  ReLULayer<Dtype> layer(NamedParam("ReLU"));
  GradientChecker<Dtype> checker(1e-2, 1e-3, 1701, 0., 0.01);
  checker.CheckGradientEltwise(&layer, this->bottom_vec_, this->top_vec_);
}

TYPED_TEST(NeuronLayerTest, ReLUGradientLeaky) {
  typedef TypeParam Dtype;
  LayerParameter p = NamedParam("ReLU");
  p.mutable_relu_param()->set_negative_slope(0.01f);
  ReLULayer<Dtype> layer(p);
  GradientChecker<Dtype> checker(1e-2, 1e-3, 1701, 0., 0.01);
  checker.CheckGradientEltwise(&layer, this->bottom_vec_, this->top_vec_);
}

TYPED_TEST(NeuronLayerTest, ReLUInPlace) {
  typedef TypeParam Dtype;
  LayerParameter p = NamedParam("ReLU");
  CheckInPlaceMatches<Dtype>(p, this->bottom_vec_);
  p.mutable_relu_param()->set_negative_slope(0.1f);
  CheckInPlaceMatches<Dtype>(p, this->bottom_vec_);
}

TYPED_TEST(NeuronLayerTest, ReLUBackwardReads) {
  typedef TypeParam Dtype;
  LayerParameter p = NamedParam("ReLU");
  p.mutable_relu_param()->set_negative_slope(0.1f);
  ReLULayer<Dtype> layer(p);
  EXPECT_EQ(kReadsBottomData, layer.Memory().backward_reads);
  EXPECT_TRUE(layer.Memory().in_place);
  layer.SetUp(this->bottom_vec_, this->top_vec_);
  CheckBackwardReads<Dtype>(&layer, this->bottom_vec_, this->top_vec_);
  // A negative slope flips the sign, so the top no longer tells x's sign.
  p.mutable_relu_param()->set_negative_slope(-0.5f);
  EXPECT_FALSE(ReLULayer<Dtype>(p).Memory().in_place);
}

TYPED_TEST(NeuronLayerTest, ReLUBadBlobCounts) {
  typedef TypeParam Dtype;
  ReLULayer<Dtype> layer(NamedParam("ReLU"));
  vector<Blob<Dtype>*> two(2, &this->bottom_);
  EXPECT_THROW(layer.SetUp(two, this->top_vec_), Error);
  vector<Blob<Dtype>*> none;
  EXPECT_THROW(layer.SetUp(this->bottom_vec_, none), Error);
}

// ---------------------------------------------------------------- PReLU

TYPED_TEST(NeuronLayerTest, PReLUForwardDefaultSlope) {
  typedef TypeParam Dtype;
  PReLULayer<Dtype> layer(NamedParam("PReLU"));
  layer.SetUp(this->bottom_vec_, this->top_vec_);
  ASSERT_EQ(1u, layer.blobs().size());
  EXPECT_EQ(vector<int>(1, 3), layer.blobs()[0]->shape());
  for (int c = 0; c < 3; ++c)
    EXPECT_EQ(Dtype(0.25f), layer.blobs()[0]->cpu_data()[c]);
  layer.Forward(this->bottom_vec_, this->top_vec_);
  for (int i = 0; i < this->bottom_.count(); ++i) {
    const Dtype x = this->bottom_.cpu_data()[i];
    EXPECT_EQ(x > 0 ? x : Dtype(0.25f) * x, this->top_.cpu_data()[i]);
  }
}

TYPED_TEST(NeuronLayerTest, PReLUForwardPerChannel) {
  typedef TypeParam Dtype;
  LayerParameter p = NamedParam("PReLU");
  p.mutable_prelu_param()->mutable_filler()->set_type("gaussian");
  PReLULayer<Dtype> layer(p);
  layer.SetUp(this->bottom_vec_, this->top_vec_);
  layer.Forward(this->bottom_vec_, this->top_vec_);
  const Dtype* slope = layer.blobs()[0]->cpu_data();
  for (int n = 0; n < 2; ++n)
    for (int c = 0; c < 3; ++c)
      for (int h = 0; h < 4; ++h)
        for (int w = 0; w < 5; ++w) {
          const Dtype x = this->bottom_.data_at(n, c, h, w);
          EXPECT_EQ(x > 0 ? x : slope[c] * x, this->top_.data_at(n, c, h, w));
        }
}

TYPED_TEST(NeuronLayerTest, PReLUForward2D) {
  typedef TypeParam Dtype;
  this->bottom_.Reshape(vector<int>{4, 3});
  caffe_rng_gaussian<Dtype>(12, Dtype(0), Dtype(1),
                            this->bottom_.mutable_cpu_data());
  LayerParameter p = NamedParam("PReLU");
  p.mutable_prelu_param()->mutable_filler()->set_type("gaussian");
  PReLULayer<Dtype> layer(p);
  layer.SetUp(this->bottom_vec_, this->top_vec_);
  layer.Forward(this->bottom_vec_, this->top_vec_);
  const Dtype* slope = layer.blobs()[0]->cpu_data();
  for (int i = 0; i < 12; ++i) {
    const Dtype x = this->bottom_.cpu_data()[i];
    EXPECT_EQ(x > 0 ? x : slope[i % 3] * x, this->top_.cpu_data()[i]);
  }
}

TYPED_TEST(NeuronLayerTest, PReLUChannelShared) {
  typedef TypeParam Dtype;
  LayerParameter p = NamedParam("PReLU");
  p.mutable_prelu_param()->set_channel_shared(true);
  p.mutable_prelu_param()->mutable_filler()->set_type("constant");
  p.mutable_prelu_param()->mutable_filler()->set_value(-0.3f);
  PReLULayer<Dtype> layer(p);
  layer.SetUp(this->bottom_vec_, this->top_vec_);
  ASSERT_EQ(0, layer.blobs()[0]->num_axes());
  ASSERT_EQ(1, layer.blobs()[0]->count());
  layer.Forward(this->bottom_vec_, this->top_vec_);
  for (int i = 0; i < this->bottom_.count(); ++i) {
    const Dtype x = this->bottom_.cpu_data()[i];
    EXPECT_EQ(x > 0 ? x : Dtype(-0.3f) * x, this->top_.cpu_data()[i]);
  }
}

TYPED_TEST(NeuronLayerTest, PReLUGradient) {
  typedef TypeParam Dtype;
  LayerParameter p = NamedParam("PReLU");
  p.mutable_prelu_param()->mutable_filler()->set_type("gaussian");
  PReLULayer<Dtype> layer(p);
  GradientChecker<Dtype> checker(1e-2, 1e-3, 1701, 0., 0.01);
  checker.CheckGradientExhaustive(&layer, this->bottom_vec_, this->top_vec_);
}

TYPED_TEST(NeuronLayerTest, PReLUGradientChannelShared) {
  typedef TypeParam Dtype;
  LayerParameter p = NamedParam("PReLU");
  p.mutable_prelu_param()->set_channel_shared(true);
  PReLULayer<Dtype> layer(p);
  GradientChecker<Dtype> checker(1e-2, 1e-3, 1701, 0., 0.01);
  checker.CheckGradientExhaustive(&layer, this->bottom_vec_, this->top_vec_);
}

TYPED_TEST(NeuronLayerTest, PReLUInPlace) {
  typedef TypeParam Dtype;
  LayerParameter p = NamedParam("PReLU");
  p.mutable_prelu_param()->mutable_filler()->set_type("gaussian");
  CheckInPlaceMatches<Dtype>(p, this->bottom_vec_);
  p.mutable_prelu_param()->set_channel_shared(true);
  CheckInPlaceMatches<Dtype>(p, this->bottom_vec_);
}

TYPED_TEST(NeuronLayerTest, PReLUInternalBytes) {
  typedef TypeParam Dtype;
  PReLULayer<Dtype> layer(NamedParam("PReLU"));
  layer.SetUp(this->bottom_vec_, this->top_vec_);
  EXPECT_EQ(0u, layer.InternalBytes());
  PReLULayer<Dtype> in_place(NamedParam("PReLU"));
  in_place.SetUp(this->bottom_vec_, this->bottom_vec_);
  EXPECT_EQ(this->bottom_.count() * sizeof(Dtype), in_place.InternalBytes());
}

TYPED_TEST(NeuronLayerTest, PReLUBackwardReads) {
  typedef TypeParam Dtype;
  LayerParameter p = NamedParam("PReLU");
  p.mutable_prelu_param()->mutable_filler()->set_type("gaussian");
  PReLULayer<Dtype> layer(p);
  EXPECT_EQ(kReadsBottomData, layer.Memory().backward_reads);
  layer.SetUp(this->bottom_vec_, this->top_vec_);
  CheckBackwardReads<Dtype>(&layer, this->bottom_vec_, this->top_vec_);
}

TYPED_TEST(NeuronLayerTest, PReLUErrors) {
  typedef TypeParam Dtype;
  Blob<Dtype> one_axis(vector<int>(1, 6));
  vector<Blob<Dtype>*> bottom(1, &one_axis);
  PReLULayer<Dtype> layer(NamedParam("PReLU"));
  EXPECT_THROW(layer.SetUp(bottom, this->top_vec_), Error);
  // Stored slopes that do not match the channels.
  LayerParameter p = NamedParam("PReLU");
  BlobProto* stored = p.add_blobs();
  stored->mutable_shape()->add_dim(4);
  for (int i = 0; i < 4; ++i) stored->add_data(0.1f);
  PReLULayer<Dtype> mismatched(p);
  EXPECT_THROW(mismatched.SetUp(this->bottom_vec_, this->top_vec_), Error);
}

// ---------------------------------------------------------------- ELU

TYPED_TEST(NeuronLayerTest, ELUForward) {
  typedef TypeParam Dtype;
  LayerParameter p = NamedParam("ELU");
  p.mutable_elu_param()->set_alpha(0.5f);
  ELULayer<Dtype> layer(p);
  layer.SetUp(this->bottom_vec_, this->top_vec_);
  layer.Forward(this->bottom_vec_, this->top_vec_);
  for (int i = 0; i < this->bottom_.count(); ++i) {
    const double x = this->bottom_.cpu_data()[i];
    const double expected = x > 0 ? x : 0.5 * (std::exp(x) - 1);
    EXPECT_NEAR(expected, this->top_.cpu_data()[i], this->Tol(expected));
  }
}

TYPED_TEST(NeuronLayerTest, ELUGradient) {
  typedef TypeParam Dtype;
  LayerParameter p = NamedParam("ELU");
  p.mutable_elu_param()->set_alpha(0.5f);
  ELULayer<Dtype> layer(p);
  GradientChecker<Dtype> checker(1e-2, 1e-3, 1701, 0., 0.01);
  checker.CheckGradientEltwise(&layer, this->bottom_vec_, this->top_vec_);
  // Default alpha = 1 and a negative alpha (which reads the bottom).
  ELULayer<Dtype> unit(NamedParam("ELU"));
  checker.CheckGradientEltwise(&unit, this->bottom_vec_, this->top_vec_);
  p.mutable_elu_param()->set_alpha(-0.7f);
  ELULayer<Dtype> negative(p);
  checker.CheckGradientEltwise(&negative, this->bottom_vec_, this->top_vec_);
}

TYPED_TEST(NeuronLayerTest, ELUInPlace) {
  typedef TypeParam Dtype;
  LayerParameter p = NamedParam("ELU");
  p.mutable_elu_param()->set_alpha(0.5f);
  CheckInPlaceMatches<Dtype>(p, this->bottom_vec_);
}

TYPED_TEST(NeuronLayerTest, ELUBackwardReads) {
  typedef TypeParam Dtype;
  LayerParameter p = NamedParam("ELU");
  p.mutable_elu_param()->set_alpha(0.5f);
  ELULayer<Dtype> layer(p);
  EXPECT_EQ(kReadsTopData, layer.Memory().backward_reads);
  EXPECT_TRUE(layer.Memory().in_place);
  layer.SetUp(this->bottom_vec_, this->top_vec_);
  CheckBackwardReads<Dtype>(&layer, this->bottom_vec_, this->top_vec_);
  p.mutable_elu_param()->set_alpha(-0.5f);
  ELULayer<Dtype> negative(p);
  EXPECT_EQ(kReadsTopData | kReadsBottomData, negative.Memory().backward_reads);
  EXPECT_FALSE(negative.Memory().in_place);
  negative.SetUp(this->bottom_vec_, this->top_vec_);
  CheckBackwardReads<Dtype>(&negative, this->bottom_vec_, this->top_vec_);
}

// ---------------------------------------------------------------- Sigmoid

TYPED_TEST(NeuronLayerTest, SigmoidForward) {
  typedef TypeParam Dtype;
  this->bottom_.mutable_cpu_data()[0] = Dtype(80);
  this->bottom_.mutable_cpu_data()[1] = Dtype(-80);
  SigmoidLayer<Dtype> layer(NamedParam("Sigmoid"));
  layer.SetUp(this->bottom_vec_, this->top_vec_);
  layer.Forward(this->bottom_vec_, this->top_vec_);
  for (int i = 0; i < this->bottom_.count(); ++i) {
    const double x = this->bottom_.cpu_data()[i];
    const double expected = 1. / (1. + std::exp(-x));
    const Dtype y = this->top_.cpu_data()[i];
    EXPECT_NEAR(expected, y, this->Tol(expected));
    EXPECT_GE(y, 0);
    EXPECT_LE(y, 1);
  }
}

TYPED_TEST(NeuronLayerTest, SigmoidGradient) {
  typedef TypeParam Dtype;
  SigmoidLayer<Dtype> layer(NamedParam("Sigmoid"));
  GradientChecker<Dtype> checker(1e-2, 1e-3, 1701);
  checker.CheckGradientEltwise(&layer, this->bottom_vec_, this->top_vec_);
}

TYPED_TEST(NeuronLayerTest, SigmoidInPlace) {
  typedef TypeParam Dtype;
  CheckInPlaceMatches<Dtype>(NamedParam("Sigmoid"), this->bottom_vec_);
}

TYPED_TEST(NeuronLayerTest, SigmoidBackwardReads) {
  typedef TypeParam Dtype;
  SigmoidLayer<Dtype> layer(NamedParam("Sigmoid"));
  EXPECT_EQ(kReadsTopData, layer.Memory().backward_reads);
  layer.SetUp(this->bottom_vec_, this->top_vec_);
  CheckBackwardReads<Dtype>(&layer, this->bottom_vec_, this->top_vec_);
}

TYPED_TEST(NeuronLayerTest, SigmoidBadBlobCounts) {
  typedef TypeParam Dtype;
  SigmoidLayer<Dtype> layer(NamedParam("Sigmoid"));
  vector<Blob<Dtype>*> two(2, &this->top_);
  EXPECT_THROW(layer.SetUp(this->bottom_vec_, two), Error);
}

// ---------------------------------------------------------------- TanH

TYPED_TEST(NeuronLayerTest, TanHForward) {
  typedef TypeParam Dtype;
  TanHLayer<Dtype> layer(NamedParam("TanH"));
  layer.SetUp(this->bottom_vec_, this->top_vec_);
  layer.Forward(this->bottom_vec_, this->top_vec_);
  for (int i = 0; i < this->bottom_.count(); ++i) {
    const double x = this->bottom_.cpu_data()[i];
    const double expected = (std::exp(2 * x) - 1) / (std::exp(2 * x) + 1);
    EXPECT_NEAR(expected, this->top_.cpu_data()[i], this->Tol(expected));
  }
}

TYPED_TEST(NeuronLayerTest, TanHGradient) {
  typedef TypeParam Dtype;
  TanHLayer<Dtype> layer(NamedParam("TanH"));
  GradientChecker<Dtype> checker(1e-2, 1e-3, 1701);
  checker.CheckGradientEltwise(&layer, this->bottom_vec_, this->top_vec_);
}

TYPED_TEST(NeuronLayerTest, TanHInPlace) {
  typedef TypeParam Dtype;
  CheckInPlaceMatches<Dtype>(NamedParam("TanH"), this->bottom_vec_);
}

TYPED_TEST(NeuronLayerTest, TanHBackwardReads) {
  typedef TypeParam Dtype;
  TanHLayer<Dtype> layer(NamedParam("TanH"));
  EXPECT_EQ(kReadsTopData, layer.Memory().backward_reads);
  layer.SetUp(this->bottom_vec_, this->top_vec_);
  CheckBackwardReads<Dtype>(&layer, this->bottom_vec_, this->top_vec_);
}

TYPED_TEST(NeuronLayerTest, TanHBadBlobCounts) {
  typedef TypeParam Dtype;
  TanHLayer<Dtype> layer(NamedParam("TanH"));
  vector<Blob<Dtype>*> none;
  EXPECT_THROW(layer.SetUp(none, this->top_vec_), Error);
}

// ---------------------------------------------------------------- AbsVal

TYPED_TEST(NeuronLayerTest, AbsValForward) {
  typedef TypeParam Dtype;
  AbsValLayer<Dtype> layer(NamedParam("AbsVal"));
  layer.SetUp(this->bottom_vec_, this->top_vec_);
  layer.Forward(this->bottom_vec_, this->top_vec_);
  for (int i = 0; i < this->bottom_.count(); ++i) {
    const Dtype x = this->bottom_.cpu_data()[i];
    EXPECT_EQ(x < 0 ? -x : x, this->top_.cpu_data()[i]);
  }
}

TYPED_TEST(NeuronLayerTest, AbsValGradient) {
  typedef TypeParam Dtype;
  AbsValLayer<Dtype> layer(NamedParam("AbsVal"));
  GradientChecker<Dtype> checker(1e-2, 1e-3, 1701, 0., 0.01);
  checker.CheckGradientEltwise(&layer, this->bottom_vec_, this->top_vec_);
}

TYPED_TEST(NeuronLayerTest, AbsValBackwardReads) {
  typedef TypeParam Dtype;
  AbsValLayer<Dtype> layer(NamedParam("AbsVal"));
  EXPECT_EQ(kReadsBottomData, layer.Memory().backward_reads);
  EXPECT_FALSE(layer.Memory().in_place);
  layer.SetUp(this->bottom_vec_, this->top_vec_);
  CheckBackwardReads<Dtype>(&layer, this->bottom_vec_, this->top_vec_);
}

TYPED_TEST(NeuronLayerTest, AbsValRefusesInPlace) {
  typedef TypeParam Dtype;
  AbsValLayer<Dtype> layer(NamedParam("AbsVal"));
  EXPECT_THROW(layer.SetUp(this->bottom_vec_, this->bottom_vec_), Error);
}

// ---------------------------------------------------------------- BNLL

TYPED_TEST(NeuronLayerTest, BNLLForward) {
  typedef TypeParam Dtype;
  this->bottom_.mutable_cpu_data()[0] = Dtype(60);
  this->bottom_.mutable_cpu_data()[1] = Dtype(-60);
  BNLLLayer<Dtype> layer(NamedParam("BNLL"));
  layer.SetUp(this->bottom_vec_, this->top_vec_);
  layer.Forward(this->bottom_vec_, this->top_vec_);
  for (int i = 0; i < this->bottom_.count(); ++i) {
    const double x = this->bottom_.cpu_data()[i];
    const double expected = std::log1p(std::exp(x));
    EXPECT_NEAR(expected, this->top_.cpu_data()[i], this->Tol(expected));
  }
}

TYPED_TEST(NeuronLayerTest, BNLLGradient) {
  typedef TypeParam Dtype;
  BNLLLayer<Dtype> layer(NamedParam("BNLL"));
  GradientChecker<Dtype> checker(1e-2, 1e-3, 1701);
  checker.CheckGradientEltwise(&layer, this->bottom_vec_, this->top_vec_);
}

TYPED_TEST(NeuronLayerTest, BNLLBackwardReads) {
  typedef TypeParam Dtype;
  BNLLLayer<Dtype> layer(NamedParam("BNLL"));
  EXPECT_EQ(kReadsBottomData, layer.Memory().backward_reads);
  EXPECT_FALSE(layer.Memory().in_place);
  layer.SetUp(this->bottom_vec_, this->top_vec_);
  CheckBackwardReads<Dtype>(&layer, this->bottom_vec_, this->top_vec_);
}

TYPED_TEST(NeuronLayerTest, BNLLBadBlobCounts) {
  typedef TypeParam Dtype;
  BNLLLayer<Dtype> layer(NamedParam("BNLL"));
  vector<Blob<Dtype>*> two(2, &this->bottom_);
  EXPECT_THROW(layer.SetUp(two, this->top_vec_), Error);
}

// ---------------------------------------------------------------- Exp

template <typename Dtype>
static void CheckExpForward(NeuronLayerTest<Dtype>* t, float base,
                            float scale, float shift) {
  LayerParameter p = NamedParam("Exp");
  p.mutable_exp_param()->set_base(base);
  p.mutable_exp_param()->set_scale(scale);
  p.mutable_exp_param()->set_shift(shift);
  ExpLayer<Dtype> layer(p);
  vector<Blob<Dtype>*> bottom(1, &t->bottom_), top(1, &t->top_);
  layer.SetUp(bottom, top);
  layer.Forward(bottom, top);
  const double b = (base == -1.f) ? std::exp(1.0) : base;
  for (int i = 0; i < t->bottom_.count(); ++i) {
    const double x = t->bottom_.cpu_data()[i];
    const double expected = std::pow(b, double(shift) + double(scale) * x);
    const double tol = (sizeof(Dtype) == 4 ? 1e-5 : 1e-12) *
                       std::max(1.0, std::fabs(expected));
    EXPECT_NEAR(expected, t->top_.cpu_data()[i], tol)
        << "base " << base << " scale " << scale << " shift " << shift;
  }
}

TYPED_TEST(NeuronLayerTest, ExpForward) {
  CheckExpForward(this, -1.f, 1.f, 0.f);
  CheckExpForward(this, -1.f, 0.5f, 1.2f);
  CheckExpForward(this, 2.f, 1.f, 0.f);
  CheckExpForward(this, 2.f, -0.8f, 1.5f);
  CheckExpForward(this, 0.5f, 1.f, -1.f);
}

TYPED_TEST(NeuronLayerTest, ExpGradient) {
  typedef TypeParam Dtype;
  const float cases[][3] = {{-1, 1, 0}, {2, 0.5f, 1.2f}, {0.5f, -0.8f, 0}};
  for (const auto& c : cases) {
    LayerParameter p = NamedParam("Exp");
    p.mutable_exp_param()->set_base(c[0]);
    p.mutable_exp_param()->set_scale(c[1]);
    p.mutable_exp_param()->set_shift(c[2]);
    ExpLayer<Dtype> layer(p);
    GradientChecker<Dtype> checker(1e-2, 1e-3, 1701);
    checker.CheckGradientEltwise(&layer, this->bottom_vec_, this->top_vec_);
  }
}

TYPED_TEST(NeuronLayerTest, ExpInPlace) {
  typedef TypeParam Dtype;
  LayerParameter p = NamedParam("Exp");
  p.mutable_exp_param()->set_base(2.f);
  p.mutable_exp_param()->set_scale(0.5f);
  p.mutable_exp_param()->set_shift(1.f);
  CheckInPlaceMatches<Dtype>(p, this->bottom_vec_);
}

TYPED_TEST(NeuronLayerTest, ExpBackwardReads) {
  typedef TypeParam Dtype;
  LayerParameter p = NamedParam("Exp");
  p.mutable_exp_param()->set_base(2.f);
  p.mutable_exp_param()->set_shift(1.f);
  ExpLayer<Dtype> layer(p);
  EXPECT_EQ(kReadsTopData, layer.Memory().backward_reads);
  layer.SetUp(this->bottom_vec_, this->top_vec_);
  CheckBackwardReads<Dtype>(&layer, this->bottom_vec_, this->top_vec_);
}

TYPED_TEST(NeuronLayerTest, ExpBadBase) {
  typedef TypeParam Dtype;
  for (float base : {0.f, -2.f}) {
    LayerParameter p = NamedParam("Exp");
    p.mutable_exp_param()->set_base(base);
    ExpLayer<Dtype> layer(p);
    EXPECT_THROW(layer.SetUp(this->bottom_vec_, this->top_vec_), Error)
        << "base " << base;
  }
}

// ---------------------------------------------------------------- Log

template <typename Dtype>
static void CheckLogForward(NeuronLayerTest<Dtype>* t, float base,
                            float scale, float shift) {
  LayerParameter p = NamedParam("Log");
  p.mutable_log_param()->set_base(base);
  p.mutable_log_param()->set_scale(scale);
  p.mutable_log_param()->set_shift(shift);
  LogLayer<Dtype> layer(p);
  vector<Blob<Dtype>*> bottom(1, &t->bottom_), top(1, &t->top_);
  layer.SetUp(bottom, top);
  layer.Forward(bottom, top);
  const double log_b = (base == -1.f) ? 1.0 : std::log(double(base));
  for (int i = 0; i < t->bottom_.count(); ++i) {
    const double x = t->bottom_.cpu_data()[i];
    const double expected =
        std::log(double(shift) + double(scale) * x) / log_b;
    const double tol = (sizeof(Dtype) == 4 ? 1e-5 : 1e-12) *
                       std::max(1.0, std::fabs(expected));
    EXPECT_NEAR(expected, t->top_.cpu_data()[i], tol)
        << "base " << base << " scale " << scale << " shift " << shift;
  }
}

TYPED_TEST(NeuronLayerTest, LogForward) {
  this->FillUniform(0.5, 2.5);
  CheckLogForward(this, -1.f, 1.f, 0.f);
  CheckLogForward(this, -1.f, 0.5f, 1.2f);
  CheckLogForward(this, 2.f, 1.f, 0.f);
  CheckLogForward(this, 10.f, 2.f, -0.5f);
  CheckLogForward(this, 0.5f, -0.3f, 1.f);
}

TYPED_TEST(NeuronLayerTest, LogGradient) {
  typedef TypeParam Dtype;
  this->FillUniform(0.5, 2.5);
  const float cases[][3] = {{-1, 1, 0}, {2, 0.5f, 1.2f}, {0.5f, -0.3f, 1}};
  for (const auto& c : cases) {
    LayerParameter p = NamedParam("Log");
    p.mutable_log_param()->set_base(c[0]);
    p.mutable_log_param()->set_scale(c[1]);
    p.mutable_log_param()->set_shift(c[2]);
    LogLayer<Dtype> layer(p);
    GradientChecker<Dtype> checker(1e-2, 1e-2, 1701);
    checker.CheckGradientEltwise(&layer, this->bottom_vec_, this->top_vec_);
  }
}

TYPED_TEST(NeuronLayerTest, LogBackwardReads) {
  typedef TypeParam Dtype;
  this->FillUniform(0.5, 2.5);
  LayerParameter p = NamedParam("Log");
  p.mutable_log_param()->set_base(2.f);
  p.mutable_log_param()->set_scale(0.5f);
  p.mutable_log_param()->set_shift(1.f);
  LogLayer<Dtype> layer(p);
  EXPECT_EQ(kReadsBottomData, layer.Memory().backward_reads);
  EXPECT_FALSE(layer.Memory().in_place);
  layer.SetUp(this->bottom_vec_, this->top_vec_);
  CheckBackwardReads<Dtype>(&layer, this->bottom_vec_, this->top_vec_);
}

TYPED_TEST(NeuronLayerTest, LogBadBase) {
  typedef TypeParam Dtype;
  // 1 has log 0, so no logarithm to base 1 exists.
  for (float base : {0.f, -3.f, 1.f}) {
    LayerParameter p = NamedParam("Log");
    p.mutable_log_param()->set_base(base);
    LogLayer<Dtype> layer(p);
    EXPECT_THROW(layer.SetUp(this->bottom_vec_, this->top_vec_), Error)
        << "base " << base;
  }
}

// ---------------------------------------------------------------- Dropout

static LayerParameter DropoutParam(float ratio, Phase phase) {
  LayerParameter p = NamedParam("Dropout");
  p.set_phase(phase);
  p.mutable_dropout_param()->set_dropout_ratio(ratio);
  return p;
}

TYPED_TEST(NeuronLayerTest, DropoutTrainForward) {
  typedef TypeParam Dtype;
  Blob<Dtype> big(vector<int>{10, 20, 10});
  caffe_rng_gaussian<Dtype>(big.count(), Dtype(0), Dtype(1),
                            big.mutable_cpu_data());
  vector<Blob<Dtype>*> bottom(1, &big);
  for (float ratio : {0.5f, 0.2f}) {
    DropoutLayer<Dtype> layer(DropoutParam(ratio, TRAIN));
    layer.SetUp(bottom, this->top_vec_);
    layer.Forward(bottom, this->top_vec_);
    const Dtype scale = Dtype(1) / (Dtype(1) - Dtype(ratio));
    int kept = 0;
    for (int i = 0; i < big.count(); ++i) {
      const Dtype x = big.cpu_data()[i];
      const Dtype y = this->top_.cpu_data()[i];
      if (y != 0) {
        ++kept;
        EXPECT_EQ(x * scale, y);
      }
    }
    const double kept_fraction = double(kept) / big.count();
    EXPECT_NEAR(1.0 - ratio, kept_fraction, 0.05) << "ratio " << ratio;
  }
}

TYPED_TEST(NeuronLayerTest, DropoutTestIsIdentity) {
  typedef TypeParam Dtype;
  DropoutLayer<Dtype> layer(DropoutParam(0.5f, TEST));
  layer.SetUp(this->bottom_vec_, this->top_vec_);
  layer.Forward(this->bottom_vec_, this->top_vec_);
  for (int i = 0; i < this->bottom_.count(); ++i)
    EXPECT_EQ(this->bottom_.cpu_data()[i], this->top_.cpu_data()[i]);
  contract_test::FillTopDiffs(this->top_vec_);
  layer.Backward(this->top_vec_, vector<bool>(1, true), this->bottom_vec_);
  for (int i = 0; i < this->bottom_.count(); ++i)
    EXPECT_EQ(this->top_.cpu_diff()[i], this->bottom_.cpu_diff()[i]);
  EXPECT_EQ(0u, layer.InternalBytes());
}

TYPED_TEST(NeuronLayerTest, DropoutRatioZeroIsIdentity) {
  typedef TypeParam Dtype;
  DropoutLayer<Dtype> layer(DropoutParam(0.f, TRAIN));
  layer.SetUp(this->bottom_vec_, this->top_vec_);
  layer.Forward(this->bottom_vec_, this->top_vec_);
  for (int i = 0; i < this->bottom_.count(); ++i)
    EXPECT_EQ(this->bottom_.cpu_data()[i], this->top_.cpu_data()[i]);
}

TYPED_TEST(NeuronLayerTest, DropoutGradient) {
  typedef TypeParam Dtype;
  DropoutLayer<Dtype> layer(DropoutParam(0.3f, TRAIN));
  GradientChecker<Dtype> checker(1e-2, 1e-3, 1701);
  checker.CheckGradientEltwise(&layer, this->bottom_vec_, this->top_vec_);
  DropoutLayer<Dtype> test_layer(DropoutParam(0.3f, TEST));
  checker.CheckGradientEltwise(&test_layer, this->bottom_vec_,
                               this->top_vec_);
}

TYPED_TEST(NeuronLayerTest, DropoutInPlace) {
  typedef TypeParam Dtype;
  CheckInPlaceMatches<Dtype>(DropoutParam(0.5f, TRAIN), this->bottom_vec_);
  CheckInPlaceMatches<Dtype>(DropoutParam(0.5f, TEST), this->bottom_vec_);
}

TYPED_TEST(NeuronLayerTest, DropoutBackwardReadsAndMask) {
  typedef TypeParam Dtype;
  DropoutLayer<Dtype> layer(DropoutParam(0.5f, TRAIN));
  EXPECT_EQ(kReadsNothing, layer.Memory().backward_reads);
  EXPECT_TRUE(layer.Memory().in_place);
  layer.SetUp(this->bottom_vec_, this->top_vec_);
  EXPECT_EQ(this->bottom_.count() * sizeof(unsigned int),
            layer.InternalBytes());
  CheckBackwardReads<Dtype>(&layer, this->bottom_vec_, this->top_vec_);
}

TYPED_TEST(NeuronLayerTest, DropoutBadRatio) {
  typedef TypeParam Dtype;
  for (float ratio : {1.f, -0.1f, 1.5f}) {
    DropoutLayer<Dtype> layer(DropoutParam(ratio, TRAIN));
    EXPECT_THROW(layer.SetUp(this->bottom_vec_, this->top_vec_), Error)
        << "ratio " << ratio;
  }
}

// ---------------------------------------------------------------- Registry

// ---------------------------------------------------------------- Clip

static LayerParameter ClipParam(float lo, float hi) {
  LayerParameter p = NamedParam("Clip");
  p.mutable_clip_param()->set_min(lo);
  p.mutable_clip_param()->set_max(hi);
  return p;
}

TYPED_TEST(NeuronLayerTest, ClipForward) {
  typedef TypeParam Dtype;
  // Values exactly at the bounds stay and pass their gradient (Caffe's >=).
  this->bottom_.mutable_cpu_data()[0] = Dtype(-0.5);
  this->bottom_.mutable_cpu_data()[1] = Dtype(0.75);
  ClipLayer<Dtype> layer(ClipParam(-0.5f, 0.75f));
  layer.SetUp(this->bottom_vec_, this->top_vec_);
  layer.Forward(this->bottom_vec_, this->top_vec_);
  int clipped = 0;
  for (int i = 0; i < this->bottom_.count(); ++i) {
    const Dtype x = this->bottom_.cpu_data()[i];
    const Dtype expected = x < Dtype(-0.5) ? Dtype(-0.5)
                           : x > Dtype(0.75) ? Dtype(0.75) : x;
    EXPECT_EQ(expected, this->top_.cpu_data()[i]) << i;
    clipped += expected != x;
  }
  EXPECT_GT(clipped, 20);
  caffe_set(this->top_.count(), Dtype(2), this->top_.mutable_cpu_diff());
  layer.Backward(this->top_vec_, vector<bool>(1, true), this->bottom_vec_);
  for (int i = 0; i < this->bottom_.count(); ++i) {
    const Dtype x = this->bottom_.cpu_data()[i];
    const bool inside = x >= Dtype(-0.5) && x <= Dtype(0.75);
    EXPECT_EQ(inside ? Dtype(2) : Dtype(0), this->bottom_.cpu_diff()[i]) << i;
  }
}

TYPED_TEST(NeuronLayerTest, ClipGradient) {
  typedef TypeParam Dtype;
  // Finite differences need every input away from the two kinks.
  Dtype* x = this->bottom_.mutable_cpu_data();
  for (int i = 0; i < this->bottom_.count(); ++i) {
    if (std::fabs(x[i] + Dtype(0.6)) < Dtype(0.05)) x[i] -= Dtype(0.1);
    if (std::fabs(x[i] - Dtype(0.7)) < Dtype(0.05)) x[i] += Dtype(0.1);
  }
  ClipLayer<Dtype> layer(ClipParam(-0.6f, 0.7f));
  GradientChecker<Dtype> checker(1e-3, 1e-3, 1701);
  checker.CheckGradientEltwise(&layer, this->bottom_vec_, this->top_vec_);
}

TYPED_TEST(NeuronLayerTest, ClipInPlace) {
  typedef TypeParam Dtype;
  CheckInPlaceMatches<Dtype>(ClipParam(-0.6f, 0.7f), this->bottom_vec_);
}

TYPED_TEST(NeuronLayerTest, ClipBackwardReads) {
  typedef TypeParam Dtype;
  ClipLayer<Dtype> layer(ClipParam(-0.6f, 0.7f));
  EXPECT_EQ(kReadsNothing, layer.Memory().backward_reads);
  EXPECT_TRUE(layer.Memory().in_place);
  layer.SetUp(this->bottom_vec_, this->top_vec_);
  EXPECT_EQ(this->bottom_.count() * sizeof(unsigned int),
            layer.InternalBytes());
  CheckBackwardReads<Dtype>(&layer, this->bottom_vec_, this->top_vec_);
}

TYPED_TEST(NeuronLayerTest, ClipRefusesBadBoundsNamingTheLayer) {
  typedef TypeParam Dtype;
  ClipLayer<Dtype> reversed(ClipParam(1.f, -1.f));
  try {
    reversed.SetUp(this->bottom_vec_, this->top_vec_);
    ADD_FAILURE() << "min > max was accepted";
  } catch (const Error& e) {
    EXPECT_NE(string(e.what()).find("Clip layer test_Clip"), string::npos)
        << e.what();
  }
  ClipLayer<Dtype> missing(NamedParam("Clip"));
  EXPECT_THROW(missing.SetUp(this->bottom_vec_, this->top_vec_), Error);
  shared_ptr<Layer<Dtype> > made =
      LayerRegistry<Dtype>::CreateLayer(ClipParam(0, 6));
  EXPECT_STREQ("Clip", made->type());
}

// ---------------------------------------------------------------- Swish

static LayerParameter SwishParam(float beta) {
  LayerParameter p = NamedParam("Swish");
  p.mutable_swish_param()->set_beta(beta);
  return p;
}

TYPED_TEST(NeuronLayerTest, SwishForward) {
  typedef TypeParam Dtype;
  this->bottom_.mutable_cpu_data()[0] = Dtype(60);
  this->bottom_.mutable_cpu_data()[1] = Dtype(-60);
  for (float beta : {1.f, 1.5f}) {
    SwishLayer<Dtype> layer(SwishParam(beta));
    layer.SetUp(this->bottom_vec_, this->top_vec_);
    layer.Forward(this->bottom_vec_, this->top_vec_);
    for (int i = 0; i < this->bottom_.count(); ++i) {
      const double x = this->bottom_.cpu_data()[i];
      const double expected = x / (1. + std::exp(-beta * x));
      EXPECT_NEAR(expected, this->top_.cpu_data()[i], this->Tol(expected))
          << "beta " << beta << " x " << x;
    }
  }
}

TYPED_TEST(NeuronLayerTest, SwishGradient) {
  typedef TypeParam Dtype;
  for (float beta : {1.f, 0.5f, 2.f}) {
    SwishLayer<Dtype> layer(SwishParam(beta));
    GradientChecker<Dtype> checker(1e-2, 1e-3, 1701);
    checker.CheckGradientEltwise(&layer, this->bottom_vec_, this->top_vec_);
  }
  SwishLayer<Dtype> unit(NamedParam("Swish"));  // beta defaults to 1
  GradientChecker<Dtype> checker(1e-2, 1e-3, 1701);
  checker.CheckGradientEltwise(&unit, this->bottom_vec_, this->top_vec_);
}

TYPED_TEST(NeuronLayerTest, SwishInPlace) {
  typedef TypeParam Dtype;
  CheckInPlaceMatches<Dtype>(SwishParam(1.5f), this->bottom_vec_);
}

TYPED_TEST(NeuronLayerTest, SwishBackwardReads) {
  typedef TypeParam Dtype;
  SwishLayer<Dtype> layer(SwishParam(1.5f));
  EXPECT_EQ(kReadsTopData, layer.Memory().backward_reads);
  EXPECT_TRUE(layer.Memory().in_place);
  layer.SetUp(this->bottom_vec_, this->top_vec_);
  EXPECT_EQ(this->bottom_.count() * sizeof(Dtype), layer.InternalBytes());
  CheckBackwardReads<Dtype>(&layer, this->bottom_vec_, this->top_vec_);
}

TYPED_TEST(NeuronLayerTest, Registered) {
  typedef TypeParam Dtype;
  for (const char* type : {"ReLU", "PReLU", "ELU", "Sigmoid", "TanH",
                           "AbsVal", "BNLL", "Exp", "Log", "Dropout",
                           "Swish"}) {
    shared_ptr<Layer<Dtype> > layer =
        LayerRegistry<Dtype>::CreateLayer(NamedParam(type));
    EXPECT_STREQ(type, layer->type());
  }
}

}  // namespace caffe
