#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "caffe/blob.hpp"
#include "caffe/layers/reshape_layer.hpp"
#include "caffe/test/test_fill_util.hpp"
#include "caffe/test/test_gradient_check_util.hpp"
#include "caffe/test/test_layer_contract_util.hpp"

namespace caffe {

using contract_test::CheckBackwardReads;

template <typename Dtype>
class ReshapeLayerTest : public ::testing::Test {
 protected:
  ReshapeLayerTest()
      : bottom_(new Blob<Dtype>(vector<int>{2, 3, 6, 5})),
        top_(new Blob<Dtype>()) {
    Caffe::set_random_seed(1701);
    FillGaussian(bottom_.get());
    bottom_vec_.push_back(bottom_.get());
    top_vec_.push_back(top_.get());
  }
  LayerParameter Param(const vector<int>& dims, int axis = 0,
                       int num_axes = -1) {
    LayerParameter param;
    param.set_name("reshape");
    ReshapeParameter* p = param.mutable_reshape_param();
    for (int d : dims) p->mutable_shape()->add_dim(d);
    p->set_axis(axis);
    p->set_num_axes(num_axes);
    return param;
  }
  vector<int> TopShape(const LayerParameter& param) {
    ReshapeLayer<Dtype> layer(param);
    layer.SetUp(bottom_vec_, top_vec_);
    return top_->shape();
  }
  std::unique_ptr<Blob<Dtype> > bottom_, top_;
  vector<Blob<Dtype>*> bottom_vec_, top_vec_;
};

TYPED_TEST_SUITE(ReshapeLayerTest, TestDtypes);

TYPED_TEST(ReshapeLayerTest, Shapes) {
  typedef TypeParam Dtype;
  EXPECT_EQ(this->TopShape(this->Param({6, 2, 3, 5})),
            (vector<int>{6, 2, 3, 5}));
  EXPECT_EQ(this->TopShape(this->Param({0, -1})), (vector<int>{2, 90}));
  EXPECT_EQ(this->TopShape(this->Param({0, 0, -1})), (vector<int>{2, 3, 30}));
  EXPECT_EQ(this->TopShape(this->Param({-1, 0, 0, 0})),
            (vector<int>{2, 3, 6, 5}));
  EXPECT_EQ(this->TopShape(this->Param({0, 0, -1, 10})),
            (vector<int>{2, 3, 3, 10}));
  EXPECT_EQ(this->TopShape(this->Param({180})), (vector<int>{180}));
  // Replace only axes [1, 3) (3 x 6) with 2 x 9.
  EXPECT_EQ(this->TopShape(this->Param({2, 9}, 1, 2)),
            (vector<int>{2, 2, 9, 5}));
  // Replace the last two axes: axis -3 starts before them.
  EXPECT_EQ(this->TopShape(this->Param({-1}, -3, 2)),
            (vector<int>{2, 3, 30}));
  // Insert a singleton axis at the end (axis -1, num_axes 0).
  EXPECT_EQ(this->TopShape(this->Param({1}, -1, 0)),
            (vector<int>{2, 3, 6, 5, 1}));
  // Insert one at the front.
  EXPECT_EQ(this->TopShape(this->Param({1}, 0, 0)),
            (vector<int>{1, 2, 3, 6, 5}));
  // Copy axes relative to the replaced range.
  EXPECT_EQ(this->TopShape(this->Param({0, -1}, 1)), (vector<int>{2, 3, 30}));
  ReshapeLayer<Dtype> layer(this->Param({-1}));
  EXPECT_STREQ(layer.type(), "Reshape");
}

TYPED_TEST(ReshapeLayerTest, TopSharesBottomMemory) {
  typedef TypeParam Dtype;
  ReshapeLayer<Dtype> layer(this->Param({0, -1, 2}));
  layer.SetUp(this->bottom_vec_, this->top_vec_);
  layer.Forward(this->bottom_vec_, this->top_vec_);
  EXPECT_EQ(this->top_->shape(), (vector<int>{2, 45, 2}));
  EXPECT_EQ(this->top_->cpu_data(), this->bottom_->cpu_data());
  EXPECT_EQ(this->top_->cpu_diff(), this->bottom_->cpu_diff());
  for (int i = 0; i < this->bottom_->count(); ++i)
    EXPECT_EQ(this->top_->cpu_data()[i], this->bottom_->cpu_data()[i]);
  // The inferred axis follows a new batch size.
  this->bottom_->Reshape(vector<int>{4, 3, 6, 5});
  layer.Forward(this->bottom_vec_, this->top_vec_);
  EXPECT_EQ(this->top_->shape(), (vector<int>{4, 45, 2}));
  EXPECT_EQ(this->top_->cpu_data(), this->bottom_->cpu_data());
  EXPECT_EQ(this->top_->cpu_diff(), this->bottom_->cpu_diff());
}

TYPED_TEST(ReshapeLayerTest, Gradient) {
  typedef TypeParam Dtype;
  this->bottom_->Reshape(vector<int>{2, 3, 2, 2});
  FillGaussian(this->bottom_.get());
  ReshapeLayer<Dtype> layer(this->Param({0, -1}));
  GradientChecker<Dtype> checker(1e-2, 1e-2);
  checker.CheckGradientExhaustive(&layer, this->bottom_vec_, this->top_vec_);
}

TYPED_TEST(ReshapeLayerTest, BackwardReadsDeclaration) {
  typedef TypeParam Dtype;
  ReshapeLayer<Dtype> layer(this->Param({0, -1}));
  EXPECT_EQ(layer.Memory().backward_reads, kReadsNothing);
  EXPECT_TRUE(layer.Memory().top_views_bottom);
  EXPECT_FALSE(layer.Memory().in_place);
  layer.SetUp(this->bottom_vec_, this->top_vec_);
  CheckBackwardReads(&layer, this->bottom_vec_, this->top_vec_,
                     vector<bool>{true});
}

TYPED_TEST(ReshapeLayerTest, BadParamsThrow) {
  typedef TypeParam Dtype;
  const vector<LayerParameter> bad = {
      this->Param({-1, -1}),         // two inferred axes
      this->Param({7, -1}),          // 180 not divisible by 7
      this->Param({2, 3, 6, 6}),     // count changes
      this->Param({0, 0, 0, 0, 0}),  // copies an axis that does not exist
      this->Param({-2, 90}),         // negative dimension
      this->Param({-1}, 5),          // axis out of range
      this->Param({-1}, 2, 3),       // axis + num_axes out of range
      this->Param({-1}, 0, -2),      // bad num_axes
  };
  for (size_t i = 0; i < bad.size(); ++i) {
    ReshapeLayer<Dtype> layer(bad[i]);
    EXPECT_THROW(layer.SetUp(this->bottom_vec_, this->top_vec_), Error) << i;
  }
  try {
    ReshapeLayer<Dtype> layer(this->Param({-1, -1}));
    layer.SetUp(this->bottom_vec_, this->top_vec_);
  } catch (const Error& e) {
    EXPECT_NE(string(e.what()).find("reshape"), string::npos) << e.what();
  }
  ReshapeLayer<Dtype> layer(this->Param({-1}));
  EXPECT_THROW(layer.SetUp(this->bottom_vec_, this->bottom_vec_), Error);
}

}  // namespace caffe
