// Tests for SPPLayer: output shapes and values against a direct pyramid
// pooling written here (Caffe's kernel / pad rule and Pooling's output-size
// and window rules), gradients, reshaping to a new input size, STOCHASTIC's
// TRAIN-phase inner pooling, the BackwardReads declaration and errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <set>
#include <vector>

#include "caffe/blob.hpp"
#include "caffe/common.hpp"
#include "caffe/layers/spp_layer.hpp"
#include "caffe/test/test_gradient_check_util.hpp"
#include "caffe/test/test_layer_contract_util.hpp"

namespace caffe {

namespace {

// Pooled values of one level, N x C x PH x PW flattened, and PH, PW.
template <typename Dtype>
vector<double> ReferenceLevel(const Blob<Dtype>& x, int level, bool max_pool,
                              int* ph_out, int* pw_out) {
  const int N = x.shape(0), C = x.shape(1), H = x.shape(2), W = x.shape(3);
  const int bins = 1 << level;
  const int kh = (H + bins - 1) / bins, kw = (W + bins - 1) / bins;
  const int pad_h = (kh * bins - H + 1) / 2, pad_w = (kw * bins - W + 1) / 2;
  int PH = static_cast<int>(std::ceil(double(H + 2 * pad_h - kh) / kh)) + 1;
  int PW = static_cast<int>(std::ceil(double(W + 2 * pad_w - kw) / kw)) + 1;
  if (pad_h || pad_w) {
    if ((PH - 1) * kh >= H + pad_h) --PH;
    if ((PW - 1) * kw >= W + pad_w) --PW;
  }
  *ph_out = PH;
  *pw_out = PW;
  vector<double> out;
  for (int n = 0; n < N; ++n)
    for (int c = 0; c < C; ++c)
      for (int ph = 0; ph < PH; ++ph)
        for (int pw = 0; pw < PW; ++pw) {
          int hs = ph * kh - pad_h, ws = pw * kw - pad_w;
          int he = std::min(hs + kh, H + pad_h), we = std::min(ws + kw, W + pad_w);
          const int pool_size = (he - hs) * (we - ws);
          hs = std::max(hs, 0);
          ws = std::max(ws, 0);
          he = std::min(he, H);
          we = std::min(we, W);
          double v = max_pool ? -1e300 : 0;
          for (int h = hs; h < he; ++h)
            for (int w = ws; w < we; ++w) {
              const double e = x.data_at(n, c, h, w);
              v = max_pool ? std::max(v, e) : v + e;
            }
          out.push_back(max_pool ? v : v / pool_size);
        }
  return out;
}

}  // namespace

template <typename Dtype>
class SPPLayerTest : public ::testing::Test {
 protected:
  SPPLayerTest() : bottom_(vector<int>{2, 3, 9, 8}) {
    Caffe::set_random_seed(1701);
    FillDistinct();
    bottom_vec_.push_back(&bottom_);
    top_vec_.push_back(&top_);
  }
  // Values 0.05 apart in shuffled order: no two window elements come within
  // the gradient checker's step of each other, so MAX's argmax is stable.
  void FillDistinct() {
    vector<int> perm(bottom_.count());
    for (size_t i = 0; i < perm.size(); ++i) perm[i] = static_cast<int>(i);
    std::mt19937 rng(1701);
    std::shuffle(perm.begin(), perm.end(), rng);
    for (int i = 0; i < bottom_.count(); ++i)
      bottom_.mutable_cpu_data()[i] =
          Dtype(0.05) * perm[i] - Dtype(0.025) * bottom_.count();
  }
  LayerParameter Param(int height, SPPParameter_PoolMethod pool) {
    LayerParameter p;
    p.set_name("spp");
    p.set_type("SPP");
    p.mutable_spp_param()->set_pyramid_height(height);
    p.mutable_spp_param()->set_pool(pool);
    return p;
  }
  void CheckForward(int height, SPPParameter_PoolMethod pool) {
    SPPLayer<Dtype> layer(Param(height, pool));
    layer.SetUp(bottom_vec_, top_vec_);
    layer.Forward(bottom_vec_, top_vec_);
    const bool max_pool = pool == SPPParameter_PoolMethod_MAX;
    const int N = bottom_.shape(0);
    vector<vector<double> > levels;
    vector<int> dims;
    int total = 0;
    for (int l = 0; l < height; ++l) {
      int ph, pw;
      levels.push_back(ReferenceLevel(bottom_, l, max_pool, &ph, &pw));
      dims.push_back(bottom_.shape(1) * ph * pw);
      total += dims.back();
      if (height == 1) {
        ASSERT_EQ((vector<int>{N, bottom_.shape(1), ph, pw}), top_.shape());
      }
    }
    if (height > 1) {
      ASSERT_EQ((vector<int>{N, total}), top_.shape());
    }
    const double tol = sizeof(Dtype) == 4 ? 1e-4 : 1e-10;
    for (int n = 0; n < N; ++n) {
      int offset = 0;
      for (int l = 0; l < height; ++l) {
        for (int j = 0; j < dims[l]; ++j)
          EXPECT_NEAR(levels[l][n * dims[l] + j],
                      top_.cpu_data()[n * total + offset + j], tol)
              << "level " << l << " item " << n << " value " << j;
        offset += dims[l];
      }
    }
  }
  Blob<Dtype> bottom_, top_;
  vector<Blob<Dtype>*> bottom_vec_, top_vec_;
};

TYPED_TEST_SUITE(SPPLayerTest, TestDtypes);

TYPED_TEST(SPPLayerTest, SetUpShapes) {
  typedef TypeParam Dtype;
  const SPPParameter_PoolMethod MAX = SPPParameter_PoolMethod_MAX;
  {
    SPPLayer<Dtype> layer(this->Param(1, MAX));
    layer.SetUp(this->bottom_vec_, this->top_vec_);
    EXPECT_EQ((vector<int>{2, 3, 1, 1}), this->top_.shape());
  }
  {
    // 9 x 8 at 2 bins: 2 x 2; so 3 * (1 + 4).
    SPPLayer<Dtype> layer(this->Param(2, MAX));
    layer.SetUp(this->bottom_vec_, this->top_vec_);
    EXPECT_EQ((vector<int>{2, 15}), this->top_.shape());
  }
  {
    SPPLayer<Dtype> layer(this->Param(3, MAX));
    layer.SetUp(this->bottom_vec_, this->top_vec_);
    EXPECT_EQ((vector<int>{2, 63}), this->top_.shape());
    EXPECT_GT(layer.InternalBytes(), 0u);
  }
}

TYPED_TEST(SPPLayerTest, ForwardMaxAndAve) {
  for (int height : {1, 2, 3}) {
    this->CheckForward(height, SPPParameter_PoolMethod_MAX);
    this->CheckForward(height, SPPParameter_PoolMethod_AVE);
  }
}

TYPED_TEST(SPPLayerTest, ForwardOddSizes) {
  // 7 x 10 and 13 x 6: the pads and clipped windows differ per axis.
  for (const vector<int>& shape : {vector<int>{1, 2, 7, 10},
                                   vector<int>{2, 1, 13, 6}}) {
    this->bottom_.Reshape(shape);
    this->FillDistinct();
    this->CheckForward(3, SPPParameter_PoolMethod_MAX);
    this->CheckForward(3, SPPParameter_PoolMethod_AVE);
  }
}

TYPED_TEST(SPPLayerTest, ReshapeToNewSize) {
  typedef TypeParam Dtype;
  SPPLayer<Dtype> layer(this->Param(3, SPPParameter_PoolMethod_AVE));
  layer.SetUp(this->bottom_vec_, this->top_vec_);
  layer.Forward(this->bottom_vec_, this->top_vec_);
  this->bottom_.Reshape(vector<int>{3, 3, 12, 11});
  this->FillDistinct();
  layer.Forward(this->bottom_vec_, this->top_vec_);
  int total = 0;
  for (int l = 0; l < 3; ++l) {
    int ph, pw;
    const vector<double> ref =
        ReferenceLevel(this->bottom_, l, false, &ph, &pw);
    const int dim = 3 * ph * pw;
    for (int j = 0; j < dim; ++j)
      EXPECT_NEAR(ref[dim + j],  // item 1
                  this->top_.cpu_data()[this->top_.shape(1) + total + j],
                  sizeof(Dtype) == 4 ? 1e-4 : 1e-10);
    total += dim;
  }
  EXPECT_EQ((vector<int>{3, total}), this->top_.shape());
}

TYPED_TEST(SPPLayerTest, Gradient) {
  typedef TypeParam Dtype;
  for (auto pool : {SPPParameter_PoolMethod_MAX, SPPParameter_PoolMethod_AVE}) {
    for (int height : {1, 3}) {
      SPPLayer<Dtype> layer(this->Param(height, pool));
      GradientChecker<Dtype> checker(1e-2, 1e-3);
      checker.CheckGradientExhaustive(&layer, this->bottom_vec_,
                                      this->top_vec_);
    }
  }
}

TYPED_TEST(SPPLayerTest, StochasticSamplesEvenInTest) {
  typedef TypeParam Dtype;
  // Positive inputs; one level, so each output is one sampled element of its
  // whole plane (Caffe's inner pooling runs in TRAIN phase).
  caffe_rng_uniform<Dtype>(this->bottom_.count(), Dtype(0.1), Dtype(1),
                           this->bottom_.mutable_cpu_data());
  LayerParameter p = this->Param(1, SPPParameter_PoolMethod_STOCHASTIC);
  p.set_phase(TEST);
  SPPLayer<Dtype> layer(p);
  layer.SetUp(this->bottom_vec_, this->top_vec_);
  layer.Forward(this->bottom_vec_, this->top_vec_);
  const int plane = 9 * 8;
  for (int nc = 0; nc < 6; ++nc) {
    const Dtype* x = this->bottom_.cpu_data() + nc * plane;
    const Dtype y = this->top_.cpu_data()[nc];
    EXPECT_TRUE(std::find(x, x + plane, y) != x + plane)
        << "output " << nc << " = " << y << " is not an input element";
  }
  EXPECT_EQ(kReadsNothing, layer.Memory().backward_reads);
  contract_test::CheckBackwardReads<Dtype>(&layer, this->bottom_vec_,
                                           this->top_vec_);
}

TYPED_TEST(SPPLayerTest, BackwardReads) {
  typedef TypeParam Dtype;
  for (auto pool : {SPPParameter_PoolMethod_MAX, SPPParameter_PoolMethod_AVE}) {
    for (int height : {1, 3}) {
      SPPLayer<Dtype> layer(this->Param(height, pool));
      EXPECT_EQ(kReadsNothing, layer.Memory().backward_reads);
      EXPECT_FALSE(layer.Memory().in_place);
      layer.SetUp(this->bottom_vec_, this->top_vec_);
      contract_test::CheckBackwardReads<Dtype>(&layer, this->bottom_vec_,
                                               this->top_vec_);
    }
  }
}

TYPED_TEST(SPPLayerTest, Errors) {
  typedef TypeParam Dtype;
  {
    LayerParameter p = this->Param(2, SPPParameter_PoolMethod_MAX);
    p.mutable_spp_param()->clear_pyramid_height();
    SPPLayer<Dtype> layer(p);
    EXPECT_THROW(layer.SetUp(this->bottom_vec_, this->top_vec_), Error);
  }
  {
    SPPLayer<Dtype> layer(this->Param(0, SPPParameter_PoolMethod_MAX));
    EXPECT_THROW(layer.SetUp(this->bottom_vec_, this->top_vec_), Error);
  }
  {
    Blob<Dtype> three(vector<int>{2, 3, 9});
    vector<Blob<Dtype>*> b(1, &three);
    SPPLayer<Dtype> layer(this->Param(2, SPPParameter_PoolMethod_MAX));
    EXPECT_THROW(layer.SetUp(b, this->top_vec_), Error);
  }
  {
    // Height 5 at 4 bins: kernel 2, pad 2 -- Pooling rejects pad >= kernel
    // (Caffe 1.0 aborts on the same input).  A layer that meets such an
    // input later throws, and still works once the input fits again.
    SPPLayer<Dtype> layer(this->Param(3, SPPParameter_PoolMethod_MAX));
    layer.SetUp(this->bottom_vec_, this->top_vec_);
    this->bottom_.Reshape(vector<int>{2, 3, 5, 8});
    EXPECT_THROW(layer.Forward(this->bottom_vec_, this->top_vec_), Error);
    SPPLayer<Dtype> fresh(this->Param(3, SPPParameter_PoolMethod_MAX));
    EXPECT_THROW(fresh.SetUp(this->bottom_vec_, this->top_vec_), Error);
    this->bottom_.Reshape(vector<int>{2, 3, 9, 8});
    this->FillDistinct();
    layer.Forward(this->bottom_vec_, this->top_vec_);
    EXPECT_EQ((vector<int>{2, 63}), this->top_.shape());
  }
}

}  // namespace caffe
