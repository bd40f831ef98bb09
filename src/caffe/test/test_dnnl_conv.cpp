// Tests for the oneDNN convolution engine: for float it must agree with the
// im2col engine (engine: CAFFE) on forward output, bottom diff and the
// accumulated weight and bias diffs across group / pad / stride / dilation /
// 1x1 / bias / batch configurations; pass a finite-difference gradient check;
// and give bit-identical results run to run.  Without USE_DNNL every test
// says why and skips.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <vector>

#include "caffe/blob.hpp"
#include "caffe/common.hpp"
#include "caffe/layers/conv_layer.hpp"
#include "caffe/test/test_gradient_check_util.hpp"
#include "caffe/util/dnnl_conv.hpp"
#include "caffe/util/math_functions.hpp"

namespace caffe {
namespace {

#define SKIP_WITHOUT_DNNL()                                               \
  do {                                                                    \
    if (!DnnlAvailable()) {                                               \
      GTEST_SKIP() << "built without USE_DNNL (libdnnl-dev not found), "  \
                      "so there is no oneDNN engine to test";             \
    }                                                                     \
  } while (0)

struct ConvConfig {
  const char* name;
  int num, channels, height, width;
  int num_output, kernel_h, kernel_w;
  int stride_h, stride_w, pad_h, pad_w, dilation_h, dilation_w;
  int group;
  bool bias;
};

LayerParameter MakeConvParam(const ConvConfig& c,
                             ConvolutionParameter_Engine engine) {
  LayerParameter p;
  p.set_name(c.name);
  p.set_type("Convolution");
  ConvolutionParameter* cp = p.mutable_convolution_param();
  cp->set_num_output(c.num_output);
  cp->set_kernel_h(c.kernel_h);
  cp->set_kernel_w(c.kernel_w);
  cp->set_stride_h(c.stride_h);
  cp->set_stride_w(c.stride_w);
  cp->set_pad_h(c.pad_h);
  cp->set_pad_w(c.pad_w);
  if (c.dilation_h != 1 || c.dilation_w != 1) {
    cp->add_dilation(c.dilation_h);
    cp->add_dilation(c.dilation_w);
  }
  cp->set_group(c.group);
  cp->set_bias_term(c.bias);
  cp->set_engine(engine);
  cp->mutable_weight_filler()->set_type("gaussian");
  cp->mutable_weight_filler()->set_std(0.3f);
  cp->mutable_bias_filler()->set_type("gaussian");
  return p;
}

void FillGaussian(Blob<float>* b, float std = 1) {
  caffe_rng_gaussian<float>(b->count(), 0.f, std, b->mutable_cpu_data());
}

// |a - b| <= tol * max(|b|, 1) elementwise.
void ExpectClose(const float* a, const float* b, int n, float tol,
                 const char* what, const char* config) {
  int bad = 0;
  for (int i = 0; i < n && bad < 10; ++i) {
    const float scale = std::max(1.f, std::fabs(b[i]));
    if (!(std::fabs(a[i] - b[i]) <= tol * scale)) {
      ADD_FAILURE() << config << ": " << what << "[" << i << "] oneDNN "
                    << a[i] << " vs im2col " << b[i];
      ++bad;
    }
  }
}

// One configuration on both engines: a oneDNN layer and an im2col layer
// with the same weights, over copies of one random bottom.
struct EnginePair {
  Blob<float> bottom_a, bottom_b, top_a, top_b;
  vector<Blob<float>*> bva{&bottom_a}, tva{&top_a};
  vector<Blob<float>*> bvb{&bottom_b}, tvb{&top_b};
  std::unique_ptr<ConvolutionLayer<float>> fast, ref;

  explicit EnginePair(const ConvConfig& c) {
    Caffe::set_random_seed(1701);
    bottom_a.Reshape(vector<int>{c.num, c.channels, c.height, c.width});
    FillGaussian(&bottom_a);
    bottom_b.CopyFrom(bottom_a, false, true);
    fast.reset(new ConvolutionLayer<float>(
        MakeConvParam(c, ConvolutionParameter_Engine_DEFAULT)));
    fast->SetUp(bva, tva);
    LayerParameter ref_param;
    fast->ToProto(&ref_param);
    ref_param.mutable_convolution_param()->set_engine(
        ConvolutionParameter_Engine_CAFFE);
    ref.reset(new ConvolutionLayer<float>(ref_param));
    ref->SetUp(bvb, tvb);
  }
};

// The everything-agrees check for one configuration.
void CompareEngines(const ConvConfig& c) {
  SCOPED_TRACE(c.name);
  EnginePair e(c);
  ASSERT_TRUE(e.fast->UsesDnnl()) << c.name << " should run on oneDNN";
  ASSERT_FALSE(e.ref->UsesDnnl());
  Blob<float>& bottom_a = e.bottom_a;
  Blob<float>& bottom_b = e.bottom_b;
  Blob<float>& top_a = e.top_a;
  Blob<float>& top_b = e.top_b;
  const vector<Blob<float>*>& bva = e.bva;
  const vector<Blob<float>*>& tva = e.tva;
  const vector<Blob<float>*>& bvb = e.bvb;
  const vector<Blob<float>*>& tvb = e.tvb;
  ConvolutionLayer<float>& fast = *e.fast;
  ConvolutionLayer<float>& ref = *e.ref;
  ASSERT_EQ(top_a.shape(), top_b.shape());

  fast.Forward(bva, tva);
  ref.Forward(bvb, tvb);
  ExpectClose(top_a.cpu_data(), top_b.cpu_data(), top_a.count(), 1e-4f,
              "top", c.name);

  // Backward; the parameter diffs start nonzero to check accumulation.
  FillGaussian(&top_a);  // top data is not read by backward
  caffe_rng_gaussian<float>(top_a.count(), 0.f, 1.f, top_a.mutable_cpu_diff());
  caffe_copy(top_a.count(), top_a.cpu_diff(), top_b.mutable_cpu_diff());
  for (size_t i = 0; i < fast.blobs().size(); ++i) {
    Blob<float>* pa = fast.blobs()[i].get();
    Blob<float>* pb = ref.blobs()[i].get();
    caffe_rng_gaussian<float>(pa->count(), 0.f, 1.f, pa->mutable_cpu_diff());
    caffe_copy(pa->count(), pa->cpu_diff(), pb->mutable_cpu_diff());
  }
  fast.Backward(tva, vector<bool>{true}, bva);
  ref.Backward(tvb, vector<bool>{true}, bvb);
  ExpectClose(bottom_a.cpu_diff(), bottom_b.cpu_diff(), bottom_a.count(),
              1e-4f, "bottom diff", c.name);
  ExpectClose(fast.blobs()[0]->cpu_diff(), ref.blobs()[0]->cpu_diff(),
              fast.blobs()[0]->count(), 1e-4f, "weight diff", c.name);
  if (c.bias) {
    ExpectClose(fast.blobs()[1]->cpu_diff(), ref.blobs()[1]->cpu_diff(),
                fast.blobs()[1]->count(), 1e-4f, "bias diff", c.name);
  }
  // The shared workspace was grown to what the layer reported.
  EXPECT_GE(ConvolutionLayer<float>::ColBufferBytes(), fast.WorkspaceBytes());
}

const ConvConfig kConfigs[] = {
    // name           N  C  H  W   O kh kw sh sw ph pw dh dw  g  bias
    {"basic3x3",      3, 4, 7, 6,  5, 3, 3, 1, 1, 0, 0, 1, 1, 1, true},
    {"pad",           3, 4, 7, 6,  5, 3, 3, 1, 1, 1, 1, 1, 1, 1, true},
    {"stride_pad",    3, 3, 9, 8,  4, 3, 3, 2, 2, 1, 1, 1, 1, 1, true},
    {"rect",          1, 3, 8, 7,  4, 3, 2, 2, 1, 1, 0, 1, 1, 1, true},
    {"dilation",      3, 4, 9, 9,  3, 3, 3, 1, 1, 2, 2, 2, 2, 1, true},
    {"dilation_hw",   1, 2, 7, 9,  3, 2, 2, 1, 1, 0, 1, 1, 3, 1, false},
    {"group2",        3, 4, 6, 5,  6, 3, 3, 1, 1, 1, 1, 1, 1, 2, true},
    {"group4_stride", 1, 8, 9, 7,  8, 3, 3, 2, 2, 1, 1, 1, 1, 4, false},
    {"depthwise",     3, 6, 7, 7,  6, 3, 3, 1, 1, 1, 1, 1, 1, 6, true},
    {"1x1",           3, 8, 5, 4, 16, 1, 1, 1, 1, 0, 0, 1, 1, 1, true},
    {"1x1_nobias",    1, 16, 4, 4, 8, 1, 1, 1, 1, 0, 0, 1, 1, 1, false},
    {"1x1_stride2",   3, 8, 7, 7,  4, 1, 1, 2, 2, 0, 0, 1, 1, 1, true},
    {"1x1_group",     1, 8, 3, 3,  4, 1, 1, 1, 1, 0, 0, 1, 1, 2, true},
    {"big_kernel",    1, 3, 19, 19, 8, 11, 11, 4, 4, 0, 0, 1, 1, 1, true},
    {"k5_pad2_g2",    3, 8, 9, 9, 16, 5, 5, 1, 1, 2, 2, 1, 1, 2, true},
    {"wide_channels", 1, 32, 6, 6, 48, 3, 3, 1, 1, 1, 1, 1, 1, 1, true},
    {"nobias_batch1", 1, 4, 6, 6,  4, 3, 3, 1, 1, 1, 1, 1, 1, 1, false},
    {"odd_stride3",   3, 5, 11, 10, 7, 3, 4, 3, 2, 2, 1, 1, 1, 1, true},
    // Blocked layouts in both backward primitives: dy reordered once.
    {"blocked_3x3",   2, 32, 8, 8, 32, 3, 3, 1, 1, 1, 1, 1, 1, 1, false},
};

}  // namespace

TEST(DnnlConvTest, AgreesWithIm2col) {
  SKIP_WITHOUT_DNNL();
  for (const ConvConfig& c : kConfigs) CompareEngines(c);
}

// A ResNet-style 3x3 convolution runs blocked forward and backward, so its
// backward primitives share one reordered copy of dy (and agree with
// im2col: blocked_3x3 in AgreesWithIm2col).
TEST(DnnlConvTest, BackwardSharesTheReorderedDiff) {
  SKIP_WITHOUT_DNNL();
  DnnlConvShape s;
  s.num = 2;
  s.channels = 32;
  s.height = s.width = 8;
  s.num_output = 32;
  s.out_height = s.out_width = 8;
  s.kernel_h = s.kernel_w = 3;
  s.pad_h = s.pad_w = 1;
  s.bias = false;
  const std::shared_ptr<DnnlConv> conv = DnnlConv::Create(s);
  ASSERT_TRUE(conv != nullptr);
  EXPECT_TRUE(conv->SharesDiffDst()) << conv->ImplInfo();
}

// Frozen weights (lr_mult 0 style): backward computes only the bottom's
// gradient, as im2col does, and leaves the parameter diffs alone.
TEST(DnnlConvTest, FrozenWeightsGiveOnlyTheBottomGradient) {
  SKIP_WITHOUT_DNNL();
  const ConvConfig c = {"frozen", 2, 32, 8, 8, 32, 3, 3, 1, 1, 1, 1, 1, 1, 1,
                        true};
  EnginePair e(c);
  ASSERT_TRUE(e.fast->UsesDnnl());
  ConvolutionLayer<float>& fast = *e.fast;
  ConvolutionLayer<float>& ref = *e.ref;
  for (ConvolutionLayer<float>* l : {&fast, &ref}) {
    l->set_param_propagate_down(0, false);
    l->set_param_propagate_down(1, false);
    for (const auto& b : l->blobs()) {
      caffe_set(b->count(), 7.f, b->mutable_cpu_diff());
    }
  }
  fast.Forward(e.bva, e.tva);
  ref.Forward(e.bvb, e.tvb);
  caffe_rng_gaussian<float>(e.top_a.count(), 0.f, 1.f,
                            e.top_a.mutable_cpu_diff());
  caffe_copy(e.top_a.count(), e.top_a.cpu_diff(), e.top_b.mutable_cpu_diff());
  fast.Backward(e.tva, vector<bool>{true}, e.bva);
  ref.Backward(e.tvb, vector<bool>{true}, e.bvb);
  ExpectClose(e.bottom_a.cpu_diff(), e.bottom_b.cpu_diff(),
              e.bottom_a.count(), 1e-4f, "bottom diff", c.name);
  for (const auto& b : fast.blobs()) {
    for (int i = 0; i < b->count(); ++i) ASSERT_EQ(7.f, b->cpu_diff()[i]);
  }
}

TEST(DnnlConvTest, TwoBottomsAndBatchAxes) {
  SKIP_WITHOUT_DNNL();
  // Two bottoms through one layer; and axis = 2 (two batch axes).
  Caffe::set_random_seed(5);
  const ConvConfig c = {"two", 2, 4, 6, 5, 6, 3, 3, 2, 1, 1, 1, 1, 1, 2, true};
  Blob<float> b0(vector<int>{2, 4, 6, 5}), b1(vector<int>{2, 4, 6, 5});
  FillGaussian(&b0);
  FillGaussian(&b1);
  Blob<float> t0, t1, r0, r1;
  vector<Blob<float>*> bottom = {&b0, &b1}, top = {&t0, &t1},
                       rtop = {&r0, &r1};
  ConvolutionLayer<float> fast(
      MakeConvParam(c, ConvolutionParameter_Engine_DEFAULT));
  fast.SetUp(bottom, top);
  ASSERT_TRUE(fast.UsesDnnl());
  LayerParameter rp;
  fast.ToProto(&rp);
  rp.mutable_convolution_param()->set_engine(
      ConvolutionParameter_Engine_CAFFE);
  ConvolutionLayer<float> ref(rp);
  ref.SetUp(bottom, rtop);
  fast.Forward(bottom, top);
  ref.Forward(bottom, rtop);
  ExpectClose(t0.cpu_data(), r0.cpu_data(), t0.count(), 1e-4f, "top0", "two");
  ExpectClose(t1.cpu_data(), r1.cpu_data(), t1.count(), 1e-4f, "top1", "two");

  Blob<float> in5(vector<int>{2, 2, 4, 5, 4});
  FillGaussian(&in5);
  LayerParameter ap = MakeConvParam(c, ConvolutionParameter_Engine_DEFAULT);
  ap.mutable_convolution_param()->set_axis(2);
  Blob<float> ta, tb;
  vector<Blob<float>*> b5 = {&in5}, ta_v = {&ta}, tb_v = {&tb};
  ConvolutionLayer<float> afast(ap);
  afast.SetUp(b5, ta_v);
  ASSERT_TRUE(afast.UsesDnnl());
  LayerParameter arp;
  afast.ToProto(&arp);
  arp.mutable_convolution_param()->set_engine(
      ConvolutionParameter_Engine_CAFFE);
  ConvolutionLayer<float> aref(arp);
  aref.SetUp(b5, tb_v);
  afast.Forward(b5, ta_v);
  aref.Forward(b5, tb_v);
  ASSERT_EQ(ta.shape(), tb.shape());
  ExpectClose(ta.cpu_data(), tb.cpu_data(), ta.count(), 1e-4f, "axis2",
              "axis2");
}

TEST(DnnlConvTest, ReshapeChangesBatch) {
  SKIP_WITHOUT_DNNL();
  // The same layer must follow batch-size changes (cached setups).
  const ConvConfig c = {"reshape", 3, 4, 6, 6, 5, 3, 3, 1, 1, 1, 1, 1, 1,
                        1, true};
  ConvolutionLayer<float> fast(
      MakeConvParam(c, ConvolutionParameter_Engine_DEFAULT));
  Blob<float> bottom(vector<int>{3, 4, 6, 6}), top;
  vector<Blob<float>*> bv = {&bottom}, tv = {&top};
  fast.SetUp(bv, tv);
  LayerParameter rp;
  fast.ToProto(&rp);
  rp.mutable_convolution_param()->set_engine(
      ConvolutionParameter_Engine_CAFFE);
  ConvolutionLayer<float> ref(rp);
  Blob<float> rtop;
  vector<Blob<float>*> rtv = {&rtop};
  ref.SetUp(bv, rtv);
  for (int n : {3, 1, 5, 3, 2, 1}) {
    bottom.Reshape(vector<int>{n, 4, 6 + n % 2, 6});
    FillGaussian(&bottom);
    fast.Forward(bv, tv);
    ASSERT_TRUE(fast.UsesDnnl());
    ref.Forward(bv, rtv);
    ASSERT_EQ(top.shape(), rtop.shape());
    ExpectClose(top.cpu_data(), rtop.cpu_data(), top.count(), 1e-4f,
                "top", "reshape");
  }
}

TEST(DnnlConvTest, GradientCheck) {
  SKIP_WITHOUT_DNNL();
  const ConvConfig configs[] = {
      {"grad_pad_stride", 2, 3, 6, 5, 4, 3, 3, 2, 1, 1, 1, 1, 1, 1, true},
      {"grad_group_dil", 1, 4, 7, 6, 4, 2, 3, 1, 1, 1, 2, 2, 1, 2, true},
      {"grad_1x1", 2, 3, 3, 4, 2, 1, 1, 1, 1, 0, 0, 1, 1, 1, false},
  };
  for (const ConvConfig& c : configs) {
    SCOPED_TRACE(c.name);
    Caffe::set_random_seed(1701);
    Blob<float> bottom(vector<int>{c.num, c.channels, c.height, c.width});
    FillGaussian(&bottom);
    Blob<float> top;
    vector<Blob<float>*> bv = {&bottom}, tv = {&top};
    ConvolutionLayer<float> layer(
        MakeConvParam(c, ConvolutionParameter_Engine_DEFAULT));
    layer.SetUp(bv, tv);
    ASSERT_TRUE(layer.UsesDnnl());
    GradientChecker<float> checker(1e-2f, 1e-3f);
    checker.CheckGradientExhaustive(&layer, bv, tv);
  }
}

TEST(DnnlConvTest, BitIdenticalRuns) {
  SKIP_WITHOUT_DNNL();
  const ConvConfig c = {"repeat", 4, 16, 13, 13, 32, 3, 3, 1, 1, 1, 1, 1, 1,
                        2, true};
  vector<vector<float> > results[2];
  for (int run = 0; run < 2; ++run) {
    Caffe::set_random_seed(77);
    Blob<float> bottom(vector<int>{c.num, c.channels, c.height, c.width});
    FillGaussian(&bottom);
    Blob<float> top;
    vector<Blob<float>*> bv = {&bottom}, tv = {&top};
    ConvolutionLayer<float> layer(
        MakeConvParam(c, ConvolutionParameter_Engine_DEFAULT));
    layer.SetUp(bv, tv);
    ASSERT_TRUE(layer.UsesDnnl());
    layer.Forward(bv, tv);
    caffe_rng_gaussian<float>(top.count(), 0.f, 1.f, top.mutable_cpu_diff());
    for (auto& p : layer.blobs())
      caffe_set(p->count(), 0.f, p->mutable_cpu_diff());
    layer.Backward(tv, vector<bool>{true}, bv);
    results[run].emplace_back(top.cpu_data(), top.cpu_data() + top.count());
    results[run].emplace_back(bottom.cpu_diff(),
                              bottom.cpu_diff() + bottom.count());
    for (auto& p : layer.blobs())
      results[run].emplace_back(p->cpu_diff(), p->cpu_diff() + p->count());
  }
  ASSERT_EQ(results[0].size(), results[1].size());
  for (size_t i = 0; i < results[0].size(); ++i) {
    ASSERT_EQ(results[0][i].size(), results[1][i].size());
    EXPECT_EQ(0, std::memcmp(results[0][i].data(), results[1][i].data(),
                             results[0][i].size() * sizeof(float)))
        << "result " << i << " differs between runs";
  }
}

TEST(DnnlConvTest, FallbackCases) {
  // These must use im2col whether or not oneDNN is built in.
  const ConvConfig c = {"fb", 2, 4, 6, 5, 4, 3, 3, 1, 1, 1, 1, 1, 1, 1, true};
  {
    Blob<float> bottom(vector<int>{2, 4, 6, 5}), top;
    vector<Blob<float>*> bv = {&bottom}, tv = {&top};
    ConvolutionLayer<float> caffe_engine(
        MakeConvParam(c, ConvolutionParameter_Engine_CAFFE));
    caffe_engine.SetUp(bv, tv);
    EXPECT_FALSE(caffe_engine.UsesDnnl());
    LayerParameter p = MakeConvParam(c, ConvolutionParameter_Engine_DEFAULT);
    p.mutable_convolution_param()->set_force_nd_im2col(true);
    ConvolutionLayer<float> nd(p);
    nd.SetUp(bv, tv);
    EXPECT_FALSE(nd.UsesDnnl());
  }
  {
    Blob<double> bottom(vector<int>{2, 4, 6, 5}), top;
    vector<Blob<double>*> bv = {&bottom}, tv = {&top};
    ConvolutionLayer<double> d(
        MakeConvParam(c, ConvolutionParameter_Engine_DEFAULT));
    d.SetUp(bv, tv);
    EXPECT_FALSE(d.UsesDnnl());
  }
  {
    Blob<float> bottom(vector<int>{1, 2, 4, 5, 3}), top;
    vector<Blob<float>*> bv = {&bottom}, tv = {&top};
    LayerParameter p;
    p.set_name("conv3d");
    ConvolutionParameter* cp = p.mutable_convolution_param();
    cp->set_num_output(2);
    cp->add_kernel_size(2);
    ConvolutionLayer<float> d3(p);
    d3.SetUp(bv, tv);
    EXPECT_FALSE(d3.UsesDnnl());
  }
  if (DnnlAvailable()) {
    Blob<float> bottom(vector<int>{2, 4, 6, 5}), top;
    vector<Blob<float>*> bv = {&bottom}, tv = {&top};
    ConvolutionLayer<float> fast(
        MakeConvParam(c, ConvolutionParameter_Engine_DEFAULT));
    fast.SetUp(bv, tv);
    EXPECT_TRUE(fast.UsesDnnl());
  }
}

}  // namespace caffe
