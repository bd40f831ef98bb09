// Tests for ScaleLayer: a second bottom or a learned blob multiplied with
// broadcasting (element-wise, leading, middle, trailing axes, scalar), the
// optional learned bias, gradients, in place (with its saved copy of x),
// declarations and shape errors.
#include <gtest/gtest.h>

#include <vector>

#include "caffe/blob.hpp"
#include "caffe/common.hpp"
#include "caffe/layers/scale_layer.hpp"
#include "caffe/test/test_gradient_check_util.hpp"
#include "caffe/test/test_layer_contract_util.hpp"

namespace caffe {

using contract_test::CheckBackwardReads;
using contract_test::CheckInPlaceMatches;

template <typename Dtype>
class ScaleLayerTest : public ::testing::Test {
 protected:
  ScaleLayerTest() : bottom_(2, 3, 4, 5) {
    Caffe::set_random_seed(1701);
    Fill(&bottom_);
    top_vec_.push_back(&top_);
  }
  static void Fill(Blob<Dtype>* b) {
    caffe_rng_gaussian<Dtype>(b->count(), Dtype(0), Dtype(1),
                              b->mutable_cpu_data());
  }
  static LayerParameter Param(int axis, int num_axes = 1,
                              bool bias_term = false) {
    LayerParameter p;
    p.set_name("scale");
    p.set_type("Scale");
    p.mutable_scale_param()->set_axis(axis);
    p.mutable_scale_param()->set_num_axes(num_axes);
    p.mutable_scale_param()->set_bias_term(bias_term);
    return p;
  }
  static LayerParameter GaussianParam(int axis, int num_axes, bool bias) {
    LayerParameter p = Param(axis, num_axes, bias);
    p.mutable_scale_param()->mutable_filler()->set_type("gaussian");
    if (bias) p.mutable_scale_param()->mutable_bias_filler()->set_type(
                  "gaussian");
    return p;
  }
  // Expected y[n, d, i] = x[n, d, i] * s[d] (+ b[d]) for s covering bottom
  // axes [axis, axis + s.num_axes()).
  void ExpectScaled(const Blob<Dtype>& s, int axis,
                    const Blob<Dtype>* b = nullptr) {
    const int outer = bottom_.count(0, axis);
    const int dim = s.count();
    const int inner = bottom_.count() / (outer * dim);
    for (int n = 0; n < outer; ++n)
      for (int d = 0; d < dim; ++d)
        for (int i = 0; i < inner; ++i) {
          const int k = (n * dim + d) * inner + i;
          Dtype expected = bottom_.cpu_data()[k] * s.cpu_data()[d];
          if (b) expected += b->cpu_data()[d];
          EXPECT_EQ(expected, top_.cpu_data()[k]) << "index " << k;
        }
  }
  void TestTwoBottoms(const vector<int>& scale_shape, int axis,
                      bool bias_term = false) {
    Blob<Dtype> scale(scale_shape);
    Fill(&scale);
    vector<Blob<Dtype>*> bottom{&bottom_, &scale};
    ScaleLayer<Dtype> layer(GaussianParam(axis, 1, bias_term));
    layer.SetUp(bottom, top_vec_);
    ASSERT_EQ(bias_term ? 1u : 0u, layer.blobs().size());
    if (bias_term) {
      EXPECT_EQ(scale_shape, layer.blobs()[0]->shape());
    }
    layer.Forward(bottom, top_vec_);
    ExpectScaled(scale,
                 scale_shape.empty() ? 0 : bottom_.CanonicalAxisIndex(axis),
                 bias_term ? layer.blobs()[0].get() : nullptr);
    GradientChecker<Dtype> checker(1e-2, 1e-3, 1701);
    checker.CheckGradientExhaustive(&layer, bottom, top_vec_);
  }

  Blob<Dtype> bottom_;
  Blob<Dtype> top_;
  vector<Blob<Dtype>*> top_vec_;
};

TYPED_TEST_SUITE(ScaleLayerTest, TestDtypes);

TYPED_TEST(ScaleLayerTest, EltwiseBottom) {
  this->TestTwoBottoms(vector<int>{2, 3, 4, 5}, 0);
}

TYPED_TEST(ScaleLayerTest, BroadcastBegin) {
  this->TestTwoBottoms(vector<int>{2, 3}, 0);
}

TYPED_TEST(ScaleLayerTest, BroadcastMiddle) {
  this->TestTwoBottoms(vector<int>{3, 4}, 1);
}

TYPED_TEST(ScaleLayerTest, BroadcastMiddleWithBias) {
  this->TestTwoBottoms(vector<int>{3, 4}, 1, true);
}

TYPED_TEST(ScaleLayerTest, BroadcastEnd) {
  this->TestTwoBottoms(vector<int>{4, 5}, 2);
  this->TestTwoBottoms(vector<int>{5}, -1);
}

TYPED_TEST(ScaleLayerTest, ScalarBottom) {
  this->TestTwoBottoms(vector<int>(), 2);  // axis ignored for a scalar
}

TYPED_TEST(ScaleLayerTest, LearnedScale) {
  typedef TypeParam Dtype;
  ScaleLayer<Dtype> layer(this->GaussianParam(1, 2, false));
  vector<Blob<Dtype>*> bottom(1, &this->bottom_);
  layer.SetUp(bottom, this->top_vec_);
  ASSERT_EQ(1u, layer.blobs().size());
  EXPECT_EQ((vector<int>{3, 4}), layer.blobs()[0]->shape());
  layer.Forward(bottom, this->top_vec_);
  this->ExpectScaled(*layer.blobs()[0], 1);
  GradientChecker<Dtype> checker(1e-2, 1e-3, 1701);
  checker.CheckGradientExhaustive(&layer, bottom, this->top_vec_);
}

TYPED_TEST(ScaleLayerTest, LearnedScaleWithBias) {
  typedef TypeParam Dtype;
  ScaleLayer<Dtype> layer(this->GaussianParam(1, 1, true));
  vector<Blob<Dtype>*> bottom(1, &this->bottom_);
  layer.SetUp(bottom, this->top_vec_);
  ASSERT_EQ(2u, layer.blobs().size());
  EXPECT_EQ(vector<int>(1, 3), layer.blobs()[0]->shape());
  EXPECT_EQ(vector<int>(1, 3), layer.blobs()[1]->shape());
  layer.Forward(bottom, this->top_vec_);
  this->ExpectScaled(*layer.blobs()[0], 1, layer.blobs()[1].get());
  GradientChecker<Dtype> checker(1e-2, 1e-3, 1701);
  checker.CheckGradientExhaustive(&layer, bottom, this->top_vec_);
}

TYPED_TEST(ScaleLayerTest, DefaultFillersAreIdentity) {
  typedef TypeParam Dtype;
  ScaleLayer<Dtype> layer(this->Param(1, -1, true));
  vector<Blob<Dtype>*> bottom(1, &this->bottom_);
  layer.SetUp(bottom, this->top_vec_);
  EXPECT_EQ((vector<int>{3, 4, 5}), layer.blobs()[0]->shape());
  EXPECT_EQ((vector<int>{3, 4, 5}), layer.blobs()[1]->shape());
  layer.Forward(bottom, this->top_vec_);
  for (int i = 0; i < this->bottom_.count(); ++i)
    EXPECT_EQ(this->bottom_.cpu_data()[i], this->top_.cpu_data()[i]);
}

TYPED_TEST(ScaleLayerTest, StoredBlobsAreUsed) {
  typedef TypeParam Dtype;
  // A saved model: scale then bias, both of shape (3).
  LayerParameter p = this->Param(1, 1, true);
  for (int b = 0; b < 2; ++b) {
    BlobProto* stored = p.add_blobs();
    stored->mutable_shape()->add_dim(3);
    for (int c = 0; c < 3; ++c) stored->add_data(b == 0 ? c + 1 : -c);
  }
  ScaleLayer<Dtype> layer(p);
  vector<Blob<Dtype>*> bottom(1, &this->bottom_);
  layer.SetUp(bottom, this->top_vec_);
  ASSERT_EQ(2u, layer.blobs().size());
  layer.Forward(bottom, this->top_vec_);
  this->ExpectScaled(*layer.blobs()[0], 1, layer.blobs()[1].get());
  EXPECT_EQ(Dtype(3), layer.blobs()[0]->cpu_data()[2]);
  EXPECT_EQ(Dtype(-2), layer.blobs()[1]->cpu_data()[2]);
}

TYPED_TEST(ScaleLayerTest, ParamDiffAccumulates) {
  typedef TypeParam Dtype;
  ScaleLayer<Dtype> layer(this->GaussianParam(0, -1, true));  // eltwise
  vector<Blob<Dtype>*> bottom(1, &this->bottom_);
  layer.SetUp(bottom, this->top_vec_);
  layer.Forward(bottom, this->top_vec_);
  contract_test::FillTopDiffs(this->top_vec_);
  contract_test::ZeroParamDiffs<Dtype>(&layer);
  layer.Backward(this->top_vec_, vector<bool>(1, true), bottom);
  const Dtype scale_once = layer.blobs()[0]->cpu_diff()[5];
  const Dtype bias_once = layer.blobs()[1]->cpu_diff()[5];
  layer.Backward(this->top_vec_, vector<bool>(1, true), bottom);
  EXPECT_NEAR(2 * scale_once, layer.blobs()[0]->cpu_diff()[5], 1e-5);
  EXPECT_NEAR(2 * bias_once, layer.blobs()[1]->cpu_diff()[5], 1e-5);
}

TYPED_TEST(ScaleLayerTest, InPlace) {
  typedef TypeParam Dtype;
  CheckInPlaceMatches<Dtype>(this->GaussianParam(1, 1, true),
                             vector<Blob<Dtype>*>(1, &this->bottom_));
  CheckInPlaceMatches<Dtype>(this->GaussianParam(0, -1, false),
                             vector<Blob<Dtype>*>(1, &this->bottom_));
  Blob<Dtype> scale(vector<int>{3, 4});
  this->Fill(&scale);
  CheckInPlaceMatches<Dtype>(this->GaussianParam(1, 1, true),
                             vector<Blob<Dtype>*>{&this->bottom_, &scale});
}

TYPED_TEST(ScaleLayerTest, InternalBytes) {
  typedef TypeParam Dtype;
  vector<Blob<Dtype>*> bottom(1, &this->bottom_);
  ScaleLayer<Dtype> layer(this->Param(1));
  layer.SetUp(bottom, this->top_vec_);
  EXPECT_EQ(0u, layer.InternalBytes());
  ScaleLayer<Dtype> in_place(this->Param(1, 1, true));
  in_place.SetUp(bottom, bottom);
  EXPECT_EQ(this->bottom_.count() * sizeof(Dtype), in_place.InternalBytes());
}

TYPED_TEST(ScaleLayerTest, BackwardReads) {
  typedef TypeParam Dtype;
  ScaleLayer<Dtype> learned(this->GaussianParam(1, 1, true));
  EXPECT_EQ(kReadsBottomData, learned.Memory().backward_reads);
  EXPECT_TRUE(learned.Memory().in_place);
  vector<Blob<Dtype>*> bottom(1, &this->bottom_);
  learned.SetUp(bottom, this->top_vec_);
  CheckBackwardReads<Dtype>(&learned, bottom, this->top_vec_);
  Blob<Dtype> scale(vector<int>{3, 4});
  this->Fill(&scale);
  vector<Blob<Dtype>*> two{&this->bottom_, &scale};
  ScaleLayer<Dtype> given(this->GaussianParam(1, 1, true));
  given.SetUp(two, this->top_vec_);
  CheckBackwardReads<Dtype>(&given, two, this->top_vec_);
  // In place with one bottom, backward reads its copy of the input, not
  // the blob (which later in-place layers overwrite): the plan may reuse
  // the blob's memory once nothing else reads it.
  Blob<Dtype> shared;
  shared.CopyFrom(this->bottom_, false, true);
  vector<Blob<Dtype>*> in_place(1, &shared);
  ScaleLayer<Dtype> on_itself(this->GaussianParam(1, 1, true));
  on_itself.SetUp(in_place, in_place);
  EXPECT_EQ(kReadsNothing, on_itself.Memory().backward_reads);
  CheckBackwardReads<Dtype>(&on_itself, in_place, in_place);
  // In place with a second bottom (the scale), that bottom is read.
  vector<Blob<Dtype>*> two_in_place{&shared, &scale};
  ScaleLayer<Dtype> given_in_place(this->GaussianParam(1, 1, true));
  given_in_place.SetUp(two_in_place, in_place);
  EXPECT_EQ(kReadsBottomData, given_in_place.Memory().backward_reads);
}

TYPED_TEST(ScaleLayerTest, ShapeErrors) {
  typedef TypeParam Dtype;
  Blob<Dtype> wrong(vector<int>{3, 5});
  vector<Blob<Dtype>*> bottom{&this->bottom_, &wrong};
  ScaleLayer<Dtype> mismatch(this->Param(1));
  EXPECT_THROW(mismatch.SetUp(bottom, this->top_vec_), Error);
  ScaleLayer<Dtype> mismatch_bias(this->Param(1, 1, true));
  EXPECT_THROW(mismatch_bias.SetUp(bottom, this->top_vec_), Error);
  Blob<Dtype> too_long(vector<int>{4, 5, 6});
  vector<Blob<Dtype>*> bottom2{&this->bottom_, &too_long};
  ScaleLayer<Dtype> past_end(this->Param(2));
  EXPECT_THROW(past_end.SetUp(bottom2, this->top_vec_), Error);
  vector<Blob<Dtype>*> one(1, &this->bottom_);
  ScaleLayer<Dtype> bad_num_axes(this->Param(1, -2));
  EXPECT_THROW(bad_num_axes.SetUp(one, this->top_vec_), Error);
  ScaleLayer<Dtype> learned_past_end(this->Param(2, 3));
  EXPECT_THROW(learned_past_end.SetUp(one, this->top_vec_), Error);
  ScaleLayer<Dtype> bad_axis(this->Param(-5));
  EXPECT_THROW(bad_axis.SetUp(one, this->top_vec_), Error);
  // The second bottom changes shape after setup.
  Blob<Dtype> scale(vector<int>{3, 4});
  vector<Blob<Dtype>*> ok{&this->bottom_, &scale};
  ScaleLayer<Dtype> layer(this->Param(1));
  layer.SetUp(ok, this->top_vec_);
  scale.Reshape(vector<int>{3, 3});
  EXPECT_THROW(layer.Forward(ok, this->top_vec_), Error);
}

TYPED_TEST(ScaleLayerTest, Registered) {
  typedef TypeParam Dtype;
  EXPECT_STREQ("Scale",
               LayerRegistry<Dtype>::CreateLayer(this->Param(1))->type());
}

}  // namespace caffe
