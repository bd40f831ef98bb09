// Tests for ConvolutionLayer: forward against a direct N-D convolution,
// finite-difference gradients, the BackwardReads declaration, the shared
// column workspace and parameter errors.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <memory>
#include <vector>

#include "caffe/blob.hpp"
#include "caffe/common.hpp"
#include "caffe/layers/conv_layer.hpp"
#include "caffe/test/conv_test_util.hpp"
#include "caffe/test/test_gradient_check_util.hpp"
#include "caffe/test/test_layer_contract_util.hpp"
#include "caffe/util/math_functions.hpp"

namespace caffe {
namespace {

using conv_test::Prod;
using conv_test::Unflatten;

// Direct convolution of in (N x C x S...) with w (O x C/g x K...), written
// from the definition y[n,o,p] = b[o] + sum_{c,k} w[o,c,k] x[n,c,p*s-pad+k*d].
template <typename Dtype>
vector<Dtype> RefConv(const Blob<Dtype>& in, const Blob<Dtype>& w,
                      const Blob<Dtype>* bias, int group,
                      const vector<int>& pad, const vector<int>& stride,
                      const vector<int>& dil, vector<int>* out_shape) {
  const int N = in.shape(0), C = in.shape(1), O = w.shape(0);
  const int ns = in.num_axes() - 2;
  vector<int> in_sp(in.shape().begin() + 2, in.shape().end());
  vector<int> k_sp(w.shape().begin() + 2, w.shape().end());
  vector<int> out_sp(ns);
  for (int a = 0; a < ns; ++a)
    out_sp[a] = (in_sp[a] + 2 * pad[a] - (dil[a] * (k_sp[a] - 1) + 1)) /
                    stride[a] + 1;
  *out_shape = {N, O};
  out_shape->insert(out_shape->end(), out_sp.begin(), out_sp.end());
  const int cg = C / group, og = O / group;
  const int in_sz = Prod(in_sp), out_sz = Prod(out_sp), k_sz = Prod(k_sp);
  vector<Dtype> out(N * O * out_sz, Dtype(0));
  const Dtype* x = in.cpu_data();
  const Dtype* wd = w.cpu_data();
  for (int n = 0; n < N; ++n)
    for (int o = 0; o < O; ++o) {
      const int g = o / og;
      for (int p = 0; p < out_sz; ++p) {
        const vector<int> op = Unflatten(p, out_sp);
        Dtype sum = bias ? bias->cpu_data()[o] : Dtype(0);
        for (int c = 0; c < cg; ++c)
          for (int k = 0; k < k_sz; ++k) {
            const vector<int> kp = Unflatten(k, k_sp);
            int flat = 0;
            bool inside = true;
            for (int a = 0; a < ns; ++a) {
              const int q = op[a] * stride[a] - pad[a] + kp[a] * dil[a];
              if (q < 0 || q >= in_sp[a]) inside = false;
              flat = flat * in_sp[a] + q;
            }
            if (!inside) continue;
            sum += wd[(o * cg + c) * k_sz + k] *
                   x[(n * C + g * cg + c) * in_sz + flat];
          }
        out[(n * O + o) * out_sz + p] = sum;
      }
    }
  return out;
}

}  // namespace

template <typename Dtype>
class ConvolutionLayerTest
    : public conv_test::ConvTestFixture<Dtype, ConvolutionLayer> {
 protected:
  ConvolutionLayerTest()
      : conv_test::ConvTestFixture<Dtype, ConvolutionLayer>(
            {2, 4, 6, 5}, "conv") {}

  // Forward-checks bottom_ through the layer built from p.
  void CheckForward(const LayerParameter& p, int group, vector<int> pad,
                    vector<int> stride, vector<int> dil) {
    this->CheckForwardAgainst(&RefConv<Dtype>, p, group, pad, stride, dil);
  }
};

TYPED_TEST_SUITE(ConvolutionLayerTest, TestDtypes);

TYPED_TEST(ConvolutionLayerTest, Setup) {
  typedef TypeParam Dtype;
  LayerParameter p = this->MakeParam(6, 3, 2, 0);
  p.mutable_convolution_param()->set_group(2);
  this->bottom_vec_.push_back(this->bottom2_.get());
  this->top_vec_.push_back(this->top2_.get());
  ConvolutionLayer<Dtype> layer(p);
  layer.SetUp(this->bottom_vec_, this->top_vec_);
  EXPECT_EQ(this->top_->shape(), (vector<int>{2, 6, 2, 2}));
  EXPECT_EQ(this->top2_->shape(), (vector<int>{2, 6, 2, 2}));
  EXPECT_EQ(layer.blobs()[0]->shape(), (vector<int>{6, 2, 3, 3}));
  EXPECT_EQ(layer.blobs()[1]->shape(), (vector<int>{6}));
  EXPECT_STREQ(layer.type(), "Convolution");
  EXPECT_EQ(layer.Memory().backward_reads, kReadsBottomData);
  EXPECT_FALSE(layer.Memory().in_place);
  EXPECT_EQ(layer.InternalBytes(), 0u);
}

TYPED_TEST(ConvolutionLayerTest, ForwardStridePadTwoBottoms) {
  typedef TypeParam Dtype;
  LayerParameter p = this->MakeParam(3, 3, 2, 1);
  this->bottom_vec_.push_back(this->bottom2_.get());
  this->top_vec_.push_back(this->top2_.get());
  ConvolutionLayer<Dtype> layer(p);
  layer.SetUp(this->bottom_vec_, this->top_vec_);
  layer.Forward(this->bottom_vec_, this->top_vec_);
  vector<int> shape;
  for (int b = 0; b < 2; ++b) {
    vector<Dtype> ref = RefConv(*this->bottom_vec_[b], *layer.blobs()[0],
                                layer.blobs()[1].get(), 1, {1, 1}, {2, 2},
                                {1, 1}, &shape);
    ASSERT_EQ(shape, this->top_vec_[b]->shape());
    for (int i = 0; i < this->top_vec_[b]->count(); ++i)
      EXPECT_NEAR(ref[i], this->top_vec_[b]->cpu_data()[i], 1e-4);
  }
}

TYPED_TEST(ConvolutionLayerTest, ForwardGroup) {
  LayerParameter p = this->MakeParam(6, 3, 1, 1);
  p.mutable_convolution_param()->set_group(2);
  this->CheckForward(p, 2, {1, 1}, {1, 1}, {1, 1});
}

TYPED_TEST(ConvolutionLayerTest, ForwardDilation) {
  LayerParameter p = this->MakeParam(2, 3, 1, 2);
  p.mutable_convolution_param()->add_dilation(2);
  this->CheckForward(p, 1, {2, 2}, {1, 1}, {2, 2});
}

TYPED_TEST(ConvolutionLayerTest, ForwardRectangularKernelHW) {
  LayerParameter p;
  p.set_name("conv");
  ConvolutionParameter* cp = p.mutable_convolution_param();
  cp->set_num_output(3);
  cp->set_kernel_h(3);
  cp->set_kernel_w(2);
  cp->set_stride_h(2);
  cp->set_stride_w(1);
  cp->set_pad_h(1);
  cp->set_pad_w(0);
  cp->mutable_weight_filler()->set_type("gaussian");
  cp->mutable_bias_filler()->set_type("gaussian");
  this->CheckForward(p, 1, {1, 0}, {2, 1}, {1, 1});
}

TYPED_TEST(ConvolutionLayerTest, ForwardPerAxisDilationNoBias) {
  LayerParameter p = this->MakeParam(2, 2, 1, 0);
  ConvolutionParameter* cp = p.mutable_convolution_param();
  cp->set_bias_term(false);
  cp->add_dilation(1);
  cp->add_dilation(3);
  this->CheckForward(p, 1, {0, 0}, {1, 1}, {1, 3});
}

TYPED_TEST(ConvolutionLayerTest, Forward1x1) {
  typedef TypeParam Dtype;
  LayerParameter p = this->MakeParam(4, 1, 1, 0);
  p.mutable_convolution_param()->set_group(2);
  this->CheckForward(p, 2, {0, 0}, {1, 1}, {1, 1});
  // The im2col engine needs no column buffer for a 1x1 kernel.
  p.mutable_convolution_param()->set_engine(ConvolutionParameter_Engine_CAFFE);
  ConvolutionLayer<Dtype> layer(p);
  layer.SetUp(this->bottom_vec_, this->top_vec_);
  EXPECT_EQ(layer.WorkspaceBytes(), 0u);
}

TYPED_TEST(ConvolutionLayerTest, Forward1x1Strided) {
  LayerParameter p = this->MakeParam(3, 1, 2, 0);
  this->CheckForward(p, 1, {0, 0}, {2, 2}, {1, 1});
}

TYPED_TEST(ConvolutionLayerTest, ForwardForceND) {
  LayerParameter p = this->MakeParam(4, 3, 2, 1);
  p.mutable_convolution_param()->set_force_nd_im2col(true);
  p.mutable_convolution_param()->set_group(2);
  this->CheckForward(p, 2, {1, 1}, {2, 2}, {1, 1});
}

TYPED_TEST(ConvolutionLayerTest, Forward3D) {
  this->bottom_->Reshape(vector<int>{2, 2, 4, 5, 3});
  FillGaussian(this->bottom_.get());
  LayerParameter p;
  p.set_name("conv3d");
  ConvolutionParameter* cp = p.mutable_convolution_param();
  cp->set_num_output(4);
  cp->set_group(2);
  for (int k : {2, 3, 2}) cp->add_kernel_size(k);
  for (int s : {2, 1, 1}) cp->add_stride(s);
  for (int d : {1, 1, 2}) cp->add_pad(d);
  for (int d : {1, 2, 1}) cp->add_dilation(d);
  cp->mutable_weight_filler()->set_type("gaussian");
  cp->mutable_bias_filler()->set_type("gaussian");
  this->CheckForward(p, 2, {1, 1, 2}, {2, 1, 1}, {1, 2, 1});
  EXPECT_EQ(this->top_->num_axes(), 5);
}

TYPED_TEST(ConvolutionLayerTest, Forward1D) {
  this->bottom_->Reshape(vector<int>{3, 2, 9});
  FillGaussian(this->bottom_.get());
  LayerParameter p = this->MakeParam(3, 3, 2, 1);
  this->CheckForward(p, 1, {1}, {2}, {1});
}

// axis = 2: the first two axes are both batch axes.
TYPED_TEST(ConvolutionLayerTest, ForwardAxis) {
  typedef TypeParam Dtype;
  Blob<Dtype> in5(vector<int>{2, 2, 3, 4, 5});
  FillGaussian(&in5);
  LayerParameter p = this->MakeParam(2, 3, 1, 1);
  p.mutable_convolution_param()->set_axis(2);
  ConvolutionLayer<Dtype> layer(p);
  vector<Blob<Dtype>*> bottom = {&in5};
  layer.SetUp(bottom, this->top_vec_);
  layer.Forward(bottom, this->top_vec_);
  EXPECT_EQ(this->top_->shape(), (vector<int>{2, 2, 2, 4, 5}));
  Blob<Dtype> in4(vector<int>{4, 3, 4, 5});
  caffe_copy(in5.count(), in5.cpu_data(), in4.mutable_cpu_data());
  vector<int> shape;
  vector<Dtype> ref = RefConv(in4, *layer.blobs()[0], layer.blobs()[1].get(),
                              1, {1, 1}, {1, 1}, {1, 1}, &shape);
  for (int i = 0; i < this->top_->count(); ++i)
    EXPECT_NEAR(ref[i], this->top_->cpu_data()[i], 1e-4);
}

TYPED_TEST(ConvolutionLayerTest, WeightsFromParamAreUsed) {
  typedef TypeParam Dtype;
  LayerParameter p = this->MakeParam(2, 3, 1, 0);
  {
    ConvolutionLayer<Dtype> layer(p);
    layer.SetUp(this->bottom_vec_, this->top_vec_);
    layer.ToProto(&p);
  }
  ConvolutionLayer<Dtype> a(p), b(p);
  a.SetUp(this->bottom_vec_, this->top_vec_);
  b.SetUp(this->bottom_vec_, this->top_vec_);
  for (int i = 0; i < a.blobs()[0]->count(); ++i)
    EXPECT_EQ(a.blobs()[0]->cpu_data()[i], b.blobs()[0]->cpu_data()[i]);
  // A saved weight of the wrong shape is rejected.
  p.mutable_convolution_param()->set_num_output(3);
  ConvolutionLayer<Dtype> c(p);
  EXPECT_THROW(c.SetUp(this->bottom_vec_, this->top_vec_), caffe::Error);
}

TYPED_TEST(ConvolutionLayerTest, SharedWorkspace) {
  typedef TypeParam Dtype;
  ConvolutionLayer<Dtype>::ReleaseColBuffer();
  EXPECT_EQ(ConvolutionLayer<Dtype>::ColBufferBytes(), 0u);
  LayerParameter big = this->MakeParam(2, 3, 1, 1);
  LayerParameter small = this->MakeParam(2, 2, 2, 0);
  // The column buffer of the im2col engine (oneDNN sizes its own).
  big.mutable_convolution_param()->set_engine(
      ConvolutionParameter_Engine_CAFFE);
  small.mutable_convolution_param()->set_engine(
      ConvolutionParameter_Engine_CAFFE);
  ConvolutionLayer<Dtype> a(big), b(small);
  Blob<Dtype> ta, tb;
  vector<Blob<Dtype>*> top_a = {&ta}, top_b = {&tb};
  a.SetUp(this->bottom_vec_, top_a);
  b.SetUp(this->bottom_vec_, top_b);
  // kernel_dim * group x output spatial.
  EXPECT_EQ(a.WorkspaceBytes(), sizeof(Dtype) * 4 * 9 * 6 * 5);
  EXPECT_EQ(b.WorkspaceBytes(), sizeof(Dtype) * 4 * 4 * 3 * 2);
  EXPECT_EQ(a.InternalBytes(), 0u);
  b.Forward(this->bottom_vec_, top_b);
  EXPECT_EQ(ConvolutionLayer<Dtype>::ColBufferBytes(), b.WorkspaceBytes());
  a.Forward(this->bottom_vec_, top_a);
  b.Forward(this->bottom_vec_, top_b);
  EXPECT_EQ(ConvolutionLayer<Dtype>::ColBufferBytes(), a.WorkspaceBytes());
  // Sharing the buffer does not disturb results.
  vector<int> shape;
  vector<Dtype> ref = RefConv(*this->bottom_, *a.blobs()[0],
                              a.blobs()[1].get(), 1, {1, 1}, {1, 1}, {1, 1},
                              &shape);
  for (int i = 0; i < ta.count(); ++i)
    EXPECT_NEAR(ref[i], ta.cpu_data()[i], 1e-4);
}

TYPED_TEST(ConvolutionLayerTest, Gradient) {
  typedef TypeParam Dtype;
  this->bottom_->Reshape(vector<int>{2, 2, 5, 4});
  FillGaussian(this->bottom_.get());
  this->bottom2_->Reshape(vector<int>{2, 2, 5, 4});
  FillGaussian(this->bottom2_.get());
  this->bottom_vec_.push_back(this->bottom2_.get());
  this->top_vec_.push_back(this->top2_.get());
  LayerParameter p = this->MakeParam(2, 3, 2, 1);
  ConvolutionLayer<Dtype> layer(p);
  GradientChecker<Dtype> checker(1e-2, 1e-3);
  checker.CheckGradientExhaustive(&layer, this->bottom_vec_, this->top_vec_);
}

TYPED_TEST(ConvolutionLayerTest, GradientGroupDilation) {
  typedef TypeParam Dtype;
  this->bottom_->Reshape(vector<int>{1, 4, 6, 5});
  FillGaussian(this->bottom_.get());
  LayerParameter p = this->MakeParam(4, 2, 1, 1);
  p.mutable_convolution_param()->set_group(2);
  p.mutable_convolution_param()->add_dilation(2);
  ConvolutionLayer<Dtype> layer(p);
  GradientChecker<Dtype> checker(1e-2, 1e-3);
  checker.CheckGradientExhaustive(&layer, this->bottom_vec_, this->top_vec_);
}

TYPED_TEST(ConvolutionLayerTest, Gradient1x1NoBias) {
  typedef TypeParam Dtype;
  this->bottom_->Reshape(vector<int>{2, 3, 3, 2});
  FillGaussian(this->bottom_.get());
  LayerParameter p = this->MakeParam(2, 1, 1, 0);
  p.mutable_convolution_param()->set_bias_term(false);
  ConvolutionLayer<Dtype> layer(p);
  GradientChecker<Dtype> checker(1e-2, 1e-3);
  checker.CheckGradientExhaustive(&layer, this->bottom_vec_, this->top_vec_);
}

TYPED_TEST(ConvolutionLayerTest, Gradient3D) {
  typedef TypeParam Dtype;
  this->bottom_->Reshape(vector<int>{1, 2, 3, 4, 3});
  FillGaussian(this->bottom_.get());
  LayerParameter p = this->MakeParam(2, 2, 1, 1);
  p.mutable_convolution_param()->clear_stride();
  for (int s : {2, 1, 1}) p.mutable_convolution_param()->add_stride(s);
  ConvolutionLayer<Dtype> layer(p);
  GradientChecker<Dtype> checker(1e-2, 1e-3);
  checker.CheckGradientExhaustive(&layer, this->bottom_vec_, this->top_vec_);
}

TYPED_TEST(ConvolutionLayerTest, BackwardReadsDeclaration) {
  typedef TypeParam Dtype;
  LayerParameter p = this->MakeParam(4, 3, 2, 1);
  p.mutable_convolution_param()->set_group(2);
  ConvolutionLayer<Dtype> layer(p);
  layer.SetUp(this->bottom_vec_, this->top_vec_);
  contract_test::CheckBackwardReads<Dtype>(&layer,
      this->bottom_vec_, this->top_vec_);
}

// Without a weight gradient the input data is not needed at all.
TYPED_TEST(ConvolutionLayerTest, FrozenWeightsDoNotReadBottom) {
  typedef TypeParam Dtype;
  LayerParameter p = this->MakeParam(2, 3, 1, 1);
  ConvolutionLayer<Dtype> layer(p);
  layer.SetUp(this->bottom_vec_, this->top_vec_);
  layer.set_param_propagate_down(0, false);
  layer.Forward(this->bottom_vec_, this->top_vec_);
  FillGaussian(this->top_.get());
  caffe_copy(this->top_->count(), this->top_->cpu_data(),
             this->top_->mutable_cpu_diff());
  layer.Backward(this->top_vec_, {true}, this->bottom_vec_);
  vector<Dtype> ref(this->bottom_->cpu_diff(),
                    this->bottom_->cpu_diff() + this->bottom_->count());
  caffe_set(this->bottom_->count(), std::numeric_limits<Dtype>::quiet_NaN(),
            this->bottom_->mutable_cpu_data());
  layer.Backward(this->top_vec_, {true}, this->bottom_vec_);
  for (int i = 0; i < this->bottom_->count(); ++i)
    EXPECT_EQ(ref[i], this->bottom_->cpu_diff()[i]);
}

TYPED_TEST(ConvolutionLayerTest, BadParamsThrow) {
  typedef TypeParam Dtype;
  auto fails = [&](const LayerParameter& p) {
    ConvolutionLayer<Dtype> layer(p);
    EXPECT_THROW(layer.SetUp(this->bottom_vec_, this->top_vec_), caffe::Error)
        << p.DebugString();
  };
  LayerParameter p = this->MakeParam(0, 3, 1, 0);  // num_output 0
  fails(p);
  p = this->MakeParam(4, 3, 1, 0);
  p.mutable_convolution_param()->set_group(3);  // 4 channels
  fails(p);
  p = this->MakeParam(3, 3, 1, 0);
  p.mutable_convolution_param()->set_group(2);  // 3 outputs
  fails(p);
  p = this->MakeParam(2, 3, 1, 0);
  p.mutable_convolution_param()->set_kernel_h(3);  // both forms
  p.mutable_convolution_param()->set_kernel_w(3);
  fails(p);
  p = this->MakeParam(2, 3, 1, 0);
  for (int i = 0; i < 2; ++i) p.mutable_convolution_param()->add_kernel_size(3);
  fails(p);  // 3 kernel sizes for 2 spatial axes
  p = this->MakeParam(2, 0, 1, 0);  // zero kernel
  fails(p);
  p = this->MakeParam(2, 9, 1, 0);  // kernel larger than the input
  fails(p);
  p = this->MakeParam(2, 3, 1, 0);
  p.mutable_convolution_param()->add_stride(0);
  fails(p);
  p = this->MakeParam(2, 3, 1, 0);
  p.mutable_convolution_param()->mutable_weight_filler()->set_type("nope");
  fails(p);
  // kernel_h/w on a 3-D input.
  this->bottom_->Reshape(vector<int>{1, 4, 3, 3, 3});
  p = LayerParameter();
  p.mutable_convolution_param()->set_num_output(2);
  p.mutable_convolution_param()->set_kernel_h(2);
  p.mutable_convolution_param()->set_kernel_w(2);
  fails(p);
  // The input may not change its channel count after setup.
  this->bottom_->Reshape(vector<int>{2, 4, 6, 5});
  p = this->MakeParam(2, 3, 1, 0);
  ConvolutionLayer<Dtype> layer(p);
  layer.SetUp(this->bottom_vec_, this->top_vec_);
  this->bottom_->Reshape(vector<int>{2, 3, 6, 5});
  EXPECT_THROW(layer.Forward(this->bottom_vec_, this->top_vec_), caffe::Error);
  // All bottoms must share one shape.
  this->bottom_->Reshape(vector<int>{2, 4, 6, 5});
  this->bottom2_->Reshape(vector<int>{2, 4, 5, 5});
  this->bottom_vec_.push_back(this->bottom2_.get());
  this->top_vec_.push_back(this->top2_.get());
  fails(this->MakeParam(2, 3, 1, 0));
}

}  // namespace caffe
