#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "caffe/blob.hpp"
#include "caffe/layers/slice_layer.hpp"
#include "caffe/test/test_fill_util.hpp"
#include "caffe/test/test_gradient_check_util.hpp"
#include "caffe/test/test_layer_contract_util.hpp"

namespace caffe {

using contract_test::CheckBackwardReads;

template <typename Dtype>
class SliceLayerTest : public ::testing::Test {
 protected:
  SliceLayerTest()
      : bottom_(new Blob<Dtype>(vector<int>{6, 5, 2, 3})),
        t0_(new Blob<Dtype>()), t1_(new Blob<Dtype>()),
        t2_(new Blob<Dtype>()) {
    Caffe::set_random_seed(1701);
    FillGaussian(bottom_.get());
    bottom_vec_.push_back(bottom_.get());
    top2_ = {t0_.get(), t1_.get()};
    top3_ = {t0_.get(), t1_.get(), t2_.get()};
  }
  LayerParameter Param() {
    LayerParameter param;
    param.set_name("slice");
    return param;
  }
  std::unique_ptr<Blob<Dtype> > bottom_, t0_, t1_, t2_;
  vector<Blob<Dtype>*> bottom_vec_, top2_, top3_;
};

TYPED_TEST_SUITE(SliceLayerTest, TestDtypes);

TYPED_TEST(SliceLayerTest, EvenSplitAlongNum) {
  typedef TypeParam Dtype;
  LayerParameter param = this->Param();
  param.mutable_slice_param()->set_axis(0);
  SliceLayer<Dtype> layer(param);
  layer.SetUp(this->bottom_vec_, this->top3_);
  layer.Forward(this->bottom_vec_, this->top3_);
  EXPECT_STREQ(layer.type(), "Slice");
  for (int t = 0; t < 3; ++t) {
    ASSERT_EQ(this->top3_[t]->shape(), (vector<int>{2, 5, 2, 3}));
    for (int n = 0; n < 2; ++n)
      for (int c = 0; c < 5; ++c)
        for (int h = 0; h < 2; ++h)
          for (int w = 0; w < 3; ++w)
            EXPECT_EQ(this->bottom_->data_at(t * 2 + n, c, h, w),
                      this->top3_[t]->data_at(n, c, h, w));
  }
}

TYPED_TEST(SliceLayerTest, SlicePointsAlongChannels) {
  typedef TypeParam Dtype;
  LayerParameter param = this->Param();
  param.mutable_slice_param()->add_slice_point(1);
  param.mutable_slice_param()->add_slice_point(4);
  SliceLayer<Dtype> layer(param);
  layer.SetUp(this->bottom_vec_, this->top3_);
  layer.Forward(this->bottom_vec_, this->top3_);
  const int starts[] = {0, 1, 4}, sizes[] = {1, 3, 1};
  for (int t = 0; t < 3; ++t) {
    ASSERT_EQ(this->top3_[t]->shape(), (vector<int>{6, sizes[t], 2, 3}));
    for (int n = 0; n < 6; ++n)
      for (int c = 0; c < sizes[t]; ++c)
        for (int h = 0; h < 2; ++h)
          for (int w = 0; w < 3; ++w)
            EXPECT_EQ(this->bottom_->data_at(n, starts[t] + c, h, w),
                      this->top3_[t]->data_at(n, c, h, w));
  }
}

TYPED_TEST(SliceLayerTest, LegacySliceDimAndNegativeAxis) {
  typedef TypeParam Dtype;
  {
    LayerParameter param = this->Param();
    param.mutable_slice_param()->set_slice_dim(3);
    SliceLayer<Dtype> layer(param);
    layer.SetUp(this->bottom_vec_, this->top3_);
    EXPECT_EQ(this->t2_->shape(), (vector<int>{6, 5, 2, 1}));
    layer.Forward(this->bottom_vec_, this->top3_);
    EXPECT_EQ(this->bottom_->data_at(4, 3, 1, 2), this->t2_->data_at(4, 3, 1, 0));
  }
  {
    LayerParameter param = this->Param();
    param.mutable_slice_param()->set_axis(-2);
    SliceLayer<Dtype> layer(param);
    layer.SetUp(this->bottom_vec_, this->top2_);
    EXPECT_EQ(this->t1_->shape(), (vector<int>{6, 5, 1, 3}));
    layer.Forward(this->bottom_vec_, this->top2_);
    EXPECT_EQ(this->bottom_->data_at(5, 4, 1, 2), this->t1_->data_at(5, 4, 0, 2));
  }
}

TYPED_TEST(SliceLayerTest, Gradient) {
  typedef TypeParam Dtype;
  this->bottom_->Reshape(vector<int>{3, 5, 2, 1});
  FillGaussian(this->bottom_.get());
  {
    LayerParameter param = this->Param();
    param.mutable_slice_param()->add_slice_point(2);
    SliceLayer<Dtype> layer(param);
    GradientChecker<Dtype> checker(1e-2, 1e-3);
    checker.CheckGradientExhaustive(&layer, this->bottom_vec_, this->top2_);
  }
  {
    LayerParameter param = this->Param();
    param.mutable_slice_param()->set_axis(0);
    SliceLayer<Dtype> layer(param);
    GradientChecker<Dtype> checker(1e-2, 1e-3);
    checker.CheckGradientExhaustive(&layer, this->bottom_vec_, this->top3_);
  }
}

TYPED_TEST(SliceLayerTest, BackwardReadsDeclaration) {
  typedef TypeParam Dtype;
  LayerParameter param = this->Param();
  param.mutable_slice_param()->add_slice_point(2);
  SliceLayer<Dtype> layer(param);
  EXPECT_EQ(layer.Memory().backward_reads, kReadsNothing);
  EXPECT_FALSE(layer.Memory().in_place);
  layer.SetUp(this->bottom_vec_, this->top2_);
  CheckBackwardReads(&layer, this->bottom_vec_, this->top2_,
                     vector<bool>{true});
}

TYPED_TEST(SliceLayerTest, BadParamsThrow) {
  typedef TypeParam Dtype;
  auto expect_throw = [&](const LayerParameter& param,
                          const vector<Blob<Dtype>*>& top) {
    SliceLayer<Dtype> layer(param);
    EXPECT_THROW(layer.SetUp(this->bottom_vec_, top), Error);
  };
  {
    // 5 channels cannot be split evenly in 2.
    expect_throw(this->Param(), this->top2_);
  }
  {
    LayerParameter param = this->Param();  // wrong number of points
    param.mutable_slice_param()->add_slice_point(1);
    expect_throw(param, this->top3_);
  }
  {
    LayerParameter param = this->Param();  // not increasing
    param.mutable_slice_param()->add_slice_point(3);
    param.mutable_slice_param()->add_slice_point(2);
    expect_throw(param, this->top3_);
  }
  {
    LayerParameter param = this->Param();  // beyond the axis
    param.mutable_slice_param()->add_slice_point(5);
    expect_throw(param, this->top2_);
  }
  {
    LayerParameter param = this->Param();
    param.mutable_slice_param()->set_axis(1);
    param.mutable_slice_param()->set_slice_dim(1);
    expect_throw(param, this->top2_);
  }
  {
    LayerParameter param = this->Param();
    param.mutable_slice_param()->set_slice_dim(7);
    expect_throw(param, this->top2_);
  }
  try {
    SliceLayer<Dtype> layer(this->Param());
    layer.SetUp(this->bottom_vec_, this->top2_);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(string(e.what()).find("slice"), string::npos) << e.what();
  }
}

}  // namespace caffe
