// Tests for PoolingLayer: MAX / AVE / STOCHASTIC against direct loops,
// output-size rules (CEIL / FLOOR, last window inside the image, global),
// gradients, the BackwardReads declaration and parameter errors.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <vector>

#include "caffe/blob.hpp"
#include "caffe/common.hpp"
#include "../layers/max_pool_row.hpp"
#include "../layers/pooling_kernels.hpp"
#include "caffe/layers/pooling_layer.hpp"
#include "caffe/test/test_fill_util.hpp"
#include "caffe/test/test_gradient_check_util.hpp"
#include "caffe/test/test_layer_contract_util.hpp"
#include "caffe/util/math_functions.hpp"

namespace caffe {
namespace {

// Direct pooling over an explicit PH x PW output grid.  AVE divides by the
// number of window positions inside [-pad, size + pad); MAX skips padding.
template <typename Dtype>
void RefPool(const Blob<Dtype>& in, bool max, int kh, int kw, int sh, int sw,
             int ph, int pw, int PH, int PW, vector<Dtype>* out,
             vector<int>* argmax) {
  const int H = in.height(), W = in.width();
  out->clear();
  argmax->clear();
  for (int n = 0; n < in.num(); ++n)
    for (int c = 0; c < in.channels(); ++c)
      for (int oy = 0; oy < PH; ++oy)
        for (int ox = 0; ox < PW; ++ox) {
          Dtype best = -1e30, sum = 0;
          int best_i = -1, count = 0;
          for (int i = 0; i < kh; ++i)
            for (int j = 0; j < kw; ++j) {
              const int y = oy * sh - ph + i, x = ox * sw - pw + j;
              if (y < H + ph && x < W + pw) ++count;
              if (y < 0 || y >= H || x < 0 || x >= W) continue;
              const Dtype v = in.data_at(n, c, y, x);
              sum += v;
              if (v > best) {
                best = v;
                best_i = y * W + x;
              }
            }
          out->push_back(max ? best : sum / count);
          argmax->push_back(best_i);
        }
}

}  // namespace

template <typename Dtype>
class PoolingLayerTest : public ::testing::Test {
 protected:
  PoolingLayerTest()
      : bottom_(new Blob<Dtype>(vector<int>{2, 3, 6, 5})),
        top_(new Blob<Dtype>()), mask_(new Blob<Dtype>()) {
    Caffe::set_random_seed(1701);
    FillGaussian(bottom_.get());
    bottom_vec_ = {bottom_.get()};
    top_vec_ = {top_.get()};
  }

  // The bottom's magnitudes plus `floor`: inputs STOCHASTIC may take.
  void MakeBottomPositive(Dtype floor) {
    Dtype* x = bottom_->mutable_cpu_data();
    for (int i = 0; i < bottom_->count(); ++i) x[i] = std::fabs(x[i]) + floor;
  }

  static LayerParameter Param(PoolingParameter_PoolMethod pool, int kernel,
                              int stride, int pad) {
    LayerParameter p;
    p.set_name("pool");
    PoolingParameter* pp = p.mutable_pooling_param();
    pp->set_pool(pool);
    if (kernel) pp->set_kernel_size(kernel);
    if (stride != 1) pp->set_stride(stride);
    if (pad) pp->set_pad(pad);
    return p;
  }

  // Forward through a layer built from p and compare with RefPool.
  void CheckForward(const LayerParameter& p, int kh, int kw, int sh, int sw,
                    int ph, int pw, int PH, int PW) {
    const bool max =
        p.pooling_param().pool() == PoolingParameter_PoolMethod_MAX;
    if (max) top_vec_.push_back(mask_.get());
    PoolingLayer<Dtype> layer(p);
    layer.SetUp(bottom_vec_, top_vec_);
    layer.Forward(bottom_vec_, top_vec_);
    ASSERT_EQ(top_->shape(), (vector<int>{bottom_->num(), bottom_->channels(),
                                          PH, PW}));
    vector<Dtype> ref;
    vector<int> argmax;
    RefPool(*bottom_, max, kh, kw, sh, sw, ph, pw, PH, PW, &ref, &argmax);
    for (int i = 0; i < top_->count(); ++i) {
      EXPECT_NEAR(ref[i], top_->cpu_data()[i], 1e-5) << i;
      if (max) {
        EXPECT_EQ(argmax[i], mask_->cpu_data()[i]) << i;
      }
    }
  }

  shared_ptr<Blob<Dtype> > bottom_, top_, mask_;
  vector<Blob<Dtype>*> bottom_vec_, top_vec_;
};

TYPED_TEST_SUITE(PoolingLayerTest, TestDtypes);

// A max-pooling case: input h x w, window kh x kw, stride s, padding p.
struct MaxPoolCase {
  int h, w, kh, kw, s, p;
};

TYPED_TEST(PoolingLayerTest, SetupShapesAndDeclarations) {
  typedef TypeParam Dtype;
  PoolingLayer<Dtype> layer(this->Param(PoolingParameter_PoolMethod_MAX, 3,
                                        2, 0));
  layer.SetUp(this->bottom_vec_, this->top_vec_);
  EXPECT_EQ(this->top_->shape(), (vector<int>{2, 3, 3, 2}));
  EXPECT_STREQ(layer.type(), "Pooling");
  EXPECT_EQ(layer.Memory().backward_reads, kReadsNothing);
  EXPECT_FALSE(layer.Memory().in_place);
  // A byte of argmax per output (3x3 windows), packed into ints.
  EXPECT_FALSE(layer.UsesDnnl());
  EXPECT_EQ(layer.InternalBytes(),
            (static_cast<size_t>(this->top_->count()) + 3) / 4 * 4);
  PoolingLayer<Dtype> ave(this->Param(PoolingParameter_PoolMethod_AVE, 3, 2,
                                      1));
  ave.SetUp(this->bottom_vec_, this->top_vec_);
  EXPECT_EQ(this->top_->shape(), (vector<int>{2, 3, 4, 3}));
  EXPECT_EQ(ave.Memory().backward_reads, kReadsNothing);
  EXPECT_EQ(ave.InternalBytes(), 0u);
  LayerParameter st = this->Param(PoolingParameter_PoolMethod_STOCHASTIC, 2,
                                  2, 0);
  PoolingLayer<Dtype> train(st);
  train.SetUp(this->bottom_vec_, this->top_vec_);
  EXPECT_EQ(train.Memory().backward_reads, kReadsNothing);
  EXPECT_EQ(train.InternalBytes(), sizeof(int) * this->top_->count());
  st.set_phase(TEST);
  PoolingLayer<Dtype> test(st);
  test.SetUp(this->bottom_vec_, this->top_vec_);
  EXPECT_EQ(test.Memory().backward_reads, kReadsBottomData);
  EXPECT_EQ(test.InternalBytes(), 0u);
}

// Where no backward will run (Net::set_backward_runs(false): a TEST net
// under mem_param, layers no loss depends on), MAX keeps no argmax,
// computing the same top bit for bit; a mask top still gets its mask.
TYPED_TEST(PoolingLayerTest, MaxKeepsNoMaskWhereNoBackwardRuns) {
  typedef TypeParam Dtype;
  const LayerParameter p =
      this->Param(PoolingParameter_PoolMethod_MAX, 3, 2, 1);
  PoolingLayer<Dtype> training(p);
  training.SetUp(this->bottom_vec_, this->top_vec_);
  training.Forward(this->bottom_vec_, this->top_vec_);
  const vector<Dtype> expected(this->top_->cpu_data(),
                               this->top_->cpu_data() + this->top_->count());
  EXPECT_GT(training.InternalBytes(), 0u);

  Blob<Dtype> top;
  vector<Blob<Dtype>*> tops{&top};
  PoolingLayer<Dtype> forward_only(p);
  forward_only.set_backward_runs(false);
  forward_only.SetUp(this->bottom_vec_, tops);
  forward_only.Forward(this->bottom_vec_, tops);
  EXPECT_EQ(forward_only.InternalBytes(), 0u);
  EXPECT_EQ(forward_only.UsesDnnl(), training.UsesDnnl());
  ASSERT_EQ(top.count(), static_cast<int>(expected.size()));
  EXPECT_EQ(0, memcmp(top.cpu_data(), expected.data(),
                      expected.size() * sizeof(Dtype)));

  Blob<Dtype> with_mask_top, mask_top;
  vector<Blob<Dtype>*> two_tops{&with_mask_top, &mask_top};
  PoolingLayer<Dtype> asked(p);
  asked.set_backward_runs(false);
  asked.SetUp(this->bottom_vec_, two_tops);
  asked.Forward(this->bottom_vec_, two_tops);
  EXPECT_EQ(asked.InternalBytes(), sizeof(int) * mask_top.count());
  EXPECT_EQ(0, memcmp(with_mask_top.cpu_data(), expected.data(),
                      expected.size() * sizeof(Dtype)));
  vector<Dtype> ref;
  vector<int> argmax;
  RefPool(*this->bottom_, true, 3, 3, 2, 2, 1, 1, with_mask_top.height(),
          with_mask_top.width(), &ref, &argmax);
  for (int i = 0; i < mask_top.count(); ++i)
    EXPECT_EQ(argmax[i], mask_top.cpu_data()[i]) << i;
}

// MAX keeps a byte per output (its argmax's offset within the window)
// unless a mask top asks for plane indices; both forms give the same top
// and bottom diff bit for bit, on geometries with ceil rounding, padding,
// Caffe's last-window rule, non-square windows, ties and a window of NaNs
// (no argmax, no gradient).  Windows over kMaxCompactWindow elements keep
// an int.
TYPED_TEST(PoolingLayerTest, CompactArgmaxMatchesPlaneIndex) {
  typedef TypeParam Dtype;
  const MaxPoolCase cases[] = {{55, 55, 3, 3, 2, 0}, {6, 5, 3, 3, 2, 0},
                               {7, 9, 2, 2, 2, 0},   {7, 6, 3, 3, 1, 1},
                               {5, 5, 2, 2, 2, 1},   {6, 5, 3, 2, 2, 1},
                               {13, 13, 5, 5, 1, 2}, {17, 17, 15, 17, 1, 0},
                               {17, 17, 16, 17, 1, 0}};
  for (const MaxPoolCase& g : cases) {
    for (int fill = 0; fill < 3; ++fill) {
      SCOPED_TRACE(::testing::Message() << g.h << "x" << g.w << " k" << g.kh
                                        << "x" << g.kw << " s" << g.s << " p"
                                        << g.p << " fill " << fill);
      Blob<Dtype> bottom(vector<int>{2, 3, g.h, g.w});
      Dtype* x = bottom.mutable_cpu_data();
      if (fill == 0) FillGaussian(&bottom);
      // Few distinct values, so most windows tie.
      if (fill == 1)
        for (int i = 0; i < bottom.count(); ++i) x[i] = (i * 7 % 5) * 0.5 - 1;
      if (fill == 2) {
        FillGaussian(&bottom);
        for (int i = 0; i < g.h * g.w; ++i)
          x[i] = std::numeric_limits<Dtype>::quiet_NaN();
      }
      LayerParameter p;
      p.set_name("pool");
      PoolingParameter* pp = p.mutable_pooling_param();
      pp->set_pool(PoolingParameter_PoolMethod_MAX);
      pp->set_kernel_h(g.kh);
      pp->set_kernel_w(g.kw);
      pp->set_stride(g.s);
      pp->set_pad(g.p);
      Blob<Dtype> top_a, top_b, mask_top;
      vector<Blob<Dtype>*> bottoms{&bottom}, one{&top_a}, two{&top_b, &mask_top};
      PoolingLayer<Dtype> compact(p), indexed(p);
      compact.SetUp(bottoms, one);
      indexed.SetUp(bottoms, two);
      const size_t outputs = top_a.count();
      EXPECT_EQ(compact.InternalBytes(), g.kh * g.kw <= kMaxCompactWindow
                                             ? (outputs + 3) / 4 * 4
                                             : outputs * sizeof(int));
      EXPECT_EQ(indexed.InternalBytes(), outputs * sizeof(int));
      compact.Forward(bottoms, one);
      indexed.Forward(bottoms, two);
      ASSERT_EQ(top_a.shape(), top_b.shape());
      EXPECT_EQ(0, memcmp(top_a.cpu_data(), top_b.cpu_data(),
                          outputs * sizeof(Dtype)));
      FillGaussian(&top_a);
      caffe_copy(top_a.count(), top_a.cpu_data(), top_a.mutable_cpu_diff());
      caffe_copy(top_a.count(), top_a.cpu_data(), top_b.mutable_cpu_diff());
      caffe_set(bottom.count(), Dtype(3), bottom.mutable_cpu_diff());
      compact.Backward(one, vector<bool>{true}, bottoms);
      const vector<Dtype> dx_compact(bottom.cpu_diff(),
                                     bottom.cpu_diff() + bottom.count());
      caffe_set(bottom.count(), Dtype(5), bottom.mutable_cpu_diff());
      indexed.Backward(two, vector<bool>{true}, bottoms);
      EXPECT_EQ(0, memcmp(dx_compact.data(), bottom.cpu_diff(),
                          dx_compact.size() * sizeof(Dtype)));
      // The NaN plane routes no gradient; every other plane routes each
      // output's gradient to one element.
      if (fill == 2) {
        for (int i = 0; i < g.h * g.w; ++i) ASSERT_EQ(dx_compact[i], 0) << i;
      }
    }
  }
}

// The CPU's row body (max_pool_row.hpp: vectors of outputs inside the
// width) gives the GPU's per-output body's outputs and argmaxes bit for
// bit, in both argmax forms and with none, through every copy of the
// CPU's loop: wide and narrow rows, strides 1 to 3, padding, windows
// wider than the image, ties, NaN, the infinities and the lowest finite
// value (which never becomes an argmax).
TYPED_TEST(PoolingLayerTest, RowBodyMatchesOutputBody) {
  typedef TypeParam Dtype;
  const MaxPoolCase cases[] = {{9, 100, 3, 3, 1, 1}, {9, 101, 3, 3, 2, 0},
                               {8, 77, 3, 3, 2, 1},  {7, 70, 5, 5, 3, 2},
                               {5, 14, 3, 3, 1, 1},  {6, 28, 3, 3, 1, 1},
                               {5, 30, 3, 3, 2, 0},  {6, 5, 3, 3, 2, 0},
                               {5, 3, 2, 4, 1, 1},   {4, 2, 3, 3, 1, 2},
                               {12, 40, 2, 7, 1, 0}};
  const Dtype kLowest = std::numeric_limits<Dtype>::lowest();
  const Dtype kInf = std::numeric_limits<Dtype>::infinity();
  const Dtype kNaN = std::numeric_limits<Dtype>::quiet_NaN();
  for (const MaxPoolCase& c : cases) {
    for (int fill = 0; fill < 3; ++fill) {
      SCOPED_TRACE(::testing::Message() << c.h << "x" << c.w << " k" << c.kh
                                        << "x" << c.kw << " s" << c.s << " p"
                                        << c.p << " fill " << fill);
      const int planes = 3;
      const int ph = (c.h + 2 * c.p - c.kh + c.s - 1) / c.s + 1;
      const int pw = (c.w + 2 * c.p - c.kw + c.s - 1) / c.s + 1;
      vector<Dtype> x(static_cast<size_t>(planes) * c.h * c.w);
      for (size_t i = 0; i < x.size(); ++i) {
        // 0: distinct values; 1: few values, most windows tie; 2: ties
        // among NaN, both infinities and the lowest finite value.
        const int r = static_cast<int>((i * 2654435761u) % 97);
        if (fill == 0) x[i] = Dtype(r) - 48;
        if (fill == 1) x[i] = Dtype(r % 3);
        if (fill == 2) {
          const Dtype specials[] = {kNaN, kInf, -kInf, kLowest, Dtype(0)};
          x[i] = r < 85 ? specials[r % 4 == 1 ? 2 : r % 4] : specials[r % 5];
        }
      }
      const PoolGeometry g{c.h, c.w, ph, pw, c.kh, c.kw, c.s, c.s, c.p, c.p};
      const long outputs = static_cast<long>(planes) * ph * pw;
      const long rows = static_cast<long>(planes) * ph;
      vector<Dtype> y_out(outputs, 7);
      vector<int> m_out(outputs, -5);
      vector<uint8_t> b_out(outputs, 1);
      const MaxPoolForward<Dtype> f{x.data(), y_out.data(), m_out.data(), g};
      for (long i = 0; i < outputs; ++i) f(i);
      const MaxPoolForward<Dtype, uint8_t> fb{x.data(), y_out.data(),
                                              b_out.data(), g};
      for (long i = 0; i < outputs; ++i) fb(i);
      // Each copy of the CPU's loop (util/elementwise.hpp) the CPU has.
      for (CpuVector copy :
           {CpuVector::kBaseline, CpuVector::kAvx2, CpuVector::kAvx512}) {
        SetCpuVectorLoops(copy);
        SCOPED_TRACE(::testing::Message()
                     << "loop copy " << static_cast<int>(CpuVectorLoops()));
        vector<Dtype> y_row(outputs, 9), y_bare(outputs, 5);
        vector<int> m_row(outputs, -7);
        vector<uint8_t> b_row(outputs, 2);
        RunRange(MaxPoolForwardRow<Dtype>{{x.data(), y_row.data(),
                                           m_row.data(), g}},
                 0, rows);
        EXPECT_EQ(0,
                  memcmp(y_out.data(), y_row.data(), outputs * sizeof(Dtype)));
        EXPECT_EQ(m_out, m_row);
        RunRange(MaxPoolForwardRow<Dtype, uint8_t>{{x.data(), y_row.data(),
                                                    b_row.data(), g}},
                 0, rows);
        EXPECT_EQ(b_out, b_row);
        RunRange(MaxPoolForwardRow<Dtype, uint8_t>{{x.data(), y_bare.data(),
                                                    nullptr, g}},
                 0, rows);
        EXPECT_EQ(0,
                  memcmp(y_out.data(), y_bare.data(), outputs * sizeof(Dtype)));
      }
      SetCpuVectorLoops(CpuVector::kAvx512);  // back to the CPU's best
      if (fill == 2) {  // the specials did reach the outputs
        int none = 0;
        for (long i = 0; i < outputs; ++i) none += m_out[i] < 0;
        EXPECT_GT(none, 0);
      }
    }
  }
}

TYPED_TEST(PoolingLayerTest, RoundModes) {
  typedef TypeParam Dtype;
  // (6 - 3) / 2 = 1.5: CEIL gives 3 rows, FLOOR 2.
  LayerParameter p = this->Param(PoolingParameter_PoolMethod_MAX, 3, 2, 0);
  PoolingLayer<Dtype> ceil_layer(p);
  ceil_layer.SetUp(this->bottom_vec_, this->top_vec_);
  EXPECT_EQ(this->top_->shape(), (vector<int>{2, 3, 3, 2}));
  p.mutable_pooling_param()->set_round_mode(PoolingParameter_RoundMode_FLOOR);
  this->CheckForward(p, 3, 3, 2, 2, 0, 0, 2, 2);
}

// H = 5, kernel 2, stride 2, pad 1: CEIL would give 4 rows, but the 4th
// window would start at row 5 (in the padding), so there are 3.
TYPED_TEST(PoolingLayerTest, LastWindowStartsInsideImage) {
  this->bottom_->Reshape(vector<int>{1, 2, 5, 5});
  FillGaussian(this->bottom_.get());
  this->CheckForward(this->Param(PoolingParameter_PoolMethod_MAX, 2, 2, 1), 2,
                     2, 2, 2, 1, 1, 3, 3);
}

TYPED_TEST(PoolingLayerTest, MaxForward) {
  this->CheckForward(this->Param(PoolingParameter_PoolMethod_MAX, 3, 2, 0), 3,
                     3, 2, 2, 0, 0, 3, 2);
}

TYPED_TEST(PoolingLayerTest, MaxForwardPadNonSquare) {
  LayerParameter p;
  p.set_name("pool");
  PoolingParameter* pp = p.mutable_pooling_param();
  pp->set_kernel_h(3);
  pp->set_kernel_w(2);
  pp->set_stride_h(2);
  pp->set_stride_w(1);
  pp->set_pad_h(1);
  pp->set_pad_w(1);
  // H: ceil((6 + 2 - 3) / 2) + 1 = 4; W: (5 + 2 - 2) / 1 + 1 = 6.
  this->CheckForward(p, 3, 2, 2, 1, 1, 1, 4, 6);
}

// All-negative input: padding must never win the max.
TYPED_TEST(PoolingLayerTest, MaxPadIgnoresPadding) {
  typedef TypeParam Dtype;
  for (int i = 0; i < this->bottom_->count(); ++i)
    this->bottom_->mutable_cpu_data()[i] =
        -1 - std::fabs(this->bottom_->cpu_data()[i]);
  this->CheckForward(this->Param(PoolingParameter_PoolMethod_MAX, 3, 1, 1), 3,
                     3, 1, 1, 1, 1, 6, 5);
  for (int i = 0; i < this->top_->count(); ++i)
    EXPECT_LT(this->top_->cpu_data()[i], Dtype(-1));
}

TYPED_TEST(PoolingLayerTest, AveForwardPad) {
  this->CheckForward(this->Param(PoolingParameter_PoolMethod_AVE, 3, 2, 1), 3,
                     3, 2, 2, 1, 1, 4, 3);
}

// Windows clipped at H + pad divide by fewer elements.
TYPED_TEST(PoolingLayerTest, AveForwardPadClippedWindow) {
  typedef TypeParam Dtype;
  this->bottom_->Reshape(vector<int>{1, 1, 3, 3});
  caffe_set(9, Dtype(1), this->bottom_->mutable_cpu_data());
  this->CheckForward(this->Param(PoolingParameter_PoolMethod_AVE, 3, 2, 1), 3,
                     3, 2, 2, 1, 1, 2, 2);
  // Top-left window covers rows/cols -1..1: 4 real pixels of 9.
  EXPECT_NEAR(this->top_->cpu_data()[0], 4.0 / 9, 1e-6);
  // Bottom-right covers 1..3, clipped to 1..3 (H + pad = 4): 4 of 9.
  EXPECT_NEAR(this->top_->cpu_data()[3], 4.0 / 9, 1e-6);
}

TYPED_TEST(PoolingLayerTest, GlobalPooling) {
  typedef TypeParam Dtype;
  LayerParameter p = this->Param(PoolingParameter_PoolMethod_AVE, 0, 1, 0);
  p.mutable_pooling_param()->set_global_pooling(true);
  this->CheckForward(p, 6, 5, 1, 1, 0, 0, 1, 1);
  p.mutable_pooling_param()->set_pool(PoolingParameter_PoolMethod_MAX);
  this->CheckForward(p, 6, 5, 1, 1, 0, 0, 1, 1);
  // Follows the input size on reshape.
  this->bottom_->Reshape(vector<int>{1, 3, 4, 7});
  FillGaussian(this->bottom_.get());
  PoolingLayer<Dtype> layer(p);
  layer.SetUp(this->bottom_vec_, this->top_vec_);
  this->bottom_->Reshape(vector<int>{1, 3, 3, 2});
  FillGaussian(this->bottom_.get());
  layer.Forward(this->bottom_vec_, this->top_vec_);
  EXPECT_EQ(this->top_->shape(), (vector<int>{1, 3, 1, 1}));
  for (int c = 0; c < 3; ++c) {
    Dtype m = -1e30;
    for (int i = 0; i < 6; ++i)
      m = std::max(m, this->bottom_->cpu_data()[c * 6 + i]);
    EXPECT_EQ(m, this->top_->cpu_data()[c]);
  }
}

TYPED_TEST(PoolingLayerTest, StochasticTrainPicksWindowElement) {
  typedef TypeParam Dtype;
  this->MakeBottomPositive(Dtype(0.01));
  PoolingLayer<Dtype> layer(
      this->Param(PoolingParameter_PoolMethod_STOCHASTIC, 3, 2, 0));
  layer.SetUp(this->bottom_vec_, this->top_vec_);
  layer.Forward(this->bottom_vec_, this->top_vec_);
  const int H = 6, W = 5;
  for (int plane = 0; plane < 6; ++plane)
    for (int oy = 0; oy < 3; ++oy)
      for (int ox = 0; ox < 2; ++ox) {
        const Dtype v = this->top_->cpu_data()[(plane * 3 + oy) * 2 + ox];
        bool found = false;
        for (int y = oy * 2; y < std::min(oy * 2 + 3, H); ++y)
          for (int x = ox * 2; x < std::min(ox * 2 + 3, W); ++x)
            found |= this->bottom_->cpu_data()[(plane * H + y) * W + x] == v;
        EXPECT_TRUE(found);
      }
  // Backward routes each top gradient to the picked element.
  caffe_set(this->top_->count(), Dtype(1), this->top_->mutable_cpu_diff());
  layer.Backward(this->top_vec_, {true}, this->bottom_vec_);
  Dtype routed = 0;
  for (int i = 0; i < this->bottom_->count(); ++i) {
    const Dtype d = this->bottom_->cpu_diff()[i];
    routed += d;
    if (d != 0) {
      bool in_top = false;
      for (int j = 0; j < this->top_->count(); ++j)
        in_top |= this->top_->cpu_data()[j] == this->bottom_->cpu_data()[i];
      EXPECT_TRUE(in_top);
    }
  }
  EXPECT_EQ(routed, this->top_->count());
}

// Finite differences through training's random choices: the checker seeds
// the generator before every forward, so each one picks the same elements
// (a step this small moves no choice's boundary past its draw here), and
// the gradient is 1 at each picked element.
TYPED_TEST(PoolingLayerTest, GradientStochasticTrain) {
  typedef TypeParam Dtype;
  this->MakeBottomPositive(Dtype(0.1));
  PoolingLayer<Dtype> layer(
      this->Param(PoolingParameter_PoolMethod_STOCHASTIC, 3, 2, 0));
  GradientChecker<Dtype> checker(1e-4, 1e-2);
  checker.CheckGradientExhaustive(&layer, this->bottom_vec_, this->top_vec_);
}

// Picks x with probability x / sum: for [1, 3] the 3 wins about 3/4 of the
// time.
TYPED_TEST(PoolingLayerTest, StochasticTrainFrequencies) {
  typedef TypeParam Dtype;
  this->bottom_->Reshape(vector<int>{1, 1, 1, 2});
  this->bottom_->mutable_cpu_data()[0] = 1;
  this->bottom_->mutable_cpu_data()[1] = 3;
  LayerParameter p = this->Param(PoolingParameter_PoolMethod_STOCHASTIC, 0,
                                 1, 0);
  p.mutable_pooling_param()->set_kernel_h(1);
  p.mutable_pooling_param()->set_kernel_w(2);
  p.mutable_pooling_param()->clear_kernel_size();
  PoolingLayer<Dtype> layer(p);
  layer.SetUp(this->bottom_vec_, this->top_vec_);
  int threes = 0;
  const int trials = 4000;
  for (int t = 0; t < trials; ++t) {
    layer.Forward(this->bottom_vec_, this->top_vec_);
    threes += this->top_->cpu_data()[0] == 3;
  }
  EXPECT_NEAR(threes / static_cast<double>(trials), 0.75, 0.04);
}

TYPED_TEST(PoolingLayerTest, StochasticTestWeightedAverage) {
  typedef TypeParam Dtype;
  this->MakeBottomPositive(Dtype(0.01));
  LayerParameter p = this->Param(PoolingParameter_PoolMethod_STOCHASTIC, 3,
                                 2, 0);
  p.set_phase(TEST);
  PoolingLayer<Dtype> layer(p);
  layer.SetUp(this->bottom_vec_, this->top_vec_);
  layer.Forward(this->bottom_vec_, this->top_vec_);
  const int H = 6, W = 5;
  for (int plane = 0; plane < 6; ++plane)
    for (int oy = 0; oy < 3; ++oy)
      for (int ox = 0; ox < 2; ++ox) {
        Dtype s = 0, q = 0;
        for (int y = oy * 2; y < std::min(oy * 2 + 3, H); ++y)
          for (int x = ox * 2; x < std::min(ox * 2 + 3, W); ++x) {
            const Dtype v = this->bottom_->cpu_data()[(plane * H + y) * W + x];
            s += v;
            q += v * v;
          }
        EXPECT_NEAR(q / s,
                    this->top_->cpu_data()[(plane * 3 + oy) * 2 + ox], 1e-5);
      }
  GradientChecker<Dtype> checker(1e-3, 1e-2);
  checker.CheckGradientExhaustive(&layer, this->bottom_vec_, this->top_vec_);
}

TYPED_TEST(PoolingLayerTest, GradientMax) {
  typedef TypeParam Dtype;
  this->bottom_->Reshape(vector<int>{2, 2, 5, 4});
  FillGaussian(this->bottom_.get());
  this->top_vec_.push_back(this->mask_.get());
  LayerParameter p;
  p.set_name("pool");
  PoolingParameter* pp = p.mutable_pooling_param();
  pp->set_kernel_h(3);
  pp->set_kernel_w(2);
  pp->set_stride(2);
  pp->set_pad(1);
  PoolingLayer<Dtype> layer(p);
  GradientChecker<Dtype> checker(1e-4, 1e-2);
  // Only the pooled output (top 0) is differentiable.
  layer.SetUp(this->bottom_vec_, this->top_vec_);
  checker.CheckGradientSingle(&layer, this->bottom_vec_, this->top_vec_, 0, 0,
                              -1);
}

TYPED_TEST(PoolingLayerTest, GradientAvePad) {
  typedef TypeParam Dtype;
  this->bottom_->Reshape(vector<int>{2, 2, 5, 4});
  FillGaussian(this->bottom_.get());
  PoolingLayer<Dtype> layer(
      this->Param(PoolingParameter_PoolMethod_AVE, 3, 2, 1));
  GradientChecker<Dtype> checker(1e-2, 1e-2);
  checker.CheckGradientExhaustive(&layer, this->bottom_vec_, this->top_vec_);
}

TYPED_TEST(PoolingLayerTest, GradientGlobalAve) {
  typedef TypeParam Dtype;
  this->bottom_->Reshape(vector<int>{2, 2, 3, 4});
  FillGaussian(this->bottom_.get());
  LayerParameter p = this->Param(PoolingParameter_PoolMethod_AVE, 0, 1, 0);
  p.mutable_pooling_param()->set_global_pooling(true);
  PoolingLayer<Dtype> layer(p);
  GradientChecker<Dtype> checker(1e-2, 1e-2);
  checker.CheckGradientExhaustive(&layer, this->bottom_vec_, this->top_vec_);
}

TYPED_TEST(PoolingLayerTest, BackwardReadsDeclaration) {
  typedef TypeParam Dtype;
  this->MakeBottomPositive(Dtype(0.01));
  {
    PoolingLayer<Dtype> layer(
        this->Param(PoolingParameter_PoolMethod_MAX, 3, 2, 1));
    vector<Blob<Dtype>*> tops = {this->top_.get(), this->mask_.get()};
    layer.SetUp(this->bottom_vec_, tops);
    contract_test::CheckBackwardReads<Dtype>(&layer, this->bottom_vec_, tops);
  }
  {
    PoolingLayer<Dtype> layer(
        this->Param(PoolingParameter_PoolMethod_AVE, 3, 2, 1));
    layer.SetUp(this->bottom_vec_, this->top_vec_);
    contract_test::CheckBackwardReads<Dtype>(&layer,
        this->bottom_vec_, this->top_vec_);
  }
  for (Phase phase : {TRAIN, TEST}) {
    LayerParameter p =
        this->Param(PoolingParameter_PoolMethod_STOCHASTIC, 3, 2, 0);
    p.set_phase(phase);
    PoolingLayer<Dtype> layer(p);
    layer.SetUp(this->bottom_vec_, this->top_vec_);
    contract_test::CheckBackwardReads<Dtype>(&layer,
        this->bottom_vec_, this->top_vec_);
  }
}

TYPED_TEST(PoolingLayerTest, BadParamsThrow) {
  typedef TypeParam Dtype;
  auto fails = [&](const LayerParameter& p, vector<Blob<Dtype>*> tops) {
    PoolingLayer<Dtype> layer(p);
    EXPECT_THROW(layer.SetUp(this->bottom_vec_, tops), caffe::Error)
        << p.DebugString();
  };
  const vector<Blob<Dtype>*> one = this->top_vec_;
  const vector<Blob<Dtype>*> two = {this->top_.get(), this->mask_.get()};
  LayerParameter p = this->Param(PoolingParameter_PoolMethod_MAX, 3, 1, 0);
  p.mutable_pooling_param()->set_kernel_h(3);  // both forms
  p.mutable_pooling_param()->set_kernel_w(3);
  fails(p, one);
  p = this->Param(PoolingParameter_PoolMethod_MAX, 0, 1, 0);  // no kernel
  fails(p, one);
  p = this->Param(PoolingParameter_PoolMethod_MAX, 0, 1, 0);
  p.mutable_pooling_param()->set_kernel_h(3);  // kernel_w missing
  fails(p, one);
  p = this->Param(PoolingParameter_PoolMethod_MAX, 3, 1, 0);
  p.mutable_pooling_param()->set_global_pooling(true);  // global + kernel
  fails(p, one);
  p = this->Param(PoolingParameter_PoolMethod_AVE, 0, 2, 0);
  p.mutable_pooling_param()->set_global_pooling(true);  // global + stride
  fails(p, one);
  fails(this->Param(PoolingParameter_PoolMethod_MAX, 3, 1, 3), one);  // pad
  fails(this->Param(PoolingParameter_PoolMethod_STOCHASTIC, 3, 1, 1), one);
  fails(this->Param(PoolingParameter_PoolMethod_AVE, 3, 1, 0), two);  // mask
  fails(this->Param(PoolingParameter_PoolMethod_MAX, 9, 1, 0), one);  // big
  p = this->Param(PoolingParameter_PoolMethod_MAX, 3, 1, 0);
  p.mutable_pooling_param()->set_pad_h(1);  // pad_w missing
  fails(p, one);
  this->bottom_->Reshape(vector<int>{2, 3, 6});  // 3 axes
  fails(this->Param(PoolingParameter_PoolMethod_MAX, 2, 1, 0), one);
}

}  // namespace caffe
