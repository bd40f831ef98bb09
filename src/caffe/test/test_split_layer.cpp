#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "caffe/blob.hpp"
#include "caffe/layers/split_layer.hpp"
#include "caffe/test/test_fill_util.hpp"
#include "caffe/test/test_gradient_check_util.hpp"
#include "caffe/test/test_layer_contract_util.hpp"

namespace caffe {

using contract_test::CheckBackwardReads;

template <typename Dtype>
class SplitLayerTest : public ::testing::Test {
 protected:
  SplitLayerTest()
      : bottom_(new Blob<Dtype>(vector<int>{2, 3, 2, 2})),
        top_a_(new Blob<Dtype>()), top_b_(new Blob<Dtype>()),
        top_c_(new Blob<Dtype>()) {
    Caffe::set_random_seed(1701);
    FillGaussian(bottom_.get());
    bottom_vec_.push_back(bottom_.get());
    top_vec_ = {top_a_.get(), top_b_.get(), top_c_.get()};
    param_.set_name("split");
  }
  std::unique_ptr<Blob<Dtype> > bottom_, top_a_, top_b_, top_c_;
  vector<Blob<Dtype>*> bottom_vec_, top_vec_;
  LayerParameter param_;
};

TYPED_TEST_SUITE(SplitLayerTest, TestDtypes);

TYPED_TEST(SplitLayerTest, TopsShareBottomData) {
  typedef TypeParam Dtype;
  SplitLayer<Dtype> layer(this->param_);
  layer.SetUp(this->bottom_vec_, this->top_vec_);
  layer.Forward(this->bottom_vec_, this->top_vec_);
  EXPECT_STREQ(layer.type(), "Split");
  for (Blob<Dtype>* top : this->top_vec_) {
    EXPECT_EQ(top->shape(), this->bottom_->shape());
    EXPECT_EQ(top->cpu_data(), this->bottom_->cpu_data());
    // Each top keeps its own gradient.
    EXPECT_NE(top->cpu_diff(), this->bottom_->cpu_diff());
  }
  EXPECT_NE(this->top_a_->cpu_diff(), this->top_b_->cpu_diff());
}

TYPED_TEST(SplitLayerTest, BackwardSumsTopDiffs) {
  typedef TypeParam Dtype;
  SplitLayer<Dtype> layer(this->param_);
  layer.SetUp(this->bottom_vec_, this->top_vec_);
  layer.Forward(this->bottom_vec_, this->top_vec_);
  for (Blob<Dtype>* top : this->top_vec_)
    caffe_rng_gaussian<Dtype>(top->count(), Dtype(0), Dtype(1),
                              top->mutable_cpu_diff());
  layer.Backward(this->top_vec_, vector<bool>{true}, this->bottom_vec_);
  for (int i = 0; i < this->bottom_->count(); ++i) {
    const Dtype expected = this->top_a_->cpu_diff()[i] +
                           this->top_b_->cpu_diff()[i] +
                           this->top_c_->cpu_diff()[i];
    EXPECT_NEAR(expected, this->bottom_->cpu_diff()[i], 1e-6);
  }
  // One top: the bottom diff is a copy.
  vector<Blob<Dtype>*> one_top{this->top_a_.get()};
  SplitLayer<Dtype> single(this->param_);
  single.SetUp(this->bottom_vec_, one_top);
  single.Forward(this->bottom_vec_, one_top);
  single.Backward(one_top, vector<bool>{true}, this->bottom_vec_);
  for (int i = 0; i < this->bottom_->count(); ++i)
    EXPECT_EQ(this->top_a_->cpu_diff()[i], this->bottom_->cpu_diff()[i]);
}

TYPED_TEST(SplitLayerTest, Gradient) {
  typedef TypeParam Dtype;
  SplitLayer<Dtype> layer(this->param_);
  GradientChecker<Dtype> checker(1e-2, 1e-2);
  checker.CheckGradientExhaustive(&layer, this->bottom_vec_, this->top_vec_);
}

TYPED_TEST(SplitLayerTest, BackwardReadsDeclaration) {
  typedef TypeParam Dtype;
  SplitLayer<Dtype> layer(this->param_);
  EXPECT_EQ(layer.Memory().backward_reads, kReadsNothing);
  EXPECT_FALSE(layer.Memory().in_place);
  layer.SetUp(this->bottom_vec_, this->top_vec_);
  CheckBackwardReads(&layer, this->bottom_vec_, this->top_vec_,
                     vector<bool>{true});
}

TYPED_TEST(SplitLayerTest, BadSetupThrows) {
  typedef TypeParam Dtype;
  {
    SplitLayer<Dtype> layer(this->param_);
    vector<Blob<Dtype>*> in_place{this->top_a_.get(), this->bottom_.get()};
    EXPECT_THROW(layer.SetUp(this->bottom_vec_, in_place), Error);
  }
  {
    SplitLayer<Dtype> layer(this->param_);
    vector<Blob<Dtype>*> no_tops;
    EXPECT_THROW(layer.SetUp(this->bottom_vec_, no_tops), Error);
  }
}

}  // namespace caffe
