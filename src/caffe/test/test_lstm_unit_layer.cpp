// Tests for LSTMUnitLayer: forward values against loops written here (with
// cont = 0 forgetting c_{t-1}), gradients by finite differences for c_{t-1}
// and the gates (also for a fractional cont), the BackwardReads declaration
// (backward recomputes from the bottoms), and shape errors.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "caffe/blob.hpp"
#include "caffe/common.hpp"
#include "caffe/layers/lstm_unit_layer.hpp"
#include "caffe/test/test_gradient_check_util.hpp"
#include "caffe/test/test_layer_contract_util.hpp"

namespace caffe {

using contract_test::CheckBackwardReads;

template <typename Dtype>
class LSTMUnitLayerTest : public ::testing::Test {
 public:
  static const int kN = 3;
  static const int kD = 2;
  LSTMUnitLayerTest()
      : c_prev_(vector<int>{1, kN, kD}),
        gates_(vector<int>{1, kN, 4 * kD}),
        cont_(vector<int>{1, kN}) {
    Caffe::set_random_seed(1701);
    caffe_rng_uniform<Dtype>(c_prev_.count(), Dtype(-1), Dtype(1),
                             c_prev_.mutable_cpu_data());
    caffe_rng_uniform<Dtype>(gates_.count(), Dtype(-1), Dtype(1),
                             gates_.mutable_cpu_data());
    // Stream 1 starts a new sequence.
    cont_.mutable_cpu_data()[0] = 1;
    cont_.mutable_cpu_data()[1] = 0;
    cont_.mutable_cpu_data()[2] = 1;
    bottom_ = {&c_prev_, &gates_, &cont_};
    top_ = {&c_, &h_};
  }
  LayerParameter Param() const {
    LayerParameter p;
    p.set_name("unit");
    p.set_type("LSTMUnit");
    return p;
  }
  Blob<Dtype> c_prev_, gates_, cont_, c_, h_;
  vector<Blob<Dtype>*> bottom_, top_;
};

TYPED_TEST_SUITE(LSTMUnitLayerTest, TestDtypes);

TYPED_TEST(LSTMUnitLayerTest, Forward) {
  typedef TypeParam Dtype;
  const int N = this->kN, D = this->kD;
  LSTMUnitLayer<Dtype> layer(this->Param());
  layer.SetUp(this->bottom_, this->top_);
  EXPECT_EQ(this->c_prev_.shape(), this->c_.shape());
  EXPECT_EQ(this->c_prev_.shape(), this->h_.shape());
  layer.Forward(this->bottom_, this->top_);
  const double tol = sizeof(Dtype) == 4 ? 1e-6 : 1e-14;
  auto sigmoid = [](double v) { return 1 / (1 + std::exp(-v)); };
  for (int n = 0; n < N; ++n) {
    for (int d = 0; d < D; ++d) {
      const Dtype* x = this->gates_.cpu_data() + n * 4 * D;
      const double i = sigmoid(x[d]);
      const double f = this->cont_.cpu_data()[n] * sigmoid(x[D + d]);
      const double o = sigmoid(x[2 * D + d]);
      const double g = std::tanh(static_cast<double>(x[3 * D + d]));
      const double c = f * this->c_prev_.cpu_data()[n * D + d] + i * g;
      EXPECT_NEAR(c, this->c_.cpu_data()[n * D + d], tol) << n << "," << d;
      EXPECT_NEAR(o * std::tanh(c), this->h_.cpu_data()[n * D + d], tol)
          << n << "," << d;
    }
  }
  // cont = 0: c_{t-1} does not matter, even if it is not finite.
  this->c_prev_.mutable_cpu_data()[1 * D] = INFINITY;
  const Dtype c_before = this->c_.cpu_data()[1 * D];
  layer.Forward(this->bottom_, this->top_);
  EXPECT_EQ(c_before, this->c_.cpu_data()[1 * D]);
}

TYPED_TEST(LSTMUnitLayerTest, Gradient) {
  typedef TypeParam Dtype;
  for (int check_bottom = 0; check_bottom < 2; ++check_bottom) {
    LSTMUnitLayer<Dtype> layer(this->Param());
    GradientChecker<Dtype> checker(1e-2, 1e-3);
    layer.SetUp(this->bottom_, this->top_);
    checker.CheckGradientSingle(&layer, this->bottom_, this->top_,
                                check_bottom, -1, -1);
  }
}

TYPED_TEST(LSTMUnitLayerTest, GradientFractionalCont) {
  typedef TypeParam Dtype;
  this->cont_.mutable_cpu_data()[1] = Dtype(0.5);
  this->cont_.mutable_cpu_data()[2] = Dtype(2);
  for (int check_bottom = 0; check_bottom < 2; ++check_bottom) {
    LSTMUnitLayer<Dtype> layer(this->Param());
    GradientChecker<Dtype> checker(1e-2, 1e-3);
    layer.SetUp(this->bottom_, this->top_);
    checker.CheckGradientSingle(&layer, this->bottom_, this->top_,
                                check_bottom, -1, -1);
  }
}

TYPED_TEST(LSTMUnitLayerTest, BackwardReads) {
  typedef TypeParam Dtype;
  LSTMUnitLayer<Dtype> layer(this->Param());
  EXPECT_EQ(kReadsBottomData, layer.Memory().backward_reads);
  EXPECT_FALSE(layer.Memory().in_place);
  EXPECT_EQ(0u, layer.InternalBytes());
  EXPECT_TRUE(layer.AllowForceBackward(0));
  EXPECT_TRUE(layer.AllowForceBackward(1));
  EXPECT_FALSE(layer.AllowForceBackward(2));
  layer.SetUp(this->bottom_, this->top_);
  CheckBackwardReads<Dtype>(&layer, this->bottom_, this->top_,
                            vector<bool>{true, true, false});
}

TYPED_TEST(LSTMUnitLayerTest, PartialPropagateDown) {
  typedef TypeParam Dtype;
  LSTMUnitLayer<Dtype> layer(this->Param());
  layer.SetUp(this->bottom_, this->top_);
  layer.Forward(this->bottom_, this->top_);
  contract_test::FillTopDiffs(this->top_);
  layer.Backward(this->top_, vector<bool>{true, true, false}, this->bottom_);
  vector<Dtype> c_diff(this->c_prev_.cpu_diff(),
                       this->c_prev_.cpu_diff() + this->c_prev_.count());
  caffe_set(this->c_prev_.count(), Dtype(7), this->c_prev_.mutable_cpu_diff());
  layer.Backward(this->top_, vector<bool>{false, true, false}, this->bottom_);
  for (int i = 0; i < this->c_prev_.count(); ++i)
    EXPECT_EQ(Dtype(7), this->c_prev_.cpu_diff()[i]);
  layer.Backward(this->top_, vector<bool>{true, false, false}, this->bottom_);
  for (int i = 0; i < this->c_prev_.count(); ++i)
    EXPECT_EQ(c_diff[i], this->c_prev_.cpu_diff()[i]);
  EXPECT_THROW(layer.Backward(this->top_, vector<bool>{true, true, true},
                              this->bottom_),
               Error);
}

TYPED_TEST(LSTMUnitLayerTest, BadShapesThrow) {
  typedef TypeParam Dtype;
  const int N = this->kN, D = this->kD;
  LSTMUnitLayer<Dtype> layer(this->Param());
  this->gates_.Reshape(vector<int>{1, N, 3 * D});
  EXPECT_THROW(layer.SetUp(this->bottom_, this->top_), Error);
  this->gates_.Reshape(vector<int>{1, N, 4 * D});
  this->cont_.Reshape(vector<int>{1, N + 1});
  EXPECT_THROW(layer.SetUp(this->bottom_, this->top_), Error);
  this->cont_.Reshape(vector<int>{1, N});
  this->c_prev_.Reshape(vector<int>{N, D});
  EXPECT_THROW(layer.SetUp(this->bottom_, this->top_), Error);
  this->c_prev_.Reshape(vector<int>{2, N, D});
  EXPECT_THROW(layer.SetUp(this->bottom_, this->top_), Error);
  this->c_prev_.Reshape(vector<int>{1, N, D});
  EXPECT_NO_THROW(layer.SetUp(this->bottom_, this->top_));
  vector<Blob<Dtype>*> two(this->bottom_.begin(), this->bottom_.begin() + 2);
  EXPECT_THROW(layer.SetUp(two, this->top_), Error);
}

}  // namespace caffe
