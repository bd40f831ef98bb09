#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "caffe/blob.hpp"
#include "caffe/layers/silence_layer.hpp"
#include "caffe/test/test_fill_util.hpp"
#include "caffe/test/test_gradient_check_util.hpp"
#include "caffe/test/test_layer_contract_util.hpp"

namespace caffe {

using contract_test::CheckBackwardReads;

template <typename Dtype>
class SilenceLayerTest : public ::testing::Test {
 protected:
  SilenceLayerTest()
      : a_(new Blob<Dtype>(vector<int>{2, 3})),
        b_(new Blob<Dtype>(vector<int>{4})) {
    Caffe::set_random_seed(1701);
    FillGaussian(a_.get());
    FillGaussian(b_.get());
    bottom_vec_ = {a_.get(), b_.get()};
    param_.set_name("silence");
  }
  std::unique_ptr<Blob<Dtype> > a_, b_;
  vector<Blob<Dtype>*> bottom_vec_, top_vec_;
  LayerParameter param_;
};

TYPED_TEST_SUITE(SilenceLayerTest, TestDtypes);

TYPED_TEST(SilenceLayerTest, ForwardLeavesDataAndBackwardZeroes) {
  typedef TypeParam Dtype;
  SilenceLayer<Dtype> layer(this->param_);
  EXPECT_STREQ(layer.type(), "Silence");
  layer.SetUp(this->bottom_vec_, this->top_vec_);
  vector<Dtype> before(this->a_->cpu_data(),
                       this->a_->cpu_data() + this->a_->count());
  EXPECT_EQ(layer.Forward(this->bottom_vec_, this->top_vec_), Dtype(0));
  for (int i = 0; i < this->a_->count(); ++i)
    EXPECT_EQ(before[i], this->a_->cpu_data()[i]);
  caffe_set(this->a_->count(), Dtype(5), this->a_->mutable_cpu_diff());
  caffe_set(this->b_->count(), Dtype(5), this->b_->mutable_cpu_diff());
  layer.Backward(this->top_vec_, vector<bool>{true, false}, this->bottom_vec_);
  for (int i = 0; i < this->a_->count(); ++i)
    EXPECT_EQ(Dtype(0), this->a_->cpu_diff()[i]);
  for (int i = 0; i < this->b_->count(); ++i)
    EXPECT_EQ(Dtype(5), this->b_->cpu_diff()[i]);
}

TYPED_TEST(SilenceLayerTest, BackwardReadsDeclaration) {
  typedef TypeParam Dtype;
  SilenceLayer<Dtype> layer(this->param_);
  EXPECT_EQ(layer.Memory().backward_reads, kReadsNothing);
  EXPECT_FALSE(layer.Memory().in_place);
  layer.SetUp(this->bottom_vec_, this->top_vec_);
  CheckBackwardReads(&layer, this->bottom_vec_, this->top_vec_,
                     vector<bool>{true, true});
}

TYPED_TEST(SilenceLayerTest, BadBlobCountsThrow) {
  typedef TypeParam Dtype;
  {
    SilenceLayer<Dtype> layer(this->param_);
    vector<Blob<Dtype>*> top{this->b_.get()};
    vector<Blob<Dtype>*> bottom{this->a_.get()};
    EXPECT_THROW(layer.SetUp(bottom, top), Error);
  }
  {
    SilenceLayer<Dtype> layer(this->param_);
    vector<Blob<Dtype>*> none;
    EXPECT_THROW(layer.SetUp(none, none), Error);
  }
}

}  // namespace caffe
