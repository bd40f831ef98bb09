// Tests for RNNLayer (and, through it, RecurrentLayer): forward values
// against an unrolled loop written here, gradients by finite differences
// for x, x_static and the weights, sequence resets through cont, the state
// carried between calls, expose_hidden round trips, rebuilding when T
// changes, the BackwardReads declaration, use inside a Net, and shape and
// parameter errors.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "caffe/blob.hpp"
#include "caffe/common.hpp"
#include "caffe/layers/rnn_layer.hpp"
#include "caffe/net.hpp"
#include "caffe/test/test_gradient_check_util.hpp"
#include "caffe/test/test_layer_contract_util.hpp"
#include "caffe/test/test_recurrent_util.hpp"
#include "caffe/util/io.hpp"

namespace caffe {

using contract_test::CheckBackwardReads;
using recurrent_test::FillFixed;
using recurrent_test::MatVec;
using recurrent_test::Row;

namespace {

// The RNN written as a loop.  blobs: W_xh, b_h, [W_xh_static], W_hh, W_ho,
// b_o.  h is the initial state (N x H) on entry and the final one on exit.
template <typename Dtype>
vector<double> ReferenceRNN(const vector<shared_ptr<Blob<Dtype> > >& blobs,
                            const Blob<Dtype>& x, const Blob<Dtype>& cont,
                            const Blob<Dtype>* x_static,
                            vector<vector<double> >* h) {
  const int T = x.shape(0), N = x.shape(1), K = x.count(2);
  const int H = blobs[1]->count();
  const int s = x_static ? 1 : 0;
  const Blob<Dtype>& W_xh = *blobs[0];
  const Blob<Dtype>& b_h = *blobs[1];
  const Blob<Dtype>& W_hh = *blobs[2 + s];
  const Blob<Dtype>& W_ho = *blobs[3 + s];
  const Blob<Dtype>& b_o = *blobs[4 + s];
  vector<double> o(T * N * H);
  for (int t = 0; t < T; ++t) {
    for (int n = 0; n < N; ++n) {
      vector<double> h_prev = (*h)[n];
      for (double& v : h_prev) v *= cont.cpu_data()[t * N + n];
      vector<double> a = MatVec(W_hh, h_prev);
      const vector<double> wx = MatVec(W_xh, Row(x, (t * N + n) * K, K));
      vector<double> ws(H, 0.0);
      if (x_static) {
        const int Ks = x_static->count(1);
        ws = MatVec(*blobs[2], Row(*x_static, n * Ks, Ks));
      }
      for (int j = 0; j < H; ++j)
        (*h)[n][j] = std::tanh(a[j] + wx[j] + b_h.cpu_data()[j] + ws[j]);
      const vector<double> wo = MatVec(W_ho, (*h)[n]);
      for (int j = 0; j < H; ++j)
        o[(t * N + n) * H + j] = std::tanh(wo[j] + b_o.cpu_data()[j]);
    }
  }
  return o;
}

}  // namespace

template <typename Dtype>
class RNNLayerTest : public ::testing::Test {
 public:
  static const int kT = 3, kN = 2, kK = 3, kH = 2, kKs = 2;
  RNNLayerTest()
      : x_(vector<int>{kT, kN, kK}),
        cont_(vector<int>{kT, kN}),
        x_static_(vector<int>{kN, kKs}),
        h0_(vector<int>{1, kN, kH}) {
    Caffe::set_random_seed(1701);
    caffe_rng_uniform<Dtype>(x_.count(), Dtype(-1), Dtype(1),
                             x_.mutable_cpu_data());
    caffe_rng_uniform<Dtype>(x_static_.count(), Dtype(-1), Dtype(1),
                             x_static_.mutable_cpu_data());
    caffe_rng_uniform<Dtype>(h0_.count(), Dtype(-1), Dtype(1),
                             h0_.mutable_cpu_data());
    // Every stream starts at t = 0; stream 1 starts again at t = 2.
    for (int i = 0; i < cont_.count(); ++i)
      cont_.mutable_cpu_data()[i] = i < kN ? 0 : 1;
    cont_.mutable_cpu_data()[2 * kN + 1] = 0;
    bottom_ = {&x_, &cont_};
    top_ = {&top_o_};
  }
  LayerParameter Param(bool expose_hidden = false) const {
    return recurrent_test::RecurrentParam("RNN", "rnn", kH, expose_hidden);
  }
  void FixWeights(Layer<Dtype>* layer) {
    for (size_t k = 0; k < layer->blobs().size(); ++k)
      FillFixed(layer->blobs()[k].get(), static_cast<int>(k));
  }
  void ExpectNear(const vector<double>& expected, const Blob<Dtype>& actual,
                  int offset = 0) {
    const double tol = sizeof(Dtype) == 4 ? 1e-5 : 1e-12;
    ASSERT_LE(offset + expected.size(), static_cast<size_t>(actual.count()));
    for (size_t i = 0; i < expected.size(); ++i)
      EXPECT_NEAR(expected[i], actual.cpu_data()[offset + i], tol) << i;
  }
  vector<vector<double> > Zeros() const {
    return vector<vector<double> >(kN, vector<double>(kH, 0.0));
  }
  vector<vector<double> > H0() const {
    vector<vector<double> > h(kN);
    for (int n = 0; n < kN; ++n) h[n] = Row(h0_, n * kH, kH);
    return h;
  }
  Blob<Dtype> x_, cont_, x_static_, h0_, top_o_, top_h_;
  vector<Blob<Dtype>*> bottom_, top_;
};

TYPED_TEST_SUITE(RNNLayerTest, TestDtypes);

TYPED_TEST(RNNLayerTest, SetUp) {
  typedef TypeParam Dtype;
  RNNLayer<Dtype> layer(this->Param());
  layer.SetUp(this->bottom_, this->top_);
  EXPECT_EQ((vector<int>{3, 2, 2}), this->top_o_.shape());
  // Caffe's order: W_xh, b_h, W_hh, W_ho, b_o.
  const vector<vector<int> > shapes{{2, 3}, {2}, {2, 2}, {2, 2}, {2}};
  ASSERT_EQ(shapes.size(), layer.blobs().size());
  for (size_t k = 0; k < shapes.size(); ++k)
    EXPECT_EQ(shapes[k], layer.blobs()[k]->shape()) << k;
  EXPECT_GT(layer.InternalBytes(), 0u);
  // Building the unrolled net must leave the process-wide settings alone.
  EXPECT_TRUE(Caffe::root_solver());

  RNNLayer<Dtype> with_static(this->Param());
  vector<Blob<Dtype>*> bottom{&this->x_, &this->cont_, &this->x_static_};
  with_static.SetUp(bottom, this->top_);
  const vector<vector<int> > static_shapes{{2, 3}, {2}, {2, 2}, {2, 2},
                                           {2, 2}, {2}};
  ASSERT_EQ(static_shapes.size(), with_static.blobs().size());
  for (size_t k = 0; k < static_shapes.size(); ++k)
    EXPECT_EQ(static_shapes[k], with_static.blobs()[k]->shape()) << k;
}

TYPED_TEST(RNNLayerTest, Forward) {
  typedef TypeParam Dtype;
  RNNLayer<Dtype> layer(this->Param());
  layer.SetUp(this->bottom_, this->top_);
  this->FixWeights(&layer);
  layer.Forward(this->bottom_, this->top_);
  auto h = this->Zeros();
  this->ExpectNear(ReferenceRNN(layer.blobs(), this->x_, this->cont_,
                                static_cast<Blob<Dtype>*>(nullptr), &h),
                   this->top_o_);
}

TYPED_TEST(RNNLayerTest, ForwardStaticInput) {
  typedef TypeParam Dtype;
  RNNLayer<Dtype> layer(this->Param());
  vector<Blob<Dtype>*> bottom{&this->x_, &this->cont_, &this->x_static_};
  layer.SetUp(bottom, this->top_);
  this->FixWeights(&layer);
  layer.Forward(bottom, this->top_);
  auto h = this->Zeros();
  this->ExpectNear(ReferenceRNN(layer.blobs(), this->x_, this->cont_,
                                &this->x_static_, &h),
                   this->top_o_);
}

TYPED_TEST(RNNLayerTest, ContZeroResetsState) {
  typedef TypeParam Dtype;
  RNNLayer<Dtype> layer(this->Param());
  layer.SetUp(this->bottom_, this->top_);
  this->FixWeights(&layer);
  layer.Forward(this->bottom_, this->top_);
  vector<Dtype> first(this->top_o_.cpu_data(),
                      this->top_o_.cpu_data() + this->top_o_.count());
  // The state carried from the first call is cut by cont = 0 at t = 0.
  layer.Forward(this->bottom_, this->top_);
  for (int i = 0; i < this->top_o_.count(); ++i)
    EXPECT_EQ(first[i], this->top_o_.cpu_data()[i]);
  // Stream 1 restarts at t = 2: its output there equals a fresh start.
  Blob<Dtype> x1(vector<int>{1, 2, 3}), c1(vector<int>{1, 2}), o1;
  caffe_copy(6, this->x_.cpu_data() + 2 * 6, x1.mutable_cpu_data());
  caffe_set(2, Dtype(0), c1.mutable_cpu_data());
  RNNLayer<Dtype> fresh(this->Param());
  vector<Blob<Dtype>*> b1{&x1, &c1}, t1{&o1};
  fresh.SetUp(b1, t1);
  for (size_t k = 0; k < layer.blobs().size(); ++k)
    fresh.blobs()[k]->CopyFrom(*layer.blobs()[k]);
  fresh.Forward(b1, t1);
  for (int j = 0; j < 2; ++j)
    EXPECT_EQ(o1.cpu_data()[2 + j], this->top_o_.cpu_data()[(2 * 2 + 1) * 2 + j]);
}

TYPED_TEST(RNNLayerTest, StateCarriesAcrossCalls) {
  typedef TypeParam Dtype;
  // Two calls of T = 3 equal one call of T = 6.
  const int T = 3, N = 2, K = 3;
  Blob<Dtype> x6(vector<int>{2 * T, N, K}), c6(vector<int>{2 * T, N}), o6;
  caffe_rng_uniform<Dtype>(x6.count(), Dtype(-1), Dtype(1),
                           x6.mutable_cpu_data());
  caffe_set(c6.count(), Dtype(1), c6.mutable_cpu_data());
  c6.mutable_cpu_data()[0] = 0;
  RNNLayer<Dtype> long_layer(this->Param());
  vector<Blob<Dtype>*> b6{&x6, &c6}, t6{&o6};
  long_layer.SetUp(b6, t6);
  this->FixWeights(&long_layer);
  long_layer.Forward(b6, t6);

  RNNLayer<Dtype> layer(this->Param());
  layer.SetUp(this->bottom_, this->top_);
  this->FixWeights(&layer);
  for (int half = 0; half < 2; ++half) {
    caffe_copy(T * N * K, x6.cpu_data() + half * T * N * K,
               this->x_.mutable_cpu_data());
    caffe_copy(T * N, c6.cpu_data() + half * T * N,
               this->cont_.mutable_cpu_data());
    layer.Forward(this->bottom_, this->top_);
    const double tol = sizeof(Dtype) == 4 ? 1e-6 : 1e-14;
    for (int i = 0; i < this->top_o_.count(); ++i)
      EXPECT_NEAR(o6.cpu_data()[half * this->top_o_.count() + i],
                  this->top_o_.cpu_data()[i], tol)
          << "half " << half << " i " << i;
  }
  // Reset() forgets the state: the second half then starts from zero.
  layer.Reset();
  layer.Forward(this->bottom_, this->top_);
  auto h = this->Zeros();
  this->ExpectNear(ReferenceRNN(layer.blobs(), this->x_, this->cont_,
                                static_cast<Blob<Dtype>*>(nullptr), &h),
                   this->top_o_);
}

TYPED_TEST(RNNLayerTest, ExposeHiddenRoundTrip) {
  typedef TypeParam Dtype;
  const int N = 2, K = 3, H = 2;
  caffe_set(this->cont_.count(), Dtype(1), this->cont_.mutable_cpu_data());
  // One call over T = 3 from h0 ...
  RNNLayer<Dtype> layer(this->Param(true));
  vector<Blob<Dtype>*> bottom{&this->x_, &this->cont_, &this->h0_};
  vector<Blob<Dtype>*> top{&this->top_o_, &this->top_h_};
  layer.SetUp(bottom, top);
  EXPECT_EQ((vector<int>{1, 2, 2}), this->top_h_.shape());
  this->FixWeights(&layer);
  layer.Forward(bottom, top);
  auto h = this->H0();
  this->ExpectNear(ReferenceRNN(layer.blobs(), this->x_, this->cont_,
                                static_cast<Blob<Dtype>*>(nullptr), &h),
                   this->top_o_);
  vector<double> h_final;
  for (auto& row : h) h_final.insert(h_final.end(), row.begin(), row.end());
  this->ExpectNear(h_final, this->top_h_);

  // ... equals T = 1 then T = 2, feeding the returned state back.
  Blob<Dtype> xa(vector<int>{1, N, K}), ca(vector<int>{1, N});
  Blob<Dtype> xb(vector<int>{2, N, K}), cb(vector<int>{2, N});
  Blob<Dtype> oa, ha, ob, hb;
  caffe_copy(N * K, this->x_.cpu_data(), xa.mutable_cpu_data());
  caffe_copy(2 * N * K, this->x_.cpu_data() + N * K, xb.mutable_cpu_data());
  caffe_set(ca.count(), Dtype(1), ca.mutable_cpu_data());
  caffe_set(cb.count(), Dtype(1), cb.mutable_cpu_data());
  RNNLayer<Dtype> split(this->Param(true));
  vector<Blob<Dtype>*> ba{&xa, &ca, &this->h0_}, ta{&oa, &ha};
  split.SetUp(ba, ta);
  for (size_t k = 0; k < layer.blobs().size(); ++k)
    split.blobs()[k]->CopyFrom(*layer.blobs()[k]);
  split.Forward(ba, ta);
  // The same layer, now with T = 2: it rebuilds and keeps its weights.
  vector<Blob<Dtype>*> bb{&xb, &cb, &ha}, tb{&ob, &hb};
  split.Forward(bb, tb);
  const double tol = sizeof(Dtype) == 4 ? 1e-6 : 1e-14;
  for (int i = 0; i < N * H; ++i)
    EXPECT_NEAR(this->top_o_.cpu_data()[i], oa.cpu_data()[i], tol);
  for (int i = 0; i < 2 * N * H; ++i)
    EXPECT_NEAR(this->top_o_.cpu_data()[N * H + i], ob.cpu_data()[i], tol);
  for (int i = 0; i < N * H; ++i)
    EXPECT_NEAR(this->top_h_.cpu_data()[i], hb.cpu_data()[i], tol);
}

TYPED_TEST(RNNLayerTest, ReshapeBatchAndTime) {
  typedef TypeParam Dtype;
  RNNLayer<Dtype> layer(this->Param());
  layer.SetUp(this->bottom_, this->top_);
  this->FixWeights(&layer);
  vector<Blob<Dtype>*> params_before;
  for (auto& p : layer.blobs()) params_before.push_back(p.get());
  const int shapes[][2] = {{3, 4}, {5, 4}, {1, 1}, {3, 2}};
  for (const auto& tn : shapes) {
    const int T = tn[0], N = tn[1];
    this->x_.Reshape(vector<int>{T, N, 3});
    this->cont_.Reshape(vector<int>{T, N});
    caffe_rng_uniform<Dtype>(this->x_.count(), Dtype(-1), Dtype(1),
                             this->x_.mutable_cpu_data());
    caffe_set(this->cont_.count(), Dtype(1), this->cont_.mutable_cpu_data());
    caffe_set(N, Dtype(0), this->cont_.mutable_cpu_data());
    layer.Forward(this->bottom_, this->top_);
    EXPECT_EQ((vector<int>{T, N, 2}), this->top_o_.shape());
    vector<vector<double> > h(N, vector<double>(2, 0.0));
    this->ExpectNear(ReferenceRNN(layer.blobs(), this->x_, this->cont_,
                                  static_cast<Blob<Dtype>*>(nullptr), &h),
                     this->top_o_);
  }
  // The parameter blobs are the same objects (a Net holds pointers).
  for (size_t k = 0; k < params_before.size(); ++k)
    EXPECT_EQ(params_before[k], layer.blobs()[k].get());
}

TYPED_TEST(RNNLayerTest, GradientX) {
  typedef TypeParam Dtype;
  RNNLayer<Dtype> layer(this->Param());
  GradientChecker<Dtype> checker(1e-2, 1e-3);
  // Checks x and every weight.
  checker.CheckGradient(&layer, this->bottom_, this->top_, 0);
}

TYPED_TEST(RNNLayerTest, GradientStaticInput) {
  typedef TypeParam Dtype;
  RNNLayer<Dtype> layer(this->Param());
  vector<Blob<Dtype>*> bottom{&this->x_, &this->cont_, &this->x_static_};
  GradientChecker<Dtype> checker(1e-2, 1e-3);
  checker.CheckGradient(&layer, bottom, this->top_, 0);
  checker.CheckGradient(&layer, bottom, this->top_, 2);
}

TYPED_TEST(RNNLayerTest, GradientExposeHidden) {
  typedef TypeParam Dtype;
  RNNLayer<Dtype> layer(this->Param(true));
  vector<Blob<Dtype>*> bottom{&this->x_, &this->cont_, &this->h0_};
  vector<Blob<Dtype>*> top{&this->top_o_, &this->top_h_};
  GradientChecker<Dtype> checker(1e-2, 1e-3);
  // Only o carries gradient (h_T's diff is not propagated, as in Caffe).
  layer.SetUp(bottom, top);
  checker.CheckGradientSingle(&layer, bottom, top, 0, 0, -1);
}

TYPED_TEST(RNNLayerTest, FrozenWeightsGetNoGradient) {
  typedef TypeParam Dtype;
  RNNLayer<Dtype> layer(this->Param());
  layer.SetUp(this->bottom_, this->top_);
  layer.set_param_propagate_down(2, false);  // W_hh
  layer.Forward(this->bottom_, this->top_);
  contract_test::FillTopDiffs(this->top_);
  contract_test::ZeroParamDiffs(&layer);
  layer.Backward(this->top_, vector<bool>{false, false}, this->bottom_);
  EXPECT_EQ(Dtype(0), layer.blobs()[2]->asum_diff());
  EXPECT_GT(layer.blobs()[0]->asum_diff(), Dtype(0));
  EXPECT_GT(layer.blobs()[3]->asum_diff(), Dtype(0));
  // propagate_down[0] false: x's diff is left alone.
  caffe_set(this->x_.count(), Dtype(5), this->x_.mutable_cpu_diff());
  layer.Backward(this->top_, vector<bool>{false, false}, this->bottom_);
  for (int i = 0; i < this->x_.count(); ++i)
    EXPECT_EQ(Dtype(5), this->x_.cpu_diff()[i]);
}

TYPED_TEST(RNNLayerTest, BackwardReads) {
  typedef TypeParam Dtype;
  RNNLayer<Dtype> layer(this->Param());
  EXPECT_EQ(kReadsBottomData, layer.Memory().backward_reads);
  EXPECT_FALSE(layer.Memory().in_place);
  layer.SetUp(this->bottom_, this->top_);
  EXPECT_TRUE(layer.AllowForceBackward(0));
  EXPECT_FALSE(layer.AllowForceBackward(1));
  CheckBackwardReads<Dtype>(&layer, this->bottom_, this->top_,
                            vector<bool>{true, false});
  EXPECT_THROW(layer.Backward(this->top_, vector<bool>{true, true},
                              this->bottom_),
               Error);

  RNNLayer<Dtype> with_static(this->Param());
  vector<Blob<Dtype>*> bottom{&this->x_, &this->cont_, &this->x_static_};
  with_static.SetUp(bottom, this->top_);
  EXPECT_TRUE(with_static.AllowForceBackward(2));
  CheckBackwardReads<Dtype>(&with_static, bottom, this->top_,
                            vector<bool>{true, false, true});

  RNNLayer<Dtype> exposed(this->Param(true));
  vector<Blob<Dtype>*> bottom_h{&this->x_, &this->cont_, &this->h0_};
  vector<Blob<Dtype>*> top_h{&this->top_o_, &this->top_h_};
  exposed.SetUp(bottom_h, top_h);
  EXPECT_FALSE(exposed.AllowForceBackward(2));
  // Start from h0 (cont = 1) so that backward depends on it.
  caffe_set(this->cont_.count(), Dtype(1), this->cont_.mutable_cpu_data());
  CheckBackwardReads<Dtype>(&exposed, bottom_h, top_h,
                            vector<bool>{true, false, false});
  // The hidden state input gets a zero gradient when one is asked for.
  caffe_set(this->h0_.count(), Dtype(3), this->h0_.mutable_cpu_diff());
  exposed.Backward(top_h, vector<bool>{true, false, true}, bottom_h);
  EXPECT_EQ(Dtype(0), this->h0_.asum_diff());
}

TYPED_TEST(RNNLayerTest, BadShapesThrow) {
  typedef TypeParam Dtype;
  {
    RNNLayer<Dtype> layer(this->Param());
    this->cont_.Reshape(vector<int>{3, 3});
    EXPECT_THROW(layer.SetUp(this->bottom_, this->top_), Error);
    this->cont_.Reshape(vector<int>{2, 2});
    EXPECT_THROW(layer.SetUp(this->bottom_, this->top_), Error);
    this->cont_.Reshape(vector<int>{3, 2, 1});
    EXPECT_THROW(layer.SetUp(this->bottom_, this->top_), Error);
    this->cont_.Reshape(vector<int>{3, 2});
  }
  {
    Blob<Dtype> flat(vector<int>{3});
    vector<Blob<Dtype>*> bottom{&flat, &this->cont_};
    RNNLayer<Dtype> layer(this->Param());
    EXPECT_THROW(layer.SetUp(bottom, this->top_), Error);
  }
  {
    // x's feature size may not change: the weights fix it.
    RNNLayer<Dtype> layer(this->Param());
    layer.SetUp(this->bottom_, this->top_);
    this->x_.Reshape(vector<int>{3, 2, 4});
    try {
      layer.Forward(this->bottom_, this->top_);
      ADD_FAILURE() << "feature size change accepted";
    } catch (const Error& e) {
      EXPECT_NE(string::npos, string(e.what()).find("rnn")) << e.what();
    }
    this->x_.Reshape(vector<int>{3, 2, 3});
    EXPECT_NO_THROW(layer.Forward(this->bottom_, this->top_));
    // The same with a new T (a rebuild): the failed build leaves the old
    // net, and the new T still works once the features fit.
    this->x_.Reshape(vector<int>{6, 2, 4});
    this->cont_.Reshape(vector<int>{6, 2});
    caffe_set(this->cont_.count(), Dtype(0), this->cont_.mutable_cpu_data());
    EXPECT_THROW(layer.Forward(this->bottom_, this->top_), Error);
    this->x_.Reshape(vector<int>{6, 2, 3});
    caffe_rng_uniform<Dtype>(this->x_.count(), Dtype(-1), Dtype(1),
                             this->x_.mutable_cpu_data());
    layer.Forward(this->bottom_, this->top_);
    EXPECT_EQ((vector<int>{6, 2, 2}), this->top_o_.shape());
    auto h = this->Zeros();
    this->ExpectNear(ReferenceRNN(layer.blobs(), this->x_, this->cont_,
                                  static_cast<Blob<Dtype>*>(nullptr), &h),
                     this->top_o_);
    this->x_.Reshape(vector<int>{3, 2, 3});
    this->cont_.Reshape(vector<int>{3, 2});
  }
  {
    Blob<Dtype> bad_static(vector<int>{3, 2});
    vector<Blob<Dtype>*> bottom{&this->x_, &this->cont_, &bad_static};
    RNNLayer<Dtype> layer(this->Param());
    EXPECT_THROW(layer.SetUp(bottom, this->top_), Error);
  }
  {
    Blob<Dtype> bad_h0(vector<int>{1, 2, 3});
    vector<Blob<Dtype>*> bottom{&this->x_, &this->cont_, &bad_h0};
    vector<Blob<Dtype>*> top{&this->top_o_, &this->top_h_};
    RNNLayer<Dtype> layer(this->Param(true));
    EXPECT_THROW(layer.SetUp(bottom, top), Error);
    // expose_hidden needs the extra top.
    bad_h0.Reshape(vector<int>{1, 2, 2});
    EXPECT_THROW(layer.SetUp(bottom, this->top_), Error);
    EXPECT_NO_THROW(layer.SetUp(bottom, top));
  }
  {
    LayerParameter p = this->Param();
    p.mutable_recurrent_param()->set_num_output(0);
    RNNLayer<Dtype> layer(p);
    EXPECT_THROW(layer.SetUp(this->bottom_, this->top_), Error);
  }
  {
    vector<Blob<Dtype>*> one{&this->x_};
    RNNLayer<Dtype> layer(this->Param());
    EXPECT_THROW(layer.SetUp(one, this->top_), Error);
  }
}

TYPED_TEST(RNNLayerTest, UnrolledNetDoesNotLog) {
  typedef TypeParam Dtype;
  NetParameter p;
  ReadProtoFromTextString(
      "layer { name: 'in' type: 'Input' top: 'x' top: 'cont' "
      "        input_param { shape { dim: 3 dim: 2 dim: 3 } "
      "                      shape { dim: 3 dim: 2 } } } "
      "layer { name: 'rnn' type: 'RNN' bottom: 'x' bottom: 'cont' top: 'o' "
      "        recurrent_param { num_output: 2 } }",
      "rnn net", &p);
  const int saved_level = FLAGS_minloglevel;
  FLAGS_minloglevel = 0;
  ::testing::internal::CaptureStderr();
  string log;
  {
    Net<Dtype> net(p);
    // A new T rebuilds the unrolled net.
    net.input_blobs()[0]->Reshape(vector<int>{4, 2, 3});
    net.input_blobs()[1]->Reshape(vector<int>{4, 2});
    net.Forward();
    log = ::testing::internal::GetCapturedStderr();
  }
  FLAGS_minloglevel = saved_level;
  // Only the outer net's three tops are logged.
  int count = 0;
  for (size_t pos = log.find("Top shape"); pos != string::npos;
       pos = log.find("Top shape", pos + 1))
    ++count;
  EXPECT_EQ(3, count) << log;
  EXPECT_TRUE(Caffe::root_solver());
}

TYPED_TEST(RNNLayerTest, InNetWithForceBackward) {
  typedef TypeParam Dtype;
  NetParameter p;
  ReadProtoFromTextString(
      "force_backward: true "
      "layer { name: 'in' type: 'Input' top: 'x' top: 'cont' "
      "        input_param { shape { dim: 3 dim: 2 dim: 3 } "
      "                      shape { dim: 3 dim: 2 } } } "
      "layer { name: 'rnn' type: 'RNN' bottom: 'x' bottom: 'cont' top: 'o' "
      "        recurrent_param { num_output: 2 "
      "                          weight_filler { type: 'gaussian' std: 0.5 } "
      "        } }",
      "rnn net", &p);
  Net<Dtype> net(p);
  EXPECT_TRUE(net.bottom_need_backward()[1][0]);
  EXPECT_FALSE(net.bottom_need_backward()[1][1]);
  EXPECT_EQ(5u, net.learnable_params().size());
  Blob<Dtype>* x = net.input_blobs()[0];
  caffe_copy(x->count(), this->x_.cpu_data(), x->mutable_cpu_data());
  caffe_copy(6, this->cont_.cpu_data(), net.input_blobs()[1]->mutable_cpu_data());
  net.Forward();
  auto h = this->Zeros();
  Layer<Dtype>* rnn = net.layer_by_name("rnn").get();
  this->ExpectNear(ReferenceRNN(rnn->blobs(), *x, *net.input_blobs()[1],
                                static_cast<Blob<Dtype>*>(nullptr), &h),
                   *net.blob_by_name("o"));
  contract_test::FillTopDiffs(vector<Blob<Dtype>*>{net.blob_by_name("o").get()});
  EXPECT_NO_THROW(net.Backward());
  EXPECT_GT(x->asum_diff(), Dtype(0));

  // A net sharing the weights (what Solver::Test does) sees updates.
  Net<Dtype> test_net(p);
  test_net.ShareTrainedLayersWith(&net);
  caffe_copy(x->count(), x->cpu_data(),
             test_net.input_blobs()[0]->mutable_cpu_data());
  caffe_copy(6, this->cont_.cpu_data(),
             test_net.input_blobs()[1]->mutable_cpu_data());
  net.layer_by_name("rnn")->blobs()[2]->scale_data(Dtype(2));  // W_hh
  net.Forward();
  test_net.Forward();
  const Blob<Dtype>& o1 = *net.blob_by_name("o");
  const Blob<Dtype>& o2 = *test_net.blob_by_name("o");
  for (int i = 0; i < o1.count(); ++i)
    EXPECT_EQ(o1.cpu_data()[i], o2.cpu_data()[i]);
}

}  // namespace caffe
