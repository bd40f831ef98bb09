// Tests for LRNLayer: ACROSS_CHANNELS and WITHIN_CHANNEL against direct
// loops, gradients, the BackwardReads declaration and parameter errors.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <vector>

#include "caffe/blob.hpp"
#include "caffe/common.hpp"
#include "caffe/layers/lrn_layer.hpp"
#include "caffe/test/test_fill_util.hpp"
#include "caffe/test/test_gradient_check_util.hpp"
#include "caffe/test/test_layer_contract_util.hpp"
#include "caffe/util/math_functions.hpp"

namespace caffe {
namespace {

// Direct LRN: ACROSS uses k + alpha / n * sum over channels c - n/2 .. c + n/2;
// WITHIN uses 1 + alpha / n^2 * sum over the n x n window (Caffe's
// WITHIN_CHANNEL ignores k).
template <typename Dtype>
vector<Dtype> RefLRN(const Blob<Dtype>& in, bool across, int n, Dtype alpha,
                     Dtype beta, Dtype k) {
  const int N = in.num(), C = in.channels(), H = in.height(), W = in.width();
  const int r = (n - 1) / 2;
  vector<Dtype> out;
  for (int b = 0; b < N; ++b)
    for (int c = 0; c < C; ++c)
      for (int y = 0; y < H; ++y)
        for (int x = 0; x < W; ++x) {
          Dtype sum = 0;
          if (across) {
            for (int c2 = c - r; c2 <= c + r; ++c2)
              if (c2 >= 0 && c2 < C) sum += std::pow(in.data_at(b, c2, y, x), 2);
          } else {
            for (int y2 = y - r; y2 <= y + r; ++y2)
              for (int x2 = x - r; x2 <= x + r; ++x2)
                if (y2 >= 0 && y2 < H && x2 >= 0 && x2 < W)
                  sum += std::pow(in.data_at(b, c, y2, x2), 2);
          }
          const Dtype scale =
              across ? k + alpha / n * sum : 1 + alpha / (n * n) * sum;
          out.push_back(in.data_at(b, c, y, x) * std::pow(scale, -beta));
        }
  return out;
}

}  // namespace

template <typename Dtype>
class LRNLayerTest : public ::testing::Test {
 protected:
  LRNLayerTest()
      : bottom_(new Blob<Dtype>(vector<int>{2, 7, 3, 4})),
        top_(new Blob<Dtype>()) {
    Caffe::set_random_seed(1701);
    FillGaussian(bottom_.get());
    bottom_vec_ = {bottom_.get()};
    top_vec_ = {top_.get()};
  }

  static LayerParameter Param(bool across, int size, float alpha, float beta,
                              float k) {
    LayerParameter p;
    p.set_name("lrn");
    LRNParameter* lp = p.mutable_lrn_param();
    lp->set_norm_region(across ? LRNParameter_NormRegion_ACROSS_CHANNELS
                               : LRNParameter_NormRegion_WITHIN_CHANNEL);
    lp->set_local_size(size);
    lp->set_alpha(alpha);
    lp->set_beta(beta);
    lp->set_k(k);
    return p;
  }

  void CheckForward(bool across, int size, float alpha, float beta, float k) {
    LRNLayer<Dtype> layer(Param(across, size, alpha, beta, k));
    layer.SetUp(bottom_vec_, top_vec_);
    layer.Forward(bottom_vec_, top_vec_);
    ASSERT_EQ(top_->shape(), bottom_->shape());
    vector<Dtype> ref = RefLRN<Dtype>(*bottom_, across, size, alpha, beta, k);
    for (int i = 0; i < top_->count(); ++i)
      EXPECT_NEAR(ref[i], top_->cpu_data()[i], 1e-5) << i;
  }

  shared_ptr<Blob<Dtype> > bottom_, top_;
  vector<Blob<Dtype>*> bottom_vec_, top_vec_;
};

TYPED_TEST_SUITE(LRNLayerTest, TestDtypes);

TYPED_TEST(LRNLayerTest, SetupAndDeclarations) {
  typedef TypeParam Dtype;
  LRNLayer<Dtype> layer(this->Param(true, 5, 1, 0.75, 1));
  layer.SetUp(this->bottom_vec_, this->top_vec_);
  EXPECT_EQ(this->top_->shape(), this->bottom_->shape());
  EXPECT_STREQ(layer.type(), "LRN");
  EXPECT_EQ(layer.Memory().backward_reads, kReadsBottomData);
  EXPECT_FALSE(layer.Memory().in_place);
  EXPECT_EQ(layer.InternalBytes(), sizeof(Dtype) * this->bottom_->count());
}

TYPED_TEST(LRNLayerTest, ForwardAcrossChannels) {
  this->CheckForward(true, 5, 1.0f, 0.75f, 1.0f);
}

TYPED_TEST(LRNLayerTest, ForwardAcrossChannelsLargeRegion) {
  this->CheckForward(true, 15, 0.5f, 0.6f, 2.0f);
}

TYPED_TEST(LRNLayerTest, ForwardAcrossChannelsSizeOne) {
  this->CheckForward(true, 1, 2.0f, 1.0f, 0.5f);
}

TYPED_TEST(LRNLayerTest, ForwardWithinChannel) {
  this->CheckForward(false, 3, 1.0f, 0.75f, 1.0f);
}

// k does not enter WITHIN_CHANNEL (as in Caffe).
TYPED_TEST(LRNLayerTest, ForwardWithinChannelIgnoresK) {
  this->CheckForward(false, 5, 2.0f, 0.5f, 3.0f);
}

TYPED_TEST(LRNLayerTest, GradientAcrossChannels) {
  typedef TypeParam Dtype;
  LRNLayer<Dtype> layer(this->Param(true, 5, 1, 0.75, 1));
  GradientChecker<Dtype> checker(1e-2, 1e-2);
  checker.CheckGradientExhaustive(&layer, this->bottom_vec_, this->top_vec_);
}

TYPED_TEST(LRNLayerTest, GradientAcrossChannelsLargeRegion) {
  typedef TypeParam Dtype;
  LRNLayer<Dtype> layer(this->Param(true, 15, 2, 0.6, 1.5));
  GradientChecker<Dtype> checker(1e-2, 1e-2);
  checker.CheckGradientExhaustive(&layer, this->bottom_vec_, this->top_vec_);
}

TYPED_TEST(LRNLayerTest, GradientWithinChannel) {
  typedef TypeParam Dtype;
  this->bottom_->Reshape(vector<int>{2, 2, 4, 5});
  FillGaussian(this->bottom_.get());
  LRNLayer<Dtype> layer(this->Param(false, 3, 3, 0.75, 1));
  GradientChecker<Dtype> checker(1e-2, 1e-2);
  checker.CheckGradientExhaustive(&layer, this->bottom_vec_, this->top_vec_);
}

TYPED_TEST(LRNLayerTest, BackwardReadsDeclaration) {
  typedef TypeParam Dtype;
  for (bool across : {true, false}) {
    LRNLayer<Dtype> layer(this->Param(across, 3, 1, 0.75, 1));
    layer.SetUp(this->bottom_vec_, this->top_vec_);
    contract_test::CheckBackwardReads<Dtype>(&layer,
        this->bottom_vec_, this->top_vec_);
  }
}

TYPED_TEST(LRNLayerTest, BadParamsThrow) {
  typedef TypeParam Dtype;
  {
    LRNLayer<Dtype> layer(this->Param(true, 4, 1, 0.75, 1));  // even size
    EXPECT_THROW(layer.SetUp(this->bottom_vec_, this->top_vec_),
                 caffe::Error);
  }
  {
    LRNLayer<Dtype> layer(this->Param(true, 0, 1, 0.75, 1));
    EXPECT_THROW(layer.SetUp(this->bottom_vec_, this->top_vec_),
                 caffe::Error);
  }
  this->bottom_->Reshape(vector<int>{2, 7, 3});  // 3 axes
  LRNLayer<Dtype> layer(this->Param(true, 3, 1, 0.75, 1));
  EXPECT_THROW(layer.SetUp(this->bottom_vec_, this->top_vec_), caffe::Error);
}

}  // namespace caffe
