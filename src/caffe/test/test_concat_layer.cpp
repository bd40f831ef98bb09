#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "caffe/blob.hpp"
#include "caffe/layers/concat_layer.hpp"
#include "caffe/test/test_fill_util.hpp"
#include "caffe/test/test_gradient_check_util.hpp"
#include "caffe/test/test_layer_contract_util.hpp"

namespace caffe {

using contract_test::CheckBackwardReads;

template <typename Dtype>
class ConcatLayerTest : public ::testing::Test {
 protected:
  ConcatLayerTest()
      : a_(new Blob<Dtype>(vector<int>{2, 3, 2, 3})),
        b_(new Blob<Dtype>(vector<int>{2, 2, 2, 3})),
        c_(new Blob<Dtype>(vector<int>{4, 3, 2, 3})),
        top_(new Blob<Dtype>()) {
    Caffe::set_random_seed(1701);
    FillGaussian(a_.get());
    FillGaussian(b_.get());
    FillGaussian(c_.get());
    top_vec_.push_back(top_.get());
  }
  LayerParameter Param() {
    LayerParameter param;
    param.set_name("concat");
    return param;
  }
  std::unique_ptr<Blob<Dtype> > a_, b_, c_, top_;
  vector<Blob<Dtype>*> top_vec_;
};

TYPED_TEST_SUITE(ConcatLayerTest, TestDtypes);

TYPED_TEST(ConcatLayerTest, ForwardChannels) {
  typedef TypeParam Dtype;
  vector<Blob<Dtype>*> bottom{this->a_.get(), this->b_.get()};
  ConcatLayer<Dtype> layer(this->Param());
  layer.SetUp(bottom, this->top_vec_);
  layer.Forward(bottom, this->top_vec_);
  EXPECT_STREQ(layer.type(), "Concat");
  ASSERT_EQ(this->top_->shape(), (vector<int>{2, 5, 2, 3}));
  for (int n = 0; n < 2; ++n)
    for (int c = 0; c < 5; ++c)
      for (int h = 0; h < 2; ++h)
        for (int w = 0; w < 3; ++w) {
          const Dtype expected = c < 3 ? this->a_->data_at(n, c, h, w)
                                       : this->b_->data_at(n, c - 3, h, w);
          EXPECT_EQ(expected, this->top_->data_at(n, c, h, w));
        }
}

TYPED_TEST(ConcatLayerTest, ForwardNumLegacyConcatDim) {
  typedef TypeParam Dtype;
  vector<Blob<Dtype>*> bottom{this->a_.get(), this->c_.get()};
  LayerParameter param = this->Param();
  param.mutable_concat_param()->set_concat_dim(0);
  ConcatLayer<Dtype> layer(param);
  layer.SetUp(bottom, this->top_vec_);
  layer.Forward(bottom, this->top_vec_);
  ASSERT_EQ(this->top_->shape(), (vector<int>{6, 3, 2, 3}));
  const int a_count = this->a_->count();
  for (int i = 0; i < a_count; ++i)
    EXPECT_EQ(this->a_->cpu_data()[i], this->top_->cpu_data()[i]);
  for (int i = 0; i < this->c_->count(); ++i)
    EXPECT_EQ(this->c_->cpu_data()[i], this->top_->cpu_data()[a_count + i]);
}

TYPED_TEST(ConcatLayerTest, ForwardLastAxisThreeBottoms) {
  typedef TypeParam Dtype;
  Blob<Dtype> x(vector<int>{2, 3, 2, 1}), y(vector<int>{2, 3, 2, 4});
  FillGaussian(&x);
  FillGaussian(&y);
  vector<Blob<Dtype>*> bottom{this->a_.get(), &x, &y};
  LayerParameter param = this->Param();
  param.mutable_concat_param()->set_axis(-1);
  ConcatLayer<Dtype> layer(param);
  layer.SetUp(bottom, this->top_vec_);
  layer.Forward(bottom, this->top_vec_);
  ASSERT_EQ(this->top_->shape(), (vector<int>{2, 3, 2, 8}));
  for (int n = 0; n < 2; ++n)
    for (int c = 0; c < 3; ++c)
      for (int h = 0; h < 2; ++h)
        for (int w = 0; w < 8; ++w) {
          const Dtype expected = w < 3   ? this->a_->data_at(n, c, h, w)
                                 : w < 4 ? x.data_at(n, c, h, w - 3)
                                         : y.data_at(n, c, h, w - 4);
          EXPECT_EQ(expected, this->top_->data_at(n, c, h, w));
        }
}

TYPED_TEST(ConcatLayerTest, SingleBottomCopies) {
  typedef TypeParam Dtype;
  vector<Blob<Dtype>*> bottom{this->a_.get()};
  ConcatLayer<Dtype> layer(this->Param());
  layer.SetUp(bottom, this->top_vec_);
  layer.Forward(bottom, this->top_vec_);
  ASSERT_EQ(this->top_->shape(), this->a_->shape());
  for (int i = 0; i < this->a_->count(); ++i)
    EXPECT_EQ(this->a_->cpu_data()[i], this->top_->cpu_data()[i]);
}

TYPED_TEST(ConcatLayerTest, Gradient) {
  typedef TypeParam Dtype;
  {
    vector<Blob<Dtype>*> bottom{this->a_.get(), this->b_.get()};
    ConcatLayer<Dtype> layer(this->Param());
    GradientChecker<Dtype> checker(1e-2, 1e-2);
    checker.CheckGradientExhaustive(&layer, bottom, this->top_vec_);
  }
  {
    vector<Blob<Dtype>*> bottom{this->a_.get(), this->c_.get()};
    LayerParameter param = this->Param();
    param.mutable_concat_param()->set_axis(0);
    ConcatLayer<Dtype> layer(param);
    GradientChecker<Dtype> checker(1e-2, 1e-2);
    checker.CheckGradientExhaustive(&layer, bottom, this->top_vec_);
  }
}

TYPED_TEST(ConcatLayerTest, PartialPropagateDown) {
  typedef TypeParam Dtype;
  vector<Blob<Dtype>*> bottom{this->a_.get(), this->b_.get()};
  ConcatLayer<Dtype> layer(this->Param());
  layer.SetUp(bottom, this->top_vec_);
  layer.Forward(bottom, this->top_vec_);
  caffe_rng_gaussian<Dtype>(this->top_->count(), Dtype(0), Dtype(1),
                            this->top_->mutable_cpu_diff());
  caffe_set(this->a_->count(), Dtype(7), this->a_->mutable_cpu_diff());
  layer.Backward(this->top_vec_, vector<bool>{false, true}, bottom);
  for (int i = 0; i < this->a_->count(); ++i)
    EXPECT_EQ(Dtype(7), this->a_->cpu_diff()[i]);
  for (int n = 0; n < 2; ++n)
    for (int c = 0; c < 2; ++c)
      for (int h = 0; h < 2; ++h)
        for (int w = 0; w < 3; ++w)
          EXPECT_EQ(this->top_->diff_at(n, c + 3, h, w),
                    this->b_->diff_at(n, c, h, w));
}

TYPED_TEST(ConcatLayerTest, BackwardReadsDeclaration) {
  typedef TypeParam Dtype;
  vector<Blob<Dtype>*> bottom{this->a_.get(), this->b_.get()};
  ConcatLayer<Dtype> layer(this->Param());
  EXPECT_EQ(layer.Memory().backward_reads, kReadsNothing);
  EXPECT_FALSE(layer.Memory().in_place);
  layer.SetUp(bottom, this->top_vec_);
  CheckBackwardReads(&layer, bottom, this->top_vec_, vector<bool>{true, true});
}

TYPED_TEST(ConcatLayerTest, BadShapesAndParamsThrow) {
  typedef TypeParam Dtype;
  {
    // Channels concat, but the batch sizes differ.
    vector<Blob<Dtype>*> bottom{this->a_.get(), this->c_.get()};
    ConcatLayer<Dtype> layer(this->Param());
    try {
      layer.SetUp(bottom, this->top_vec_);
      ADD_FAILURE() << "no error";
    } catch (const Error& e) {
      const string msg = e.what();
      EXPECT_NE(msg.find("concat"), string::npos) << msg;
      EXPECT_NE(msg.find("2 3 2 3"), string::npos) << msg;
      EXPECT_NE(msg.find("4 3 2 3"), string::npos) << msg;
    }
  }
  {
    Blob<Dtype> three_d(vector<int>{2, 3, 2});
    vector<Blob<Dtype>*> bottom{this->a_.get(), &three_d};
    ConcatLayer<Dtype> layer(this->Param());
    EXPECT_THROW(layer.SetUp(bottom, this->top_vec_), Error);
  }
  {
    vector<Blob<Dtype>*> bottom{this->a_.get(), this->b_.get()};
    LayerParameter param = this->Param();
    param.mutable_concat_param()->set_axis(1);
    param.mutable_concat_param()->set_concat_dim(1);
    ConcatLayer<Dtype> layer(param);
    EXPECT_THROW(layer.SetUp(bottom, this->top_vec_), Error);
  }
  {
    vector<Blob<Dtype>*> bottom{this->a_.get(), this->b_.get()};
    LayerParameter param = this->Param();
    param.mutable_concat_param()->set_axis(4);
    ConcatLayer<Dtype> layer(param);
    EXPECT_THROW(layer.SetUp(bottom, this->top_vec_), Error);
  }
  {
    vector<Blob<Dtype>*> bottom{this->a_.get(), this->b_.get()};
    LayerParameter param = this->Param();
    param.mutable_concat_param()->set_concat_dim(4);
    ConcatLayer<Dtype> layer(param);
    EXPECT_THROW(layer.SetUp(bottom, this->top_vec_), Error);
  }
}

}  // namespace caffe
