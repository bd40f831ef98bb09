// Tests for LSTMLayer: forward values against an unrolled loop written
// here, gradients by finite differences for x, x_static and the weights,
// sequence resets through cont, expose_hidden round trips (h and c), the
// BackwardReads declaration, and shape errors.  RecurrentLayer's machinery
// is covered in more depth by test_rnn_layer.cpp.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <vector>

#include "caffe/blob.hpp"
#include "caffe/common.hpp"
#include "caffe/layers/lstm_layer.hpp"
#include "caffe/test/test_gradient_check_util.hpp"
#include "caffe/test/test_layer_contract_util.hpp"
#include "caffe/test/test_recurrent_util.hpp"

namespace caffe {

using contract_test::CheckBackwardReads;
using recurrent_test::FillFixed;
using recurrent_test::MatVec;
using recurrent_test::Row;

namespace {

double Sigmoid(double v) { return 1 / (1 + std::exp(-v)); }

// The LSTM written as a loop.  blobs: W_xc, b_c, [W_xc_static], W_hc.  h and
// c are the initial state (N x H each) on entry and the final one on exit.
template <typename Dtype>
vector<double> ReferenceLSTM(const vector<shared_ptr<Blob<Dtype> > >& blobs,
                             const Blob<Dtype>& x, const Blob<Dtype>& cont,
                             const Blob<Dtype>* x_static,
                             vector<vector<double> >* h,
                             vector<vector<double> >* c) {
  const int T = x.shape(0), N = x.shape(1), K = x.count(2);
  const int H = blobs[1]->count() / 4;
  const Blob<Dtype>& W_hc = *blobs[x_static ? 3 : 2];
  vector<double> out(T * N * H);
  for (int t = 0; t < T; ++t) {
    for (int n = 0; n < N; ++n) {
      const double cont_tn = cont.cpu_data()[t * N + n];
      vector<double> h_prev = (*h)[n];
      for (double& v : h_prev) v *= cont_tn;
      vector<double> gates = MatVec(W_hc, h_prev);
      const vector<double> wx = MatVec(*blobs[0], Row(x, (t * N + n) * K, K));
      vector<double> ws(4 * H, 0.0);
      if (x_static) {
        const int Ks = x_static->count(1);
        ws = MatVec(*blobs[2], Row(*x_static, n * Ks, Ks));
      }
      for (int j = 0; j < 4 * H; ++j)
        gates[j] += wx[j] + blobs[1]->cpu_data()[j] + ws[j];
      for (int d = 0; d < H; ++d) {
        const double i = Sigmoid(gates[d]);
        const double f = cont_tn * Sigmoid(gates[H + d]);
        const double o = Sigmoid(gates[2 * H + d]);
        const double g = std::tanh(gates[3 * H + d]);
        (*c)[n][d] = f * (*c)[n][d] + i * g;
        (*h)[n][d] = o * std::tanh((*c)[n][d]);
        out[(t * N + n) * H + d] = (*h)[n][d];
      }
    }
  }
  return out;
}

}  // namespace

template <typename Dtype>
class LSTMLayerTest : public ::testing::Test {
 public:
  static const int kT = 3, kN = 2, kK = 3, kH = 2, kKs = 2;
  LSTMLayerTest()
      : x_(vector<int>{kT, kN, kK}),
        cont_(vector<int>{kT, kN}),
        x_static_(vector<int>{kN, kKs}),
        h0_(vector<int>{1, kN, kH}),
        c0_(vector<int>{1, kN, kH}) {
    Caffe::set_random_seed(1701);
    for (Blob<Dtype>* b : {&x_, &x_static_, &h0_, &c0_})
      caffe_rng_uniform<Dtype>(b->count(), Dtype(-1), Dtype(1),
                               b->mutable_cpu_data());
    // Every stream starts at t = 0; stream 0 starts again at t = 1.
    for (int i = 0; i < cont_.count(); ++i)
      cont_.mutable_cpu_data()[i] = i < kN ? 0 : 1;
    cont_.mutable_cpu_data()[1 * kN + 0] = 0;
    bottom_ = {&x_, &cont_};
    top_ = {&top_h_};
  }
  LayerParameter Param(bool expose_hidden = false) const {
    return recurrent_test::RecurrentParam("LSTM", "lstm", kH, expose_hidden);
  }
  void FixWeights(Layer<Dtype>* layer) {
    for (size_t k = 0; k < layer->blobs().size(); ++k)
      FillFixed(layer->blobs()[k].get(), static_cast<int>(k));
  }
  void ExpectNear(const vector<double>& expected, const Blob<Dtype>& actual) {
    const double tol = sizeof(Dtype) == 4 ? 1e-5 : 1e-12;
    ASSERT_EQ(expected.size(), static_cast<size_t>(actual.count()));
    for (size_t i = 0; i < expected.size(); ++i)
      EXPECT_NEAR(expected[i], actual.cpu_data()[i], tol) << i;
  }
  vector<vector<double> > State(const Blob<Dtype>* b) const {
    vector<vector<double> > s(kN, vector<double>(kH, 0.0));
    if (b)
      for (int n = 0; n < kN; ++n) s[n] = Row(*b, n * kH, kH);
    return s;
  }
  static vector<double> Flat(const vector<vector<double> >& s) {
    vector<double> out;
    for (auto& row : s) out.insert(out.end(), row.begin(), row.end());
    return out;
  }
  Blob<Dtype> x_, cont_, x_static_, h0_, c0_, top_h_, top_hT_, top_cT_;
  vector<Blob<Dtype>*> bottom_, top_;
};

TYPED_TEST_SUITE(LSTMLayerTest, TestDtypes);

TYPED_TEST(LSTMLayerTest, SetUp) {
  typedef TypeParam Dtype;
  LSTMLayer<Dtype> layer(this->Param());
  layer.SetUp(this->bottom_, this->top_);
  EXPECT_EQ((vector<int>{3, 2, 2}), this->top_h_.shape());
  // Caffe's order: W_xc, b_c, W_hc.
  const vector<vector<int> > shapes{{8, 3}, {8}, {8, 2}};
  ASSERT_EQ(shapes.size(), layer.blobs().size());
  for (size_t k = 0; k < shapes.size(); ++k)
    EXPECT_EQ(shapes[k], layer.blobs()[k]->shape()) << k;
  EXPECT_GT(layer.InternalBytes(), 0u);

  LSTMLayer<Dtype> with_static(this->Param());
  vector<Blob<Dtype>*> bottom{&this->x_, &this->cont_, &this->x_static_};
  with_static.SetUp(bottom, this->top_);
  const vector<vector<int> > static_shapes{{8, 3}, {8}, {8, 2}, {8, 2}};
  ASSERT_EQ(static_shapes.size(), with_static.blobs().size());
  for (size_t k = 0; k < static_shapes.size(); ++k)
    EXPECT_EQ(static_shapes[k], with_static.blobs()[k]->shape()) << k;
}

TYPED_TEST(LSTMLayerTest, Forward) {
  typedef TypeParam Dtype;
  LSTMLayer<Dtype> layer(this->Param());
  layer.SetUp(this->bottom_, this->top_);
  this->FixWeights(&layer);
  layer.Forward(this->bottom_, this->top_);
  auto h = this->State(nullptr), c = this->State(nullptr);
  this->ExpectNear(ReferenceLSTM(layer.blobs(), this->x_, this->cont_,
                                 static_cast<Blob<Dtype>*>(nullptr), &h, &c),
                   this->top_h_);
  // The carried state is cut by cont = 0 at t = 0: same result again.
  vector<Dtype> first(this->top_h_.cpu_data(),
                      this->top_h_.cpu_data() + this->top_h_.count());
  layer.Forward(this->bottom_, this->top_);
  for (int i = 0; i < this->top_h_.count(); ++i)
    EXPECT_EQ(first[i], this->top_h_.cpu_data()[i]);
}

TYPED_TEST(LSTMLayerTest, ForwardStaticInput) {
  typedef TypeParam Dtype;
  LSTMLayer<Dtype> layer(this->Param());
  vector<Blob<Dtype>*> bottom{&this->x_, &this->cont_, &this->x_static_};
  layer.SetUp(bottom, this->top_);
  this->FixWeights(&layer);
  layer.Forward(bottom, this->top_);
  auto h = this->State(nullptr), c = this->State(nullptr);
  this->ExpectNear(ReferenceLSTM(layer.blobs(), this->x_, this->cont_,
                                 &this->x_static_, &h, &c),
                   this->top_h_);
}

TYPED_TEST(LSTMLayerTest, StateCarriesAcrossCalls) {
  typedef TypeParam Dtype;
  LSTMLayer<Dtype> layer(this->Param());
  layer.SetUp(this->bottom_, this->top_);
  this->FixWeights(&layer);
  layer.Forward(this->bottom_, this->top_);
  auto h = this->State(nullptr), c = this->State(nullptr);
  ReferenceLSTM(layer.blobs(), this->x_, this->cont_,
                static_cast<Blob<Dtype>*>(nullptr), &h, &c);
  // Continue every sequence: both h_T and c_T are carried over.
  caffe_set(this->cont_.count(), Dtype(1), this->cont_.mutable_cpu_data());
  layer.Forward(this->bottom_, this->top_);
  this->ExpectNear(ReferenceLSTM(layer.blobs(), this->x_, this->cont_,
                                 static_cast<Blob<Dtype>*>(nullptr), &h, &c),
                   this->top_h_);
}

TYPED_TEST(LSTMLayerTest, ExposeHiddenRoundTrip) {
  typedef TypeParam Dtype;
  const int N = 2, K = 3, H = 2;
  caffe_set(this->cont_.count(), Dtype(1), this->cont_.mutable_cpu_data());
  LSTMLayer<Dtype> layer(this->Param(true));
  vector<Blob<Dtype>*> bottom{&this->x_, &this->cont_, &this->h0_,
                              &this->c0_};
  vector<Blob<Dtype>*> top{&this->top_h_, &this->top_hT_, &this->top_cT_};
  layer.SetUp(bottom, top);
  this->FixWeights(&layer);
  layer.Forward(bottom, top);
  auto h = this->State(&this->h0_), c = this->State(&this->c0_);
  this->ExpectNear(ReferenceLSTM(layer.blobs(), this->x_, this->cont_,
                                 static_cast<Blob<Dtype>*>(nullptr), &h, &c),
                   this->top_h_);
  this->ExpectNear(this->Flat(h), this->top_hT_);
  this->ExpectNear(this->Flat(c), this->top_cT_);

  // T = 2 then T = 1 (a separate layer with the same weights), feeding the
  // returned states back, gives the same outputs and final state.
  Blob<Dtype> xa(vector<int>{2, N, K}), ca(vector<int>{2, N});
  Blob<Dtype> xb(vector<int>{1, N, K}), cb(vector<int>{1, N});
  Blob<Dtype> oa, ha, cca, ob, hb, ccb;
  caffe_copy(2 * N * K, this->x_.cpu_data(), xa.mutable_cpu_data());
  caffe_copy(N * K, this->x_.cpu_data() + 2 * N * K, xb.mutable_cpu_data());
  caffe_set(ca.count(), Dtype(1), ca.mutable_cpu_data());
  caffe_set(cb.count(), Dtype(1), cb.mutable_cpu_data());
  LSTMLayer<Dtype> first(this->Param(true)), second(this->Param(true));
  vector<Blob<Dtype>*> ba{&xa, &ca, &this->h0_, &this->c0_};
  vector<Blob<Dtype>*> ta{&oa, &ha, &cca};
  vector<Blob<Dtype>*> bb{&xb, &cb, &ha, &cca};
  vector<Blob<Dtype>*> tb{&ob, &hb, &ccb};
  first.SetUp(ba, ta);
  second.SetUp(bb, tb);
  for (size_t k = 0; k < layer.blobs().size(); ++k) {
    first.blobs()[k]->CopyFrom(*layer.blobs()[k]);
    second.blobs()[k]->CopyFrom(*layer.blobs()[k]);
  }
  first.Forward(ba, ta);
  second.Forward(bb, tb);
  const double tol = sizeof(Dtype) == 4 ? 1e-6 : 1e-14;
  for (int i = 0; i < 2 * N * H; ++i)
    EXPECT_NEAR(this->top_h_.cpu_data()[i], oa.cpu_data()[i], tol);
  for (int i = 0; i < N * H; ++i) {
    EXPECT_NEAR(this->top_h_.cpu_data()[2 * N * H + i], ob.cpu_data()[i], tol);
    EXPECT_NEAR(this->top_hT_.cpu_data()[i], hb.cpu_data()[i], tol);
    EXPECT_NEAR(this->top_cT_.cpu_data()[i], ccb.cpu_data()[i], tol);
  }
}

TYPED_TEST(LSTMLayerTest, GradientX) {
  typedef TypeParam Dtype;
  LSTMLayer<Dtype> layer(this->Param());
  GradientChecker<Dtype> checker(1e-2, 1e-3);
  checker.CheckGradient(&layer, this->bottom_, this->top_, 0);
}

TYPED_TEST(LSTMLayerTest, GradientStaticInput) {
  typedef TypeParam Dtype;
  LSTMLayer<Dtype> layer(this->Param());
  vector<Blob<Dtype>*> bottom{&this->x_, &this->cont_, &this->x_static_};
  GradientChecker<Dtype> checker(1e-2, 1e-3);
  checker.CheckGradient(&layer, bottom, this->top_, 0);
  checker.CheckGradient(&layer, bottom, this->top_, 2);
}

TYPED_TEST(LSTMLayerTest, GradientExposeHidden) {
  typedef TypeParam Dtype;
  caffe_set(this->cont_.count(), Dtype(1), this->cont_.mutable_cpu_data());
  LSTMLayer<Dtype> layer(this->Param(true));
  vector<Blob<Dtype>*> bottom{&this->x_, &this->cont_, &this->h0_,
                              &this->c0_};
  vector<Blob<Dtype>*> top{&this->top_h_, &this->top_hT_, &this->top_cT_};
  GradientChecker<Dtype> checker(1e-2, 1e-3);
  layer.SetUp(bottom, top);
  checker.CheckGradientSingle(&layer, bottom, top, 0, 0, -1);
}

TYPED_TEST(LSTMLayerTest, BackwardReads) {
  typedef TypeParam Dtype;
  LSTMLayer<Dtype> layer(this->Param());
  EXPECT_EQ(kReadsBottomData, layer.Memory().backward_reads);
  EXPECT_FALSE(layer.Memory().in_place);
  layer.SetUp(this->bottom_, this->top_);
  CheckBackwardReads<Dtype>(&layer, this->bottom_, this->top_,
                            vector<bool>{true, false});

  LSTMLayer<Dtype> with_static(this->Param());
  vector<Blob<Dtype>*> bottom{&this->x_, &this->cont_, &this->x_static_};
  with_static.SetUp(bottom, this->top_);
  CheckBackwardReads<Dtype>(&with_static, bottom, this->top_,
                            vector<bool>{true, false, true});

  caffe_set(this->cont_.count(), Dtype(1), this->cont_.mutable_cpu_data());
  LSTMLayer<Dtype> exposed(this->Param(true));
  vector<Blob<Dtype>*> bottom_h{&this->x_, &this->cont_, &this->h0_,
                                &this->c0_};
  vector<Blob<Dtype>*> top_h{&this->top_h_, &this->top_hT_, &this->top_cT_};
  exposed.SetUp(bottom_h, top_h);
  EXPECT_FALSE(exposed.AllowForceBackward(1));
  EXPECT_FALSE(exposed.AllowForceBackward(2));
  EXPECT_FALSE(exposed.AllowForceBackward(3));
  CheckBackwardReads<Dtype>(&exposed, bottom_h, top_h,
                            vector<bool>{true, false, false, false});
}

TYPED_TEST(LSTMLayerTest, BadShapesThrow) {
  typedef TypeParam Dtype;
  {
    LSTMLayer<Dtype> layer(this->Param());
    this->cont_.Reshape(vector<int>{3, 1});
    EXPECT_THROW(layer.SetUp(this->bottom_, this->top_), Error);
    this->cont_.Reshape(vector<int>{3, 2});
  }
  {
    // h_0 right, c_0 wrong.
    Blob<Dtype> bad_c0(vector<int>{1, 2, 4});
    vector<Blob<Dtype>*> bottom{&this->x_, &this->cont_, &this->h0_, &bad_c0};
    vector<Blob<Dtype>*> top{&this->top_h_, &this->top_hT_, &this->top_cT_};
    LSTMLayer<Dtype> layer(this->Param(true));
    EXPECT_THROW(layer.SetUp(bottom, top), Error);
    // expose_hidden takes both states.
    vector<Blob<Dtype>*> three{&this->x_, &this->cont_, &this->h0_};
    EXPECT_THROW(layer.SetUp(three, top), Error);
  }
  {
    LSTMLayer<Dtype> layer(this->Param());
    layer.SetUp(this->bottom_, this->top_);
    // A new batch size is fine; a mismatched cont is not.
    this->x_.Reshape(vector<int>{3, 4, 3});
    EXPECT_THROW(layer.Forward(this->bottom_, this->top_), Error);
    this->cont_.Reshape(vector<int>{3, 4});
    caffe_set(this->cont_.count(), Dtype(0), this->cont_.mutable_cpu_data());
    EXPECT_NO_THROW(layer.Forward(this->bottom_, this->top_));
    EXPECT_EQ((vector<int>{3, 4, 2}), this->top_h_.shape());
  }
}

}  // namespace caffe
