// Tests of the Input layer: shapes from input_param, tops left to the caller.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "caffe/layers/input_layer.hpp"
#include "caffe/test/test_gradient_check_util.hpp"

namespace caffe {

template <typename Dtype>
class InputLayerTest : public ::testing::Test {
 protected:
  InputLayerTest() : top_{&a_, &b_} {}

  static void AddShape(LayerParameter* param, const vector<int>& dims) {
    BlobShape* shape = param->mutable_input_param()->add_shape();
    for (int d : dims) shape->add_dim(d);
  }

  Blob<Dtype> a_, b_;
  vector<Blob<Dtype>*> top_;
  vector<Blob<Dtype>*> bottom_;
};

TYPED_TEST_SUITE(InputLayerTest, TestDtypes);

TYPED_TEST(InputLayerTest, OneShapePerTop) {
  LayerParameter param;
  this->AddShape(&param, {2, 3, 4, 5});
  this->AddShape(&param, {2});
  InputLayer<TypeParam> layer(param);
  layer.SetUp(this->bottom_, this->top_);
  EXPECT_EQ((vector<int>{2, 3, 4, 5}), this->a_.shape());
  EXPECT_EQ((vector<int>{2}), this->b_.shape());
}

TYPED_TEST(InputLayerTest, OneShapeSharedByAllTops) {
  LayerParameter param;
  this->AddShape(&param, {1, 7});
  InputLayer<TypeParam> layer(param);
  layer.SetUp(this->bottom_, this->top_);
  EXPECT_EQ((vector<int>{1, 7}), this->a_.shape());
  EXPECT_EQ((vector<int>{1, 7}), this->b_.shape());
}

TYPED_TEST(InputLayerTest, NoShapeLeavesTopsAndForwardKeepsData) {
  this->a_.Reshape(vector<int>{3});
  LayerParameter param;
  InputLayer<TypeParam> layer(param);
  layer.SetUp(this->bottom_, this->top_);
  EXPECT_EQ((vector<int>{3}), this->a_.shape());
  // The caller's data survives Forward and Backward.
  for (int i = 0; i < 3; ++i) this->a_.mutable_cpu_data()[i] = i + 0.5;
  layer.Forward(this->bottom_, this->top_);
  layer.Backward(this->top_, vector<bool>(), this->bottom_);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(i + 0.5, this->a_.cpu_data()[i]);
}

TYPED_TEST(InputLayerTest, WrongNumberOfShapesThrows) {
  LayerParameter param;
  param.set_name("in");
  this->AddShape(&param, {1});
  this->AddShape(&param, {2});
  this->AddShape(&param, {3});
  InputLayer<TypeParam> layer(param);
  try {
    layer.SetUp(this->bottom_, this->top_);
    FAIL() << "expected caffe::Error";
  } catch (const Error& e) {
    EXPECT_NE(string::npos, string(e.what()).find("'in'")) << e.what();
  }
  // A bottom is refused.
  LayerParameter plain;
  InputLayer<TypeParam> layer2(plain);
  Blob<TypeParam> bottom(vector<int>{1});
  vector<Blob<TypeParam>*> bottoms{&bottom};
  EXPECT_THROW(layer2.SetUp(bottoms, this->top_), Error);
}

TYPED_TEST(InputLayerTest, BackwardReadsNothing) {
  LayerParameter param;
  this->AddShape(&param, {2});
  InputLayer<TypeParam> layer(param);
  EXPECT_EQ(kReadsNothing, layer.Memory().backward_reads);
  EXPECT_FALSE(layer.Memory().in_place);
  layer.SetUp(this->bottom_, this->top_);
  layer.Forward(this->bottom_, this->top_);
  const TypeParam nan = std::numeric_limits<TypeParam>::quiet_NaN();
  caffe_set(2, nan, this->a_.mutable_cpu_data());
  caffe_set(2, TypeParam(1), this->a_.mutable_cpu_diff());
  layer.Backward(this->top_, vector<bool>(), this->bottom_);
  EXPECT_EQ(1, this->a_.cpu_diff()[0]);
}

}  // namespace caffe
