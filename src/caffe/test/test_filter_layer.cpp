// Tests for FilterLayer: selected items and shapes against loops, backward
// zeros for dropped items, gradient, the BackwardReads declaration and
// selector errors.
#include <gtest/gtest.h>

#include <vector>

#include "caffe/blob.hpp"
#include "caffe/common.hpp"
#include "caffe/layers/filter_layer.hpp"
#include "caffe/test/test_gradient_check_util.hpp"
#include "caffe/test/test_layer_contract_util.hpp"

namespace caffe {

template <typename Dtype>
class FilterLayerTest : public ::testing::Test {
 protected:
  FilterLayerTest()
      : data_(vector<int>{4, 3, 2, 2}), labels_(vector<int>{4, 1, 1, 1}),
        selector_(vector<int>{4}) {
    Caffe::set_random_seed(1701);
    caffe_rng_gaussian<Dtype>(data_.count(), Dtype(0), Dtype(1),
                              data_.mutable_cpu_data());
    for (int i = 0; i < 4; ++i) labels_.mutable_cpu_data()[i] = Dtype(10 + i);
    SetSelector({0, 1, 0, 2.5});
    bottom_vec_ = {&data_, &labels_, &selector_};
    top_vec_ = {&top_data_, &top_labels_};
  }
  void SetSelector(const vector<double>& s) {
    for (size_t i = 0; i < s.size(); ++i)
      selector_.mutable_cpu_data()[i] = Dtype(s[i]);
  }
  LayerParameter Param() {
    LayerParameter p;
    p.set_name("filter");
    p.set_type("Filter");
    return p;
  }
  Blob<Dtype> data_, labels_, selector_, top_data_, top_labels_;
  vector<Blob<Dtype>*> bottom_vec_, top_vec_;
};

TYPED_TEST_SUITE(FilterLayerTest, TestDtypes);

TYPED_TEST(FilterLayerTest, Forward) {
  typedef TypeParam Dtype;
  FilterLayer<Dtype> layer(this->Param());
  layer.SetUp(this->bottom_vec_, this->top_vec_);
  // At setup the tops are sized for the whole batch, as in Caffe.
  EXPECT_EQ(4, this->top_data_.shape(0));
  layer.Forward(this->bottom_vec_, this->top_vec_);
  ASSERT_EQ((vector<int>{2, 3, 2, 2}), this->top_data_.shape());
  ASSERT_EQ((vector<int>{2, 1, 1, 1}), this->top_labels_.shape());
  const int kept[2] = {1, 3};
  for (int m = 0; m < 2; ++m) {
    EXPECT_EQ(Dtype(10 + kept[m]), this->top_labels_.cpu_data()[m]);
    for (int j = 0; j < 12; ++j)
      EXPECT_EQ(this->data_.cpu_data()[kept[m] * 12 + j],
                this->top_data_.cpu_data()[m * 12 + j]);
  }
  // A new selector changes the tops' first dimension.
  this->SetSelector({1, 1, 1, 1});
  layer.Forward(this->bottom_vec_, this->top_vec_);
  EXPECT_EQ(4, this->top_data_.shape(0));
  this->SetSelector({0, 0, 0, 0});
  layer.Forward(this->bottom_vec_, this->top_vec_);
  EXPECT_EQ(0, this->top_data_.count());
  // ... and backward then zeroes every item.
  caffe_set(this->data_.count(), Dtype(5), this->data_.mutable_cpu_diff());
  layer.Backward(this->top_vec_, vector<bool>{true, false, false},
                 this->bottom_vec_);
  for (int i = 0; i < this->data_.count(); ++i)
    EXPECT_EQ(Dtype(0), this->data_.cpu_diff()[i]);
}

TYPED_TEST(FilterLayerTest, Backward) {
  typedef TypeParam Dtype;
  FilterLayer<Dtype> layer(this->Param());
  layer.SetUp(this->bottom_vec_, this->top_vec_);
  layer.Forward(this->bottom_vec_, this->top_vec_);
  Dtype* td = this->top_data_.mutable_cpu_diff();
  for (int i = 0; i < this->top_data_.count(); ++i) td[i] = Dtype(i + 1);
  caffe_set(this->data_.count(), Dtype(5), this->data_.mutable_cpu_diff());
  layer.Backward(this->top_vec_, vector<bool>{true, false, false},
                 this->bottom_vec_);
  for (int n = 0; n < 4; ++n) {
    for (int j = 0; j < 12; ++j) {
      const Dtype want = n == 1 ? Dtype(j + 1) : n == 3 ? Dtype(12 + j + 1)
                                                        : Dtype(0);
      EXPECT_EQ(want, this->data_.cpu_diff()[n * 12 + j]);
    }
  }
}

TYPED_TEST(FilterLayerTest, Gradient) {
  typedef TypeParam Dtype;
  FilterLayer<Dtype> layer(this->Param());
  GradientChecker<Dtype> checker(1e-2, 1e-3);
  checker.CheckGradientExhaustive(&layer, this->bottom_vec_, this->top_vec_,
                                  0);
  checker.CheckGradientExhaustive(&layer, this->bottom_vec_, this->top_vec_,
                                  1);
}

TYPED_TEST(FilterLayerTest, BackwardReads) {
  typedef TypeParam Dtype;
  LayerParameter p = this->Param();
  for (const char* b : {"data", "label", "sel"}) p.add_bottom(b);
  FilterLayer<Dtype> layer(p);
  EXPECT_EQ(kReadsNothing, layer.Memory().backward_reads);
  EXPECT_FALSE(layer.Memory().in_place);
  EXPECT_TRUE(layer.AllowForceBackward(0));
  EXPECT_TRUE(layer.AllowForceBackward(1));
  EXPECT_FALSE(layer.AllowForceBackward(2));
  layer.SetUp(this->bottom_vec_, this->top_vec_);
  contract_test::CheckBackwardReads<Dtype>(
      &layer, this->bottom_vec_, this->top_vec_,
      vector<bool>{true, true, false});
}

TYPED_TEST(FilterLayerTest, Errors) {
  typedef TypeParam Dtype;
  {  // Backward to the selector.
    FilterLayer<Dtype> layer(this->Param());
    layer.SetUp(this->bottom_vec_, this->top_vec_);
    layer.Forward(this->bottom_vec_, this->top_vec_);
    EXPECT_THROW(layer.Backward(this->top_vec_,
                                vector<bool>{true, false, true},
                                this->bottom_vec_),
                 Error);
  }
  {  // Selector of the wrong length.
    Blob<Dtype> sel(vector<int>{5});
    caffe_set(5, Dtype(1), sel.mutable_cpu_data());
    vector<Blob<Dtype>*> bottom{&this->data_, &this->labels_, &sel};
    FilterLayer<Dtype> layer(this->Param());
    try {
      layer.SetUp(bottom, this->top_vec_);
      ADD_FAILURE() << "a 5-item selector for 4 items should be rejected";
    } catch (const Error& e) {
      EXPECT_NE(string(e.what()).find("filter"), string::npos) << e.what();
    }
  }
  {  // Selector with more than one value per item.
    Blob<Dtype> sel(vector<int>{4, 2});
    caffe_set(8, Dtype(1), sel.mutable_cpu_data());
    vector<Blob<Dtype>*> bottom{&this->data_, &this->labels_, &sel};
    FilterLayer<Dtype> layer(this->Param());
    EXPECT_THROW(layer.SetUp(bottom, this->top_vec_), Error);
  }
  {  // Wrong number of tops.
    vector<Blob<Dtype>*> one_top{&this->top_data_};
    FilterLayer<Dtype> layer(this->Param());
    EXPECT_THROW(layer.SetUp(this->bottom_vec_, one_top), Error);
  }
  {  // A single bottom has no selector.
    vector<Blob<Dtype>*> one{&this->data_};
    vector<Blob<Dtype>*> one_top{&this->top_data_};
    FilterLayer<Dtype> layer(this->Param());
    EXPECT_THROW(layer.SetUp(one, one_top), Error);
  }
}

}  // namespace caffe
