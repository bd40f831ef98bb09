// Tests for CropLayer: forward against direct indexing for several axes and
// offset forms (including 5-D), gradients, the BackwardReads declaration and
// parameter errors.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <vector>

#include "caffe/blob.hpp"
#include "caffe/common.hpp"
#include "caffe/layers/crop_layer.hpp"
#include "caffe/test/test_fill_util.hpp"
#include "caffe/test/test_gradient_check_util.hpp"
#include "caffe/test/test_layer_contract_util.hpp"
#include "caffe/util/math_functions.hpp"

namespace caffe {

template <typename Dtype>
class CropLayerTest : public ::testing::Test {
 protected:
  CropLayerTest()
      : big_(new Blob<Dtype>(vector<int>{2, 4, 6, 5})),
        small_(new Blob<Dtype>(vector<int>{1, 3, 4, 3})),
        top_(new Blob<Dtype>()) {
    Caffe::set_random_seed(1701);
    FillGaussian(big_.get());
    FillGaussian(small_.get());
    bottom_vec_ = {big_.get(), small_.get()};
    top_vec_ = {top_.get()};
  }

  static LayerParameter Param(int axis, vector<int> offsets) {
    LayerParameter p;
    p.set_name("crop");
    p.mutable_crop_param()->set_axis(axis);
    for (int o : offsets) p.mutable_crop_param()->add_offset(o);
    return p;
  }

  // Runs the layer and checks top[idx] == big[idx + offset] everywhere;
  // expected_offsets has one entry per axis.
  void CheckForward(const LayerParameter& p, const vector<int>& top_shape,
                    const vector<int>& expected_offsets) {
    CropLayer<Dtype> layer(p);
    layer.SetUp(bottom_vec_, top_vec_);
    layer.Forward(bottom_vec_, top_vec_);
    ASSERT_EQ(top_->shape(), top_shape);
    const int axes = top_->num_axes();
    for (int i = 0; i < top_->count(); ++i) {
      vector<int> idx(axes);
      int rest = i;
      for (int a = axes - 1; a >= 0; --a) {
        idx[a] = rest % top_shape[a];
        rest /= top_shape[a];
      }
      vector<int> big_idx(idx);
      for (int a = 0; a < axes; ++a) big_idx[a] += expected_offsets[a];
      EXPECT_EQ(big_->data_at(big_idx), top_->cpu_data()[i]) << i;
    }
  }

  shared_ptr<Blob<Dtype> > big_, small_, top_;
  vector<Blob<Dtype>*> bottom_vec_, top_vec_;
};

TYPED_TEST_SUITE(CropLayerTest, TestDtypes);

TYPED_TEST(CropLayerTest, SetupAndDeclarations) {
  typedef TypeParam Dtype;
  CropLayer<Dtype> layer(this->Param(2, {}));
  layer.SetUp(this->bottom_vec_, this->top_vec_);
  EXPECT_EQ(this->top_->shape(), (vector<int>{2, 4, 4, 3}));
  EXPECT_STREQ(layer.type(), "Crop");
  EXPECT_EQ(layer.Memory().backward_reads, kReadsNothing);
  EXPECT_FALSE(layer.Memory().in_place);
}

TYPED_TEST(CropLayerTest, DefaultAxisNoOffset) {
  this->CheckForward(this->Param(2, {}), {2, 4, 4, 3}, {0, 0, 0, 0});
}

TYPED_TEST(CropLayerTest, DefaultAxisIsTwo) {
  LayerParameter p;
  p.mutable_crop_param()->add_offset(1);
  this->CheckForward(p, {2, 4, 4, 3}, {0, 0, 1, 1});
}

TYPED_TEST(CropLayerTest, OneOffsetPerAxis) {
  this->CheckForward(this->Param(1, {1, 2, 2}), {2, 3, 4, 3}, {0, 1, 2, 2});
}

TYPED_TEST(CropLayerTest, AllAxes) {
  this->CheckForward(this->Param(0, {1, 0, 1, 2}), {1, 3, 4, 3},
                     {1, 0, 1, 2});
}

TYPED_TEST(CropLayerTest, NegativeAxis) {
  this->CheckForward(this->Param(-1, {2}), {2, 4, 6, 3}, {0, 0, 0, 2});
}

TYPED_TEST(CropLayerTest, FiveD) {
  this->big_->Reshape(vector<int>{2, 3, 4, 5, 6});
  FillGaussian(this->big_.get());
  this->small_->Reshape(vector<int>{2, 2, 2, 3, 4});
  this->CheckForward(this->Param(1, {1, 2, 1, 2}), {2, 2, 2, 3, 4},
                     {0, 1, 2, 1, 2});
}

TYPED_TEST(CropLayerTest, BackwardScattersAndZeroes) {
  typedef TypeParam Dtype;
  CropLayer<Dtype> layer(this->Param(1, {1}));
  layer.SetUp(this->bottom_vec_, this->top_vec_);
  layer.Forward(this->bottom_vec_, this->top_vec_);
  caffe_copy(this->top_->count(), this->top_->cpu_data(),
             this->top_->mutable_cpu_diff());
  caffe_set(this->big_->count(), Dtype(7), this->big_->mutable_cpu_diff());
  caffe_set(this->small_->count(), Dtype(7), this->small_->mutable_cpu_diff());
  layer.Backward(this->top_vec_, {true, true}, this->bottom_vec_);
  for (int n = 0; n < 2; ++n)
    for (int c = 0; c < 4; ++c)
      for (int h = 0; h < 6; ++h)
        for (int w = 0; w < 5; ++w) {
          const bool inside = c >= 1 && c < 4 && h >= 1 && h < 5 && w >= 1 &&
                              w < 4;
          EXPECT_EQ(inside ? this->big_->data_at(n, c, h, w) : Dtype(0),
                    this->big_->diff_at(n, c, h, w));
        }
  for (int i = 0; i < this->small_->count(); ++i)
    EXPECT_EQ(Dtype(0), this->small_->cpu_diff()[i]);
}

TYPED_TEST(CropLayerTest, Gradient) {
  typedef TypeParam Dtype;
  this->big_->Reshape(vector<int>{2, 3, 4, 4});
  FillGaussian(this->big_.get());
  this->small_->Reshape(vector<int>{1, 2, 2, 3});
  CropLayer<Dtype> layer(this->Param(1, {1, 1, 0}));
  GradientChecker<Dtype> checker(1e-2, 1e-3);
  checker.CheckGradientExhaustive(&layer, this->bottom_vec_, this->top_vec_,
                                  0);
}

TYPED_TEST(CropLayerTest, BackwardReadsDeclaration) {
  typedef TypeParam Dtype;
  CropLayer<Dtype> layer(this->Param(2, {1, 2}));
  layer.SetUp(this->bottom_vec_, this->top_vec_);
  contract_test::CheckBackwardReads<Dtype>(&layer, this->bottom_vec_, this->top_vec_);
}

TYPED_TEST(CropLayerTest, BadParamsThrow) {
  typedef TypeParam Dtype;
  auto fails = [&](const LayerParameter& p) {
    CropLayer<Dtype> layer(p);
    EXPECT_THROW(layer.SetUp(this->bottom_vec_, this->top_vec_), caffe::Error)
        << p.DebugString();
  };
  fails(this->Param(2, {1, 1, 1}));  // 3 offsets for 2 cropped axes
  fails(this->Param(2, {3}));        // 6 - 3 < 4
  fails(this->Param(2, {0, 3}));     // 5 - 3 < 3
  fails(this->Param(4, {}));         // no such axis
  this->small_->Reshape(vector<int>{3, 4, 3});
  fails(this->Param(1, {}));  // axis counts differ
  this->small_->Reshape(vector<int>{1, 3, 7, 3});
  fails(this->Param(2, {}));  // bottom[1] larger than bottom[0]
}

}  // namespace caffe
