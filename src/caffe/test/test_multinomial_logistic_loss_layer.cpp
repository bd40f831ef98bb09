// Tests for MultinomialLogisticLossLayer: loss against a loop, the 1e-20
// clamp, loss-weight scaling, gradient, the BackwardReads declaration and
// label / shape errors.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "caffe/blob.hpp"
#include "caffe/common.hpp"
#include "caffe/layers/multinomial_logistic_loss_layer.hpp"
#include "caffe/test/test_gradient_check_util.hpp"
#include "caffe/test/test_layer_contract_util.hpp"

namespace caffe {

template <typename Dtype>
class MultinomialLogisticLossLayerTest : public ::testing::Test {
 protected:
  MultinomialLogisticLossLayerTest()
      : prob_(vector<int>{10, 5, 1, 1}), label_(vector<int>{10, 1, 1, 1}) {
    Caffe::set_random_seed(1701);
    caffe_rng_uniform<Dtype>(prob_.count(), Dtype(0.2), Dtype(1),
                             prob_.mutable_cpu_data());
    for (int i = 0; i < 10; ++i)
      label_.mutable_cpu_data()[i] = Dtype((i * 3 + 1) % 5);
    bottom_vec_ = {&prob_, &label_};
    top_vec_.push_back(&loss_);
  }
  LayerParameter Param() {
    LayerParameter p;
    p.set_name("mlr");
    p.set_type("MultinomialLogisticLoss");
    return p;
  }
  double Expected() const {
    double loss = 0;
    for (int i = 0; i < 10; ++i) {
      const int l = static_cast<int>(label_.cpu_data()[i]);
      loss -= std::log(std::max<double>(prob_.cpu_data()[i * 5 + l],
                                        Dtype(1e-20f)));
    }
    return loss / 10;
  }
  Blob<Dtype> prob_, label_, loss_;
  vector<Blob<Dtype>*> bottom_vec_, top_vec_;
};

TYPED_TEST_SUITE(MultinomialLogisticLossLayerTest, TestDtypes);

TYPED_TEST(MultinomialLogisticLossLayerTest, Forward) {
  typedef TypeParam Dtype;
  MultinomialLogisticLossLayer<Dtype> layer(this->Param());
  layer.SetUp(this->bottom_vec_, this->top_vec_);
  EXPECT_EQ(0, this->loss_.num_axes());
  const Dtype ret = layer.Forward(this->bottom_vec_, this->top_vec_);
  EXPECT_NEAR(this->Expected(), this->loss_.cpu_data()[0], 1e-5);
  EXPECT_NEAR(this->Expected(), ret, 1e-5);
}

TYPED_TEST(MultinomialLogisticLossLayerTest, TwoAxisInputs) {
  typedef TypeParam Dtype;
  // N x K probabilities and N labels.
  this->prob_.Reshape(vector<int>{10, 5});
  this->label_.Reshape(vector<int>{10});
  MultinomialLogisticLossLayer<Dtype> layer(this->Param());
  layer.SetUp(this->bottom_vec_, this->top_vec_);
  layer.Forward(this->bottom_vec_, this->top_vec_);
  EXPECT_NEAR(this->Expected(), this->loss_.cpu_data()[0], 1e-5);
}

TYPED_TEST(MultinomialLogisticLossLayerTest, ClampsAtThreshold) {
  typedef TypeParam Dtype;
  const int l0 = static_cast<int>(this->label_.cpu_data()[0]);
  this->prob_.mutable_cpu_data()[l0] = 0;
  MultinomialLogisticLossLayer<Dtype> layer(this->Param());
  layer.SetUp(this->bottom_vec_, this->top_vec_);
  layer.Forward(this->bottom_vec_, this->top_vec_);
  const double expected = this->Expected();
  EXPECT_TRUE(std::isfinite(this->loss_.cpu_data()[0]));
  EXPECT_NEAR(expected, this->loss_.cpu_data()[0], 1e-4);
  // The gradient there uses the clamped value too: -1 / (N * 1e-20).
  this->loss_.mutable_cpu_diff()[0] = 1;
  layer.Backward(this->top_vec_, vector<bool>{true, false}, this->bottom_vec_);
  EXPECT_NEAR(-1.0 / (10 * double(Dtype(1e-20f))),
              double(this->prob_.cpu_diff()[l0]), 1e-5 * 1e19);
}

TYPED_TEST(MultinomialLogisticLossLayerTest, BackwardValuesAndWeight) {
  typedef TypeParam Dtype;
  MultinomialLogisticLossLayer<Dtype> layer(this->Param());
  layer.SetUp(this->bottom_vec_, this->top_vec_);
  layer.Forward(this->bottom_vec_, this->top_vec_);
  this->loss_.mutable_cpu_diff()[0] = Dtype(2.5);
  layer.Backward(this->top_vec_, vector<bool>{true, false}, this->bottom_vec_);
  for (int i = 0; i < 10; ++i)
    for (int k = 0; k < 5; ++k) {
      const int l = static_cast<int>(this->label_.cpu_data()[i]);
      const double want =
          k == l ? -2.5 / (10 * double(this->prob_.cpu_data()[i * 5 + k])) : 0;
      EXPECT_NEAR(want, this->prob_.cpu_diff()[i * 5 + k], 1e-5);
    }
}

TYPED_TEST(MultinomialLogisticLossLayerTest, Gradient) {
  typedef TypeParam Dtype;
  MultinomialLogisticLossLayer<Dtype> layer(this->Param());
  GradientChecker<Dtype> checker(1e-2, 2e-2, 1701, 0, 0.05);
  checker.CheckGradientExhaustive(&layer, this->bottom_vec_, this->top_vec_,
                                  0);
}

TYPED_TEST(MultinomialLogisticLossLayerTest, BackwardReads) {
  typedef TypeParam Dtype;
  MultinomialLogisticLossLayer<Dtype> layer(this->Param());
  EXPECT_EQ(kReadsNothing, layer.Memory().backward_reads);
  EXPECT_FALSE(layer.Memory().in_place);
  EXPECT_FALSE(layer.AllowForceBackward(1));
  layer.SetUp(this->bottom_vec_, this->top_vec_);
  EXPECT_EQ(10 * (sizeof(int) + sizeof(Dtype)), layer.InternalBytes());
  contract_test::CheckBackwardReads<Dtype>(
      &layer, this->bottom_vec_, this->top_vec_, vector<bool>{true, false});
}

TYPED_TEST(MultinomialLogisticLossLayerTest, Errors) {
  typedef TypeParam Dtype;
  {
    MultinomialLogisticLossLayer<Dtype> layer(this->Param());
    layer.SetUp(this->bottom_vec_, this->top_vec_);
    this->label_.mutable_cpu_data()[3] = 5;
    EXPECT_THROW(layer.Forward(this->bottom_vec_, this->top_vec_), Error);
    this->label_.mutable_cpu_data()[3] = -1;
    EXPECT_THROW(layer.Forward(this->bottom_vec_, this->top_vec_), Error);
    this->label_.mutable_cpu_data()[3] = 1;
    layer.Forward(this->bottom_vec_, this->top_vec_);
    EXPECT_THROW(layer.Backward(this->top_vec_, vector<bool>{true, true},
                                this->bottom_vec_),
                 Error);
  }
  {
    Blob<Dtype> label2(vector<int>{10, 2, 1, 1});
    vector<Blob<Dtype>*> b{&this->prob_, &label2};
    MultinomialLogisticLossLayer<Dtype> layer(this->Param());
    EXPECT_THROW(layer.SetUp(b, this->top_vec_), Error);
  }
  {
    Blob<Dtype> label9(vector<int>{9, 1, 1, 1});
    vector<Blob<Dtype>*> b{&this->prob_, &label9};
    MultinomialLogisticLossLayer<Dtype> layer(this->Param());
    EXPECT_THROW(layer.SetUp(b, this->top_vec_), Error);
  }
}

}  // namespace caffe
