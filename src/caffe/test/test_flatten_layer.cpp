#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "caffe/blob.hpp"
#include "caffe/layers/flatten_layer.hpp"
#include "caffe/test/test_fill_util.hpp"
#include "caffe/test/test_gradient_check_util.hpp"
#include "caffe/test/test_layer_contract_util.hpp"

namespace caffe {

using contract_test::CheckBackwardReads;

template <typename Dtype>
class FlattenLayerTest : public ::testing::Test {
 protected:
  FlattenLayerTest()
      : bottom_(new Blob<Dtype>(vector<int>{2, 3, 4, 5})),
        top_(new Blob<Dtype>()) {
    Caffe::set_random_seed(1701);
    FillGaussian(bottom_.get());
    bottom_vec_.push_back(bottom_.get());
    top_vec_.push_back(top_.get());
  }
  LayerParameter Param(int axis, int end_axis) {
    LayerParameter param;
    param.set_name("flat");
    param.mutable_flatten_param()->set_axis(axis);
    param.mutable_flatten_param()->set_end_axis(end_axis);
    return param;
  }
  std::unique_ptr<Blob<Dtype> > bottom_, top_;
  vector<Blob<Dtype>*> bottom_vec_, top_vec_;
};

TYPED_TEST_SUITE(FlattenLayerTest, TestDtypes);

TYPED_TEST(FlattenLayerTest, Shapes) {
  typedef TypeParam Dtype;
  struct Case { int axis, end_axis; vector<int> shape; };
  const vector<Case> cases = {
      {1, -1, {2, 60}},      {0, -1, {120}},      {2, -1, {2, 3, 20}},
      {1, 2, {2, 12, 5}},    {-3, -2, {2, 12, 5}}, {3, 3, {2, 3, 4, 5}},
      {0, 0, {2, 3, 4, 5}},
  };
  for (const Case& c : cases) {
    FlattenLayer<Dtype> layer(this->Param(c.axis, c.end_axis));
    layer.SetUp(this->bottom_vec_, this->top_vec_);
    EXPECT_EQ(this->top_->shape(), c.shape) << c.axis << " " << c.end_axis;
  }
  // Default parameters: flatten everything after axis 0.
  LayerParameter param;
  FlattenLayer<Dtype> layer(param);
  layer.SetUp(this->bottom_vec_, this->top_vec_);
  EXPECT_EQ(this->top_->shape(), (vector<int>{2, 60}));
  EXPECT_STREQ(layer.type(), "Flatten");
}

TYPED_TEST(FlattenLayerTest, TopSharesBottomMemory) {
  typedef TypeParam Dtype;
  FlattenLayer<Dtype> layer(this->Param(1, -1));
  layer.SetUp(this->bottom_vec_, this->top_vec_);
  layer.Forward(this->bottom_vec_, this->top_vec_);
  EXPECT_EQ(this->top_->cpu_data(), this->bottom_->cpu_data());
  EXPECT_EQ(this->top_->cpu_diff(), this->bottom_->cpu_diff());
  // Values in row-major order are unchanged.
  for (int n = 0; n < 2; ++n)
    for (int c = 0; c < 3; ++c)
      for (int h = 0; h < 4; ++h)
        for (int w = 0; w < 5; ++w)
          EXPECT_EQ(this->top_->data_at(vector<int>{n, (c * 4 + h) * 5 + w}),
                    this->bottom_->data_at(n, c, h, w));
  // Still shared after the bottom grows and the net reshapes.
  this->bottom_->Reshape(vector<int>{7, 3, 4, 5});
  layer.Forward(this->bottom_vec_, this->top_vec_);
  EXPECT_EQ(this->top_->shape(), (vector<int>{7, 60}));
  EXPECT_EQ(this->top_->cpu_data(), this->bottom_->cpu_data());
  EXPECT_EQ(this->top_->cpu_diff(), this->bottom_->cpu_diff());
}

TYPED_TEST(FlattenLayerTest, Gradient) {
  typedef TypeParam Dtype;
  FlattenLayer<Dtype> layer(this->Param(1, 2));
  GradientChecker<Dtype> checker(1e-2, 1e-2);
  checker.CheckGradientExhaustive(&layer, this->bottom_vec_, this->top_vec_);
}

TYPED_TEST(FlattenLayerTest, BackwardReadsDeclaration) {
  typedef TypeParam Dtype;
  FlattenLayer<Dtype> layer(this->Param(1, -1));
  EXPECT_EQ(layer.Memory().backward_reads, kReadsNothing);
  EXPECT_TRUE(layer.Memory().top_views_bottom);
  EXPECT_FALSE(layer.Memory().in_place);
  layer.SetUp(this->bottom_vec_, this->top_vec_);
  CheckBackwardReads(&layer, this->bottom_vec_, this->top_vec_,
                     vector<bool>{true});
}

TYPED_TEST(FlattenLayerTest, BadParamsThrow) {
  typedef TypeParam Dtype;
  {
    FlattenLayer<Dtype> layer(this->Param(2, 1));
    EXPECT_THROW(layer.SetUp(this->bottom_vec_, this->top_vec_), Error);
  }
  {
    FlattenLayer<Dtype> layer(this->Param(4, -1));
    EXPECT_THROW(layer.SetUp(this->bottom_vec_, this->top_vec_), Error);
  }
  {
    FlattenLayer<Dtype> layer(this->Param(1, -1));
    EXPECT_THROW(layer.SetUp(this->bottom_vec_, this->bottom_vec_), Error);
  }
}

}  // namespace caffe
