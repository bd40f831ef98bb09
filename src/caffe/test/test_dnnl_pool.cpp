// Tests for the oneDNN pooling engine (AVE): for float it must match
// Caffe's own loops (engine: CAFFE) on output and bottom diff, including
// Caffe's ceil rounding and padding; fall back where oneDNN cannot match
// (windows clipped at H + pad, FLOOR rounding that leaves rows unused,
// double) and for MAX, the mask top and STOCHASTIC, which run the layer's
// bodies; pass a gradient check; and be bit-identical run to run.  Without
// USE_DNNL the oneDNN tests say why and skip.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "caffe/blob.hpp"
#include "caffe/common.hpp"
#include "caffe/layers/pooling_layer.hpp"
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

struct PoolConfig {
  const char* name;
  int num, channels, height, width;
  bool max;
  int kernel_h, kernel_w, stride_h, stride_w, pad_h, pad_w;
  bool floor;       // round_mode FLOOR (default CEIL)
  bool global;      // global_pooling (kernel/stride/pad ignored)
  bool expect_dnnl;
};

LayerParameter MakePoolParam(const PoolConfig& c,
                             PoolingParameter_Engine engine) {
  LayerParameter p;
  p.set_name(c.name);
  p.set_type("Pooling");
  PoolingParameter* pp = p.mutable_pooling_param();
  pp->set_pool(c.max ? PoolingParameter_PoolMethod_MAX
                     : PoolingParameter_PoolMethod_AVE);
  if (c.global) {
    pp->set_global_pooling(true);
  } else {
    pp->set_kernel_h(c.kernel_h);
    pp->set_kernel_w(c.kernel_w);
    pp->set_stride_h(c.stride_h);
    pp->set_stride_w(c.stride_w);
    pp->set_pad_h(c.pad_h);
    pp->set_pad_w(c.pad_w);
  }
  if (c.floor) pp->set_round_mode(PoolingParameter_RoundMode_FLOOR);
  pp->set_engine(engine);
  return p;
}

void ExpectClose(const float* a, const float* b, int n, float tol,
                 const char* what, const char* config) {
  int bad = 0;
  for (int i = 0; i < n && bad < 10; ++i) {
    const float scale = std::max(1.f, std::fabs(b[i]));
    if (!(std::fabs(a[i] - b[i]) <= tol * scale)) {
      ADD_FAILURE() << config << ": " << what << "[" << i << "] oneDNN "
                    << a[i] << " vs Caffe " << b[i];
      ++bad;
    }
  }
}

// Runs both engines on the same Gaussian input.
void ComparePool(const PoolConfig& c) {
  SCOPED_TRACE(c.name);
  Caffe::set_random_seed(1701);
  Blob<float> bottom_a(vector<int>{c.num, c.channels, c.height, c.width});
  caffe_rng_gaussian<float>(bottom_a.count(), 0.f, 1.f,
                            bottom_a.mutable_cpu_data());
  Blob<float> bottom_b;
  bottom_b.CopyFrom(bottom_a, false, true);
  Blob<float> top_a, top_b;
  vector<Blob<float>*> bva = {&bottom_a}, tva = {&top_a};
  vector<Blob<float>*> bvb = {&bottom_b}, tvb = {&top_b};
  PoolingLayer<float> fast(MakePoolParam(c, PoolingParameter_Engine_DEFAULT));
  PoolingLayer<float> ref(MakePoolParam(c, PoolingParameter_Engine_CAFFE));
  fast.SetUp(bva, tva);
  ref.SetUp(bvb, tvb);
  EXPECT_FALSE(ref.UsesDnnl());
  EXPECT_EQ(fast.UsesDnnl(), c.expect_dnnl) << c.name;
  ASSERT_EQ(top_a.shape(), top_b.shape());
  EXPECT_EQ(fast.InternalBytes(), 0u) << c.name;  // AVE keeps nothing
  fast.Forward(bva, tva);
  ref.Forward(bvb, tvb);
  ExpectClose(top_a.cpu_data(), top_b.cpu_data(), top_a.count(), 1e-6f,
              "top", c.name);
  caffe_rng_gaussian<float>(top_a.count(), 0.f, 1.f, top_a.mutable_cpu_diff());
  caffe_copy(top_a.count(), top_a.cpu_diff(), top_b.mutable_cpu_diff());
  // Stale values in bottom diff must be overwritten.
  caffe_set(bottom_a.count(), 3.f, bottom_a.mutable_cpu_diff());
  fast.Backward(tva, vector<bool>{true}, bva);
  ref.Backward(tvb, vector<bool>{true}, bvb);
  ExpectClose(bottom_a.cpu_diff(), bottom_b.cpu_diff(), bottom_a.count(),
              1e-5f, "bottom diff", c.name);
}

const PoolConfig kPoolConfigs[] = {
    // name              N  C  H   W   max  kh kw sh sw ph pw floor global dnnl
    {"ave_nopad_ceil",   2, 3, 6, 5,   false, 3, 3, 2, 2, 0, 0, false, false, true},
    // FLOOR leaving rows unused would need negative padding: Caffe's loops.
    {"ave_nopad_floor",  2, 3, 6, 5,   false, 3, 3, 2, 2, 0, 0, true, false, false},
    {"ave_7x7_s1",       2, 8, 7, 7,   false, 7, 7, 1, 1, 0, 0, false, false, true},
    {"ave_5x5_s3",       2, 8, 14, 14, false, 5, 5, 3, 3, 0, 0, false, false, true},
    {"ave_global",       2, 3, 6, 5,   false, 0, 0, 1, 1, 0, 0, false, true, true},
    // Windows inside [-pad, H + pad): divisor kh * kw.
    {"ave_pad_inside",   2, 3, 7, 7,   false, 3, 3, 2, 2, 1, 1, false, false, true},
    {"ave_pad_s1",       2, 3, 6, 5,   false, 3, 3, 1, 1, 1, 1, false, false, true},
    // The last window ends exactly at H + pad: still kh * kw.
    {"ave_pad_edge_3x3", 1, 1, 3, 3,   false, 3, 3, 2, 2, 1, 1, false, false, true},
    // Windows clipped at H + pad: only Caffe's loops divide like Caffe.
    {"ave_pad_clipped",  2, 3, 6, 5,   false, 3, 3, 2, 2, 1, 1, false, false, false},
    {"ave_pad_clip_w",   1, 2, 7, 6,   false, 3, 3, 2, 2, 1, 1, false, false, false},
};

}  // namespace

TEST(DnnlPoolTest, MatchesCaffeLoops) {
  SKIP_WITHOUT_DNNL();
  for (const PoolConfig& c : kPoolConfigs) ComparePool(c);
}

TEST(DnnlPoolTest, FallbackCases) {
  const PoolConfig c = {"fb", 2, 3, 6, 5, true, 3, 3, 2, 2, 0, 0, false,
                        false, true};
  Blob<float> bottom(vector<int>{2, 3, 6, 5}), top, mask;
  caffe_rng_gaussian<float>(bottom.count(), 0.f, 1.f,
                            bottom.mutable_cpu_data());
  vector<Blob<float>*> bv = {&bottom}, tv = {&top};
  // The mask top needs Caffe's plane indices.
  vector<Blob<float>*> tv2 = {&top, &mask};
  PoolingLayer<float> with_mask(
      MakePoolParam(c, PoolingParameter_Engine_DEFAULT));
  with_mask.SetUp(bv, tv2);
  EXPECT_FALSE(with_mask.UsesDnnl());
  LayerParameter sp = MakePoolParam(c, PoolingParameter_Engine_DEFAULT);
  sp.mutable_pooling_param()->set_pool(PoolingParameter_PoolMethod_STOCHASTIC);
  PoolingLayer<float> stochastic(sp);
  stochastic.SetUp(bv, tv);
  EXPECT_FALSE(stochastic.UsesDnnl());
  PoolingLayer<float> caffe_engine(
      MakePoolParam(c, PoolingParameter_Engine_CAFFE));
  caffe_engine.SetUp(bv, tv);
  EXPECT_FALSE(caffe_engine.UsesDnnl());
  Blob<double> dbottom(vector<int>{2, 3, 6, 5}), dtop;
  vector<Blob<double>*> dbv = {&dbottom}, dtv = {&dtop};
  PoolingLayer<double> d(MakePoolParam(c, PoolingParameter_Engine_DEFAULT));
  d.SetUp(dbv, dtv);
  EXPECT_FALSE(d.UsesDnnl());
  // MAX runs the bodies whatever the engine; AVE takes oneDNN.
  PoolingLayer<float> max(MakePoolParam(c, PoolingParameter_Engine_DEFAULT));
  max.SetUp(bv, tv);
  EXPECT_FALSE(max.UsesDnnl());
  PoolConfig a = c;
  a.max = false;
  PoolingLayer<float> fast(MakePoolParam(a, PoolingParameter_Engine_DEFAULT));
  fast.SetUp(bv, tv);
  EXPECT_EQ(fast.UsesDnnl(), DnnlAvailable());
}

TEST(DnnlPoolTest, ReshapeFollowsBatch) {
  SKIP_WITHOUT_DNNL();
  const PoolConfig c = {"reshape", 2, 3, 9, 9, false, 3, 3, 2, 2, 0, 0, false,
                        false, true};
  PoolingLayer<float> fast(MakePoolParam(c, PoolingParameter_Engine_DEFAULT));
  PoolingLayer<float> ref(MakePoolParam(c, PoolingParameter_Engine_CAFFE));
  Blob<float> bottom(vector<int>{2, 3, 9, 9}), top, rtop;
  vector<Blob<float>*> bv = {&bottom}, tv = {&top}, rtv = {&rtop};
  fast.SetUp(bv, tv);
  ref.SetUp(bv, rtv);
  for (int n : {2, 1, 4, 2}) {
    bottom.Reshape(vector<int>{n, 3, 9 + n % 2, 9});
    caffe_rng_gaussian<float>(bottom.count(), 0.f, 1.f,
                              bottom.mutable_cpu_data());
    fast.Forward(bv, tv);
    ref.Forward(bv, rtv);
    EXPECT_TRUE(fast.UsesDnnl());
    ASSERT_EQ(top.shape(), rtop.shape());
    ExpectClose(top.cpu_data(), rtop.cpu_data(), top.count(), 1e-6f, "top",
                "reshape");
  }
}

TEST(DnnlPoolTest, GradientCheck) {
  SKIP_WITHOUT_DNNL();
  const PoolConfig configs[] = {
      {"grad_ave", 2, 2, 6, 5, false, 3, 3, 1, 1, 1, 1, false, false, true},
  };
  for (const PoolConfig& c : configs) {
    SCOPED_TRACE(c.name);
    Caffe::set_random_seed(1701);
    Blob<float> bottom(vector<int>{c.num, c.channels, c.height, c.width});
    caffe_rng_gaussian<float>(bottom.count(), 0.f, 1.f,
                              bottom.mutable_cpu_data());
    Blob<float> top;
    vector<Blob<float>*> bv = {&bottom}, tv = {&top};
    PoolingLayer<float> layer(
        MakePoolParam(c, PoolingParameter_Engine_DEFAULT));
    layer.SetUp(bv, tv);
    ASSERT_TRUE(layer.UsesDnnl());
    GradientChecker<float> checker(1e-4f, 1e-2f);
    checker.CheckGradientExhaustive(&layer, bv, tv);
  }
}

TEST(DnnlPoolTest, BitIdenticalRuns) {
  SKIP_WITHOUT_DNNL();
  const PoolConfig c = {"repeat", 4, 16, 28, 28, false, 3, 3, 2, 2, 0, 0,
                        false, false, true};
  vector<vector<float> > results[2];
  for (int run = 0; run < 2; ++run) {
    Caffe::set_random_seed(3);
    Blob<float> bottom(vector<int>{c.num, c.channels, c.height, c.width});
    caffe_rng_gaussian<float>(bottom.count(), 0.f, 1.f,
                              bottom.mutable_cpu_data());
    Blob<float> top;
    vector<Blob<float>*> bv = {&bottom}, tv = {&top};
    PoolingLayer<float> layer(
        MakePoolParam(c, PoolingParameter_Engine_DEFAULT));
    layer.SetUp(bv, tv);
    ASSERT_TRUE(layer.UsesDnnl());
    layer.Forward(bv, tv);
    caffe_rng_gaussian<float>(top.count(), 0.f, 1.f, top.mutable_cpu_diff());
    layer.Backward(tv, vector<bool>{true}, bv);
    results[run].emplace_back(top.cpu_data(), top.cpu_data() + top.count());
    results[run].emplace_back(bottom.cpu_diff(),
                              bottom.cpu_diff() + bottom.count());
  }
  for (size_t i = 0; i < results[0].size(); ++i) {
    EXPECT_EQ(0, std::memcmp(results[0][i].data(), results[1][i].data(),
                             results[0][i].size() * sizeof(float)))
        << "result " << i << " differs between runs";
  }
}

}  // namespace caffe
