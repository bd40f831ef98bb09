#include <gtest/gtest.h>

#include <limits>
#include <memory>
#include <vector>

#include "caffe/blob.hpp"
#include "caffe/layers/slice_layer.hpp"
#include "caffe/test/test_gradient_check_util.hpp"

namespace caffe {
namespace {

// Runs forward and backward twice with the same top diffs; the second time
// every input the layer does not declare in BackwardReads() is overwritten
// with NaN before backward.  Bottom and parameter diffs must not change.
// The bottoms' data is restored afterwards.
template <typename Dtype>
void CheckBackwardReads(Layer<Dtype>* layer, const vector<Blob<Dtype>*>& bottom,
                        const vector<Blob<Dtype>*>& top,
                        const vector<bool>& propagate_down) {
  vector<vector<Dtype> > saved;
  for (auto* b : bottom)
    saved.emplace_back(b->cpu_data(), b->cpu_data() + b->count());
  layer->SetUp(bottom, top);
  vector<vector<Dtype> > diffs[2];
  for (int pass = 0; pass < 2; ++pass) {
    layer->Forward(bottom, top);
    for (size_t i = 0; i < top.size(); ++i) {
      Dtype* d = top[i]->mutable_cpu_diff();
      for (int j = 0; j < top[i]->count(); ++j)
        d[j] = Dtype(0.1) * ((j * 7 + i * 3) % 11) - Dtype(0.5);
    }
    for (auto& p : layer->blobs())
      caffe_set(p->count(), Dtype(0), p->mutable_cpu_diff());
    if (pass == 1) {
      const Dtype nan = std::numeric_limits<Dtype>::quiet_NaN();
      const int reads = layer->BackwardReads();
      if (!(reads & kReadsBottomData))
        for (auto* b : bottom)
          caffe_set(b->count(), nan, b->mutable_cpu_data());
      if (!(reads & kReadsTopData))
        for (auto* t : top) caffe_set(t->count(), nan, t->mutable_cpu_data());
    }
    layer->Backward(top, propagate_down, bottom);
    for (size_t i = 0; i < bottom.size(); ++i) {
      if (!propagate_down[i]) continue;
      const Dtype* d = bottom[i]->cpu_diff();
      diffs[pass].emplace_back(d, d + bottom[i]->count());
    }
    for (auto& p : layer->blobs())
      diffs[pass].emplace_back(p->cpu_diff(), p->cpu_diff() + p->count());
  }
  for (size_t i = 0; i < bottom.size(); ++i)
    caffe_copy(bottom[i]->count(), saved[i].data(),
               bottom[i]->mutable_cpu_data());
  ASSERT_EQ(diffs[0].size(), diffs[1].size());
  for (size_t b = 0; b < diffs[0].size(); ++b)
    for (size_t j = 0; j < diffs[0][b].size(); ++j)
      EXPECT_EQ(diffs[0][b][j], diffs[1][b][j]) << "diff " << b << " at " << j;
}

template <typename Dtype>
void FillGaussian(Blob<Dtype>* blob) {
  caffe_rng_gaussian<Dtype>(blob->count(), Dtype(0), Dtype(1),
                            blob->mutable_cpu_data());
}

}  // namespace

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
  EXPECT_EQ(layer.BackwardReads(), kReadsNothing);
  EXPECT_FALSE(layer.AllowsInPlace());
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
