// Tests for BatchReindexLayer: gathering against loops, accumulating
// backward, gradient, the BackwardReads declaration and index errors.
#include <gtest/gtest.h>

#include <vector>

#include "caffe/blob.hpp"
#include "caffe/common.hpp"
#include "caffe/layers/batch_reindex_layer.hpp"
#include "caffe/test/test_gradient_check_util.hpp"
#include "caffe/test/test_layer_contract_util.hpp"

namespace caffe {

template <typename Dtype>
class BatchReindexLayerTest : public ::testing::Test {
 protected:
  BatchReindexLayerTest()
      : data_(vector<int>{5, 2, 3, 2}), index_(vector<int>{7}) {
    Caffe::set_random_seed(1701);
    caffe_rng_gaussian<Dtype>(data_.count(), Dtype(0), Dtype(1),
                              data_.mutable_cpu_data());
    SetIndices({4, 0, 1, 0, 2, 4, 0});
    bottom_vec_ = {&data_, &index_};
    top_vec_.push_back(&top_);
  }
  void SetIndices(const vector<int>& idx) {
    index_.Reshape(vector<int>{static_cast<int>(idx.size())});
    for (size_t i = 0; i < idx.size(); ++i)
      index_.mutable_cpu_data()[i] = Dtype(idx[i]);
  }
  LayerParameter Param() {
    LayerParameter p;
    p.set_name("reindex");
    p.set_type("BatchReindex");
    return p;
  }
  Blob<Dtype> data_, index_, top_;
  vector<Blob<Dtype>*> bottom_vec_, top_vec_;
};

TYPED_TEST_SUITE(BatchReindexLayerTest, TestDtypes);

TYPED_TEST(BatchReindexLayerTest, Forward) {
  typedef TypeParam Dtype;
  BatchReindexLayer<Dtype> layer(this->Param());
  layer.SetUp(this->bottom_vec_, this->top_vec_);
  layer.Forward(this->bottom_vec_, this->top_vec_);
  ASSERT_EQ((vector<int>{7, 2, 3, 2}), this->top_.shape());
  const int inner = 12;
  for (int m = 0; m < 7; ++m) {
    const int src = static_cast<int>(this->index_.cpu_data()[m]);
    for (int j = 0; j < inner; ++j)
      EXPECT_EQ(this->data_.cpu_data()[src * inner + j],
                this->top_.cpu_data()[m * inner + j]);
  }
  // Fewer indices than items, and none at all.
  this->SetIndices({3});
  layer.Forward(this->bottom_vec_, this->top_vec_);
  ASSERT_EQ(1, this->top_.shape(0));
  EXPECT_EQ(this->data_.cpu_data()[3 * inner + 5], this->top_.cpu_data()[5]);
  this->index_.Reshape(vector<int>{0});
  layer.Forward(this->bottom_vec_, this->top_vec_);
  EXPECT_EQ(0, this->top_.count());
}

TYPED_TEST(BatchReindexLayerTest, BackwardAccumulates) {
  typedef TypeParam Dtype;
  BatchReindexLayer<Dtype> layer(this->Param());
  layer.SetUp(this->bottom_vec_, this->top_vec_);
  layer.Forward(this->bottom_vec_, this->top_vec_);
  Dtype* td = this->top_.mutable_cpu_diff();
  for (int i = 0; i < this->top_.count(); ++i) td[i] = Dtype(i);
  caffe_set(this->data_.count(), Dtype(99), this->data_.mutable_cpu_diff());
  layer.Backward(this->top_vec_, vector<bool>{true, false}, this->bottom_vec_);
  const int inner = 12;
  const int idx[7] = {4, 0, 1, 0, 2, 4, 0};
  for (int n = 0; n < 5; ++n) {
    for (int j = 0; j < inner; ++j) {
      Dtype want = 0;
      for (int m = 0; m < 7; ++m)
        if (idx[m] == n) want += Dtype(m * inner + j);
      EXPECT_EQ(want, this->data_.cpu_diff()[n * inner + j]);
    }
  }
  // Item 3 is never picked: its gradient is 0.
  EXPECT_EQ(Dtype(0), this->data_.cpu_diff()[3 * inner]);
}

TYPED_TEST(BatchReindexLayerTest, Gradient) {
  typedef TypeParam Dtype;
  BatchReindexLayer<Dtype> layer(this->Param());
  GradientChecker<Dtype> checker(1e-2, 1e-3);
  checker.CheckGradientExhaustive(&layer, this->bottom_vec_, this->top_vec_,
                                  0);
}

TYPED_TEST(BatchReindexLayerTest, BackwardReads) {
  typedef TypeParam Dtype;
  BatchReindexLayer<Dtype> layer(this->Param());
  EXPECT_EQ(kReadsNothing, layer.Memory().backward_reads);
  EXPECT_FALSE(layer.Memory().in_place);
  EXPECT_TRUE(layer.AllowForceBackward(0));
  EXPECT_FALSE(layer.AllowForceBackward(1));
  layer.SetUp(this->bottom_vec_, this->top_vec_);
  EXPECT_EQ(7 * sizeof(int), layer.InternalBytes());
  contract_test::CheckBackwardReads<Dtype>(
      &layer, this->bottom_vec_, this->top_vec_, vector<bool>{true, false});
}

TYPED_TEST(BatchReindexLayerTest, BadIndices) {
  typedef TypeParam Dtype;
  BatchReindexLayer<Dtype> layer(this->Param());
  layer.SetUp(this->bottom_vec_, this->top_vec_);
  this->SetIndices({0, 5});
  EXPECT_THROW(layer.Forward(this->bottom_vec_, this->top_vec_), Error);
  this->SetIndices({-1});
  EXPECT_THROW(layer.Forward(this->bottom_vec_, this->top_vec_), Error);
  this->SetIndices({1, 2});
  layer.Forward(this->bottom_vec_, this->top_vec_);
  EXPECT_THROW(layer.Backward(this->top_vec_, vector<bool>{true, true},
                              this->bottom_vec_),
               Error);
  // The index blob must have one axis.
  this->index_.Reshape(vector<int>{2, 1});
  BatchReindexLayer<Dtype> layer2(this->Param());
  EXPECT_THROW(layer2.SetUp(this->bottom_vec_, this->top_vec_), Error);
}

}  // namespace caffe
