// Tests for BiasLayer: a second bottom or a learned blob added with
// broadcasting (element-wise, leading, middle, trailing axes, scalar),
// gradients, in place, declarations and shape errors.
#include <gtest/gtest.h>

#include <vector>

#include "caffe/blob.hpp"
#include "caffe/common.hpp"
#include "caffe/layers/bias_layer.hpp"
#include "caffe/test/test_gradient_check_util.hpp"
#include "caffe/test/test_layer_contract_util.hpp"

namespace caffe {

using contract_test::CheckBackwardReads;
using contract_test::CheckInPlaceMatches;

template <typename Dtype>
class BiasLayerTest : public ::testing::Test {
 protected:
  BiasLayerTest() : bottom_(2, 3, 4, 5) {
    Caffe::set_random_seed(1701);
    Fill(&bottom_);
    top_vec_.push_back(&top_);
  }
  static void Fill(Blob<Dtype>* b) {
    caffe_rng_gaussian<Dtype>(b->count(), Dtype(0), Dtype(1),
                              b->mutable_cpu_data());
  }
  static LayerParameter Param(int axis, int num_axes = 1) {
    LayerParameter p;
    p.set_name("bias");
    p.set_type("Bias");
    p.mutable_bias_param()->set_axis(axis);
    p.mutable_bias_param()->set_num_axes(num_axes);
    return p;
  }
  // Expected y[n, d, i] = x[n, d, i] + b[d] for b covering bottom axes
  // [axis, axis + b.num_axes()).
  void ExpectBiased(const Blob<Dtype>& b, int axis) {
    const int outer = bottom_.count(0, axis);
    const int dim = b.count();
    const int inner = bottom_.count() / (outer * dim);
    for (int n = 0; n < outer; ++n)
      for (int d = 0; d < dim; ++d)
        for (int i = 0; i < inner; ++i) {
          const int k = (n * dim + d) * inner + i;
          EXPECT_EQ(bottom_.cpu_data()[k] + b.cpu_data()[d],
                    top_.cpu_data()[k]) << "index " << k;
        }
  }
  void TestTwoBottoms(const vector<int>& bias_shape, int axis) {
    Blob<Dtype> bias(bias_shape);
    Fill(&bias);
    vector<Blob<Dtype>*> bottom{&bottom_, &bias};
    BiasLayer<Dtype> layer(Param(axis));
    layer.SetUp(bottom, top_vec_);
    EXPECT_TRUE(layer.blobs().empty());
    layer.Forward(bottom, top_vec_);
    ExpectBiased(bias,
                 bias_shape.empty() ? 0 : bottom_.CanonicalAxisIndex(axis));
    GradientChecker<Dtype> checker(1e-2, 1e-3, 1701);
    checker.CheckGradientExhaustive(&layer, bottom, top_vec_);
  }

  Blob<Dtype> bottom_;
  Blob<Dtype> top_;
  vector<Blob<Dtype>*> top_vec_;
};

TYPED_TEST_SUITE(BiasLayerTest, TestDtypes);

TYPED_TEST(BiasLayerTest, EltwiseBottom) {
  this->TestTwoBottoms(vector<int>{2, 3, 4, 5}, 0);
}

TYPED_TEST(BiasLayerTest, BroadcastBegin) {
  this->TestTwoBottoms(vector<int>{2, 3}, 0);
}

TYPED_TEST(BiasLayerTest, BroadcastMiddle) {
  this->TestTwoBottoms(vector<int>{3, 4}, 1);
}

TYPED_TEST(BiasLayerTest, BroadcastEnd) {
  this->TestTwoBottoms(vector<int>{4, 5}, 2);
  this->TestTwoBottoms(vector<int>{5}, -1);
}

TYPED_TEST(BiasLayerTest, ScalarBottom) {
  this->TestTwoBottoms(vector<int>(), 2);  // axis ignored for a scalar
}

TYPED_TEST(BiasLayerTest, LearnedBias) {
  typedef TypeParam Dtype;
  LayerParameter p = this->Param(1, 2);
  p.mutable_bias_param()->mutable_filler()->set_type("gaussian");
  BiasLayer<Dtype> layer(p);
  vector<Blob<Dtype>*> bottom(1, &this->bottom_);
  layer.SetUp(bottom, this->top_vec_);
  ASSERT_EQ(1u, layer.blobs().size());
  EXPECT_EQ((vector<int>{3, 4}), layer.blobs()[0]->shape());
  layer.Forward(bottom, this->top_vec_);
  this->ExpectBiased(*layer.blobs()[0], 1);
  GradientChecker<Dtype> checker(1e-2, 1e-3, 1701);
  checker.CheckGradientExhaustive(&layer, bottom, this->top_vec_);
}

TYPED_TEST(BiasLayerTest, LearnedBiasShapes) {
  typedef TypeParam Dtype;
  vector<Blob<Dtype>*> bottom(1, &this->bottom_);
  BiasLayer<Dtype> to_end(this->Param(1, -1));
  to_end.SetUp(bottom, this->top_vec_);
  EXPECT_EQ((vector<int>{3, 4, 5}), to_end.blobs()[0]->shape());
  BiasLayer<Dtype> scalar(this->Param(1, 0));
  scalar.SetUp(bottom, this->top_vec_);
  EXPECT_EQ(0, scalar.blobs()[0]->num_axes());
  // Default filler: constant 0, so the layer starts as the identity.
  BiasLayer<Dtype> identity(this->Param(1));
  identity.SetUp(bottom, this->top_vec_);
  identity.Forward(bottom, this->top_vec_);
  for (int i = 0; i < this->bottom_.count(); ++i)
    EXPECT_EQ(this->bottom_.cpu_data()[i], this->top_.cpu_data()[i]);
}

TYPED_TEST(BiasLayerTest, ParamDiffAccumulates) {
  typedef TypeParam Dtype;
  BiasLayer<Dtype> layer(this->Param(1));
  vector<Blob<Dtype>*> bottom(1, &this->bottom_);
  layer.SetUp(bottom, this->top_vec_);
  layer.Forward(bottom, this->top_vec_);
  contract_test::FillTopDiffs(this->top_vec_);
  contract_test::ZeroParamDiffs<Dtype>(&layer);
  layer.Backward(this->top_vec_, vector<bool>(1, true), bottom);
  const Dtype once = layer.blobs()[0]->cpu_diff()[1];
  layer.Backward(this->top_vec_, vector<bool>(1, true), bottom);
  EXPECT_NEAR(2 * once, layer.blobs()[0]->cpu_diff()[1], 1e-5);
  EXPECT_NE(Dtype(0), once);
}

TYPED_TEST(BiasLayerTest, InPlace) {
  typedef TypeParam Dtype;
  LayerParameter p = this->Param(1);
  p.mutable_bias_param()->mutable_filler()->set_type("gaussian");
  CheckInPlaceMatches<Dtype>(p, vector<Blob<Dtype>*>(1, &this->bottom_));
  Blob<Dtype> bias(vector<int>{3, 4});
  this->Fill(&bias);
  CheckInPlaceMatches<Dtype>(this->Param(1),
                             vector<Blob<Dtype>*>{&this->bottom_, &bias});
}

TYPED_TEST(BiasLayerTest, BackwardReads) {
  typedef TypeParam Dtype;
  LayerParameter p = this->Param(1);
  p.mutable_bias_param()->mutable_filler()->set_type("gaussian");
  BiasLayer<Dtype> learned(p);
  EXPECT_EQ(kReadsNothing, learned.Memory().backward_reads);
  EXPECT_TRUE(learned.Memory().in_place);
  vector<Blob<Dtype>*> bottom(1, &this->bottom_);
  learned.SetUp(bottom, this->top_vec_);
  CheckBackwardReads<Dtype>(&learned, bottom, this->top_vec_);
  Blob<Dtype> bias(vector<int>{3, 4});
  this->Fill(&bias);
  vector<Blob<Dtype>*> two{&this->bottom_, &bias};
  BiasLayer<Dtype> given(this->Param(1));
  given.SetUp(two, this->top_vec_);
  CheckBackwardReads<Dtype>(&given, two, this->top_vec_);
}

TYPED_TEST(BiasLayerTest, ShapeErrors) {
  typedef TypeParam Dtype;
  Blob<Dtype> wrong(vector<int>{3, 5});
  vector<Blob<Dtype>*> bottom{&this->bottom_, &wrong};
  BiasLayer<Dtype> mismatch(this->Param(1));
  EXPECT_THROW(mismatch.SetUp(bottom, this->top_vec_), Error);
  Blob<Dtype> too_long(vector<int>{4, 5, 6});
  vector<Blob<Dtype>*> bottom2{&this->bottom_, &too_long};
  BiasLayer<Dtype> past_end(this->Param(2));
  EXPECT_THROW(past_end.SetUp(bottom2, this->top_vec_), Error);
  vector<Blob<Dtype>*> one(1, &this->bottom_);
  BiasLayer<Dtype> bad_num_axes(this->Param(1, -2));
  EXPECT_THROW(bad_num_axes.SetUp(one, this->top_vec_), Error);
  BiasLayer<Dtype> learned_past_end(this->Param(2, 3));
  EXPECT_THROW(learned_past_end.SetUp(one, this->top_vec_), Error);
  BiasLayer<Dtype> bad_axis(this->Param(4));
  EXPECT_THROW(bad_axis.SetUp(one, this->top_vec_), Error);
}

TYPED_TEST(BiasLayerTest, Registered) {
  typedef TypeParam Dtype;
  EXPECT_STREQ("Bias",
               LayerRegistry<Dtype>::CreateLayer(this->Param(1))->type());
}

}  // namespace caffe
