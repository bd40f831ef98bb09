#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "caffe/blob.hpp"
#include "caffe/layers/euclidean_loss_layer.hpp"
#include "caffe/test/test_fill_util.hpp"
#include "caffe/test/test_gradient_check_util.hpp"
#include "caffe/test/test_layer_contract_util.hpp"

namespace caffe {

using contract_test::CheckBackwardReads;

template <typename Dtype>
class EuclideanLossLayerTest : public ::testing::Test {
 protected:
  EuclideanLossLayerTest()
      : a_(new Blob<Dtype>(vector<int>{5, 2, 3})),
        b_(new Blob<Dtype>(vector<int>{5, 6})),
        loss_(new Blob<Dtype>()) {
    Caffe::set_random_seed(1701);
    FillGaussian(a_.get());
    FillGaussian(b_.get());
    bottom_vec_ = {a_.get(), b_.get()};
    top_vec_ = {loss_.get()};
    param_.set_name("euclid");
  }
  std::unique_ptr<Blob<Dtype> > a_, b_, loss_;
  vector<Blob<Dtype>*> bottom_vec_, top_vec_;
  LayerParameter param_;
};

TYPED_TEST_SUITE(EuclideanLossLayerTest, TestDtypes);

TYPED_TEST(EuclideanLossLayerTest, Forward) {
  typedef TypeParam Dtype;
  EuclideanLossLayer<Dtype> layer(this->param_);
  EXPECT_STREQ(layer.type(), "EuclideanLoss");
  layer.SetUp(this->bottom_vec_, this->top_vec_);
  EXPECT_EQ(this->loss_->num_axes(), 0);
  EXPECT_EQ(layer.loss(0), Dtype(1));
  const Dtype loss = layer.Forward(this->bottom_vec_, this->top_vec_);
  double expected = 0;
  for (int i = 0; i < 30; ++i) {
    const double d = this->a_->cpu_data()[i] - this->b_->cpu_data()[i];
    expected += d * d;
  }
  expected /= 2 * 5;
  EXPECT_NEAR(expected, this->loss_->cpu_data()[0], 1e-5);
  EXPECT_NEAR(expected, loss, 1e-5);
  EXPECT_EQ(layer.InternalBytes(), 30 * sizeof(Dtype));
  // Unlike labels, the second input may be learned.
  EXPECT_TRUE(layer.AllowForceBackward(1));
}

TYPED_TEST(EuclideanLossLayerTest, GradientBothBottoms) {
  typedef TypeParam Dtype;
  EuclideanLossLayer<Dtype> layer(this->param_);
  GradientChecker<Dtype> checker(1e-2, 1e-2, 1701);
  checker.CheckGradientExhaustive(&layer, this->bottom_vec_, this->top_vec_);
}

TYPED_TEST(EuclideanLossLayerTest, GradientWithLossWeight) {
  typedef TypeParam Dtype;
  LayerParameter param = this->param_;
  param.add_loss_weight(3.5);
  EuclideanLossLayer<Dtype> layer(param);
  GradientChecker<Dtype> checker(1e-2, 1e-2, 1701);
  checker.CheckGradientExhaustive(&layer, this->bottom_vec_, this->top_vec_, 0);
}

TYPED_TEST(EuclideanLossLayerTest, BackwardReadsDeclaration) {
  typedef TypeParam Dtype;
  EuclideanLossLayer<Dtype> layer(this->param_);
  EXPECT_EQ(layer.Memory().backward_reads, kReadsNothing);
  EXPECT_FALSE(layer.Memory().in_place);
  layer.SetUp(this->bottom_vec_, this->top_vec_);
  CheckBackwardReads(&layer, this->bottom_vec_, this->top_vec_,
                     vector<bool>{true, true});
}

TYPED_TEST(EuclideanLossLayerTest, BadShapesThrow) {
  typedef TypeParam Dtype;
  {
    Blob<Dtype> other(vector<int>{5, 7});
    vector<Blob<Dtype>*> bottom{this->a_.get(), &other};
    EuclideanLossLayer<Dtype> layer(this->param_);
    try {
      layer.SetUp(bottom, this->top_vec_);
      ADD_FAILURE() << "no error";
    } catch (const Error& e) {
      EXPECT_NE(string(e.what()).find("euclid"), string::npos) << e.what();
    }
  }
  {
    Blob<Dtype> other(vector<int>{6, 5});
    vector<Blob<Dtype>*> bottom{this->b_.get(), &other};
    EuclideanLossLayer<Dtype> layer(this->param_);
    EXPECT_THROW(layer.SetUp(bottom, this->top_vec_), Error);
  }
  {
    vector<Blob<Dtype>*> one{this->a_.get()};
    EuclideanLossLayer<Dtype> layer(this->param_);
    EXPECT_THROW(layer.SetUp(one, this->top_vec_), Error);
  }
}

}  // namespace caffe
