// Tests for DeconvolutionLayer: forward against a direct scatter
// formulation, finite-difference gradients, the BackwardReads declaration
// and parameter errors.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <vector>

#include "caffe/blob.hpp"
#include "caffe/common.hpp"
#include "caffe/filler.hpp"
#include "caffe/layers/deconv_layer.hpp"
#include "caffe/test/conv_test_util.hpp"
#include "caffe/test/test_gradient_check_util.hpp"
#include "caffe/test/test_layer_contract_util.hpp"
#include "caffe/util/math_functions.hpp"

namespace caffe {
namespace {

using conv_test::Prod;
using conv_test::Unflatten;

// Direct transposed convolution of in (N x C x S...) with w
// (C x O/g x K...): every input value scatters w-weighted copies of itself
// onto out[n, o, p*s - pad + k*d].
template <typename Dtype>
vector<Dtype> RefDeconv(const Blob<Dtype>& in, const Blob<Dtype>& w,
                        const Blob<Dtype>* bias, int group,
                        const vector<int>& pad, const vector<int>& stride,
                        const vector<int>& dil, vector<int>* out_shape) {
  const int N = in.shape(0), C = in.shape(1);
  const int og = w.shape(1), O = og * group, cg = C / group;
  const int ns = in.num_axes() - 2;
  vector<int> in_sp(in.shape().begin() + 2, in.shape().end());
  vector<int> k_sp(w.shape().begin() + 2, w.shape().end());
  vector<int> out_sp(ns);
  for (int a = 0; a < ns; ++a)
    out_sp[a] = stride[a] * (in_sp[a] - 1) + dil[a] * (k_sp[a] - 1) + 1 -
                2 * pad[a];
  *out_shape = {N, O};
  out_shape->insert(out_shape->end(), out_sp.begin(), out_sp.end());
  const int in_sz = Prod(in_sp), out_sz = Prod(out_sp), k_sz = Prod(k_sp);
  vector<Dtype> out(N * O * out_sz, Dtype(0));
  const Dtype* x = in.cpu_data();
  const Dtype* wd = w.cpu_data();
  for (int n = 0; n < N; ++n)
    for (int c = 0; c < C; ++c) {
      const int g = c / cg;
      for (int p = 0; p < in_sz; ++p) {
        const vector<int> ip = Unflatten(p, in_sp);
        const Dtype v = x[(n * C + c) * in_sz + p];
        for (int ol = 0; ol < og; ++ol)
          for (int k = 0; k < k_sz; ++k) {
            const vector<int> kp = Unflatten(k, k_sp);
            int flat = 0;
            bool inside = true;
            for (int a = 0; a < ns; ++a) {
              const int q = ip[a] * stride[a] - pad[a] + kp[a] * dil[a];
              if (q < 0 || q >= out_sp[a]) inside = false;
              flat = flat * out_sp[a] + q;
            }
            if (!inside) continue;
            out[(n * O + g * og + ol) * out_sz + flat] +=
                v * wd[(c * og + ol) * k_sz + k];
          }
      }
    }
  if (bias)
    for (int n = 0; n < N; ++n)
      for (int o = 0; o < O; ++o)
        for (int p = 0; p < out_sz; ++p)
          out[(n * O + o) * out_sz + p] += bias->cpu_data()[o];
  return out;
}

}  // namespace

template <typename Dtype>
class DeconvolutionLayerTest
    : public conv_test::ConvTestFixture<Dtype, DeconvolutionLayer> {
 protected:
  DeconvolutionLayerTest()
      : conv_test::ConvTestFixture<Dtype, DeconvolutionLayer>(
            {2, 4, 3, 4}, "deconv") {}

  // Forward-checks bottom_ through the layer built from p.
  void CheckForward(const LayerParameter& p, int group, vector<int> pad,
                    vector<int> stride, vector<int> dil) {
    this->CheckForwardAgainst(&RefDeconv<Dtype>, p, group, pad, stride, dil);
  }
};

TYPED_TEST_SUITE(DeconvolutionLayerTest, TestDtypes);

TYPED_TEST(DeconvolutionLayerTest, Setup) {
  typedef TypeParam Dtype;
  LayerParameter p = this->MakeParam(6, 3, 2, 1);
  p.mutable_convolution_param()->set_group(2);
  this->bottom_vec_.push_back(this->bottom2_.get());
  this->top_vec_.push_back(this->top2_.get());
  DeconvolutionLayer<Dtype> layer(p);
  layer.SetUp(this->bottom_vec_, this->top_vec_);
  // 2 * (3 - 1) + 3 - 2 = 5, 2 * (4 - 1) + 3 - 2 = 7.
  EXPECT_EQ(this->top_->shape(), (vector<int>{2, 6, 5, 7}));
  EXPECT_EQ(this->top2_->shape(), (vector<int>{2, 6, 5, 7}));
  // Input channels first: C x (num_output / group) x k x k.
  EXPECT_EQ(layer.blobs()[0]->shape(), (vector<int>{4, 3, 3, 3}));
  EXPECT_EQ(layer.blobs()[1]->shape(), (vector<int>{6}));
  EXPECT_STREQ(layer.type(), "Deconvolution");
  EXPECT_EQ(layer.Memory().backward_reads, kReadsBottomData);
  EXPECT_FALSE(layer.Memory().in_place);
  EXPECT_EQ(layer.InternalBytes(), 0u);
  // The column buffer lives in the output (top) space.
  EXPECT_EQ(layer.WorkspaceBytes(), sizeof(Dtype) * 6 * 9 * 3 * 4);
}

TYPED_TEST(DeconvolutionLayerTest, ForwardTwoBottoms) {
  typedef TypeParam Dtype;
  LayerParameter p = this->MakeParam(3, 3, 1, 0);
  this->bottom_vec_.push_back(this->bottom2_.get());
  this->top_vec_.push_back(this->top2_.get());
  DeconvolutionLayer<Dtype> layer(p);
  layer.SetUp(this->bottom_vec_, this->top_vec_);
  layer.Forward(this->bottom_vec_, this->top_vec_);
  vector<int> shape;
  for (int b = 0; b < 2; ++b) {
    vector<Dtype> ref = RefDeconv(*this->bottom_vec_[b], *layer.blobs()[0],
                                  layer.blobs()[1].get(), 1, {0, 0}, {1, 1},
                                  {1, 1}, &shape);
    ASSERT_EQ(shape, this->top_vec_[b]->shape());
    for (int i = 0; i < this->top_vec_[b]->count(); ++i)
      EXPECT_NEAR(ref[i], this->top_vec_[b]->cpu_data()[i], 1e-4);
  }
}

TYPED_TEST(DeconvolutionLayerTest, ForwardStride) {
  this->CheckForward(this->MakeParam(3, 4, 2, 1), 1, {1, 1}, {2, 2}, {1, 1});
}

TYPED_TEST(DeconvolutionLayerTest, ForwardStrideLargerThanKernel) {
  this->CheckForward(this->MakeParam(2, 2, 3, 0), 1, {0, 0}, {3, 3}, {1, 1});
}

TYPED_TEST(DeconvolutionLayerTest, ForwardGroupDilation) {
  LayerParameter p = this->MakeParam(6, 3, 2, 2);
  p.mutable_convolution_param()->set_group(2);
  p.mutable_convolution_param()->add_dilation(2);
  this->CheckForward(p, 2, {2, 2}, {2, 2}, {2, 2});
}

TYPED_TEST(DeconvolutionLayerTest, Forward1x1NoBias) {
  LayerParameter p = this->MakeParam(3, 1, 1, 0);
  p.mutable_convolution_param()->set_bias_term(false);
  this->CheckForward(p, 1, {0, 0}, {1, 1}, {1, 1});
}

TYPED_TEST(DeconvolutionLayerTest, Forward3D) {
  this->bottom_->Reshape(vector<int>{2, 2, 3, 2, 3});
  FillGaussian(this->bottom_.get());
  LayerParameter p;
  p.set_name("deconv3d");
  ConvolutionParameter* cp = p.mutable_convolution_param();
  cp->set_num_output(2);
  for (int k : {2, 3, 2}) cp->add_kernel_size(k);
  for (int s : {2, 1, 2}) cp->add_stride(s);
  for (int d : {0, 1, 1}) cp->add_pad(d);
  cp->mutable_weight_filler()->set_type("gaussian");
  cp->mutable_bias_filler()->set_type("gaussian");
  this->CheckForward(p, 1, {0, 1, 1}, {2, 1, 2}, {1, 1, 1});
}

// Bilinear-filled stride-2 deconvolution upsamples a constant image to a
// constant interior.
TYPED_TEST(DeconvolutionLayerTest, BilinearUpsampling) {
  typedef TypeParam Dtype;
  this->bottom_->Reshape(vector<int>{1, 2, 4, 4});
  caffe_set(this->bottom_->count(), Dtype(1),
            this->bottom_->mutable_cpu_data());
  LayerParameter p = this->MakeParam(2, 4, 2, 1);
  ConvolutionParameter* cp = p.mutable_convolution_param();
  cp->set_group(2);
  cp->set_bias_term(false);
  cp->mutable_weight_filler()->set_type("bilinear");
  DeconvolutionLayer<Dtype> layer(p);
  layer.SetUp(this->bottom_vec_, this->top_vec_);
  layer.Forward(this->bottom_vec_, this->top_vec_);
  EXPECT_EQ(this->top_->shape(), (vector<int>{1, 2, 8, 8}));
  for (int c = 0; c < 2; ++c)
    for (int y = 1; y < 7; ++y)
      for (int x = 1; x < 7; ++x)
        EXPECT_NEAR(this->top_->data_at(0, c, y, x), 1, 1e-5);
}

TYPED_TEST(DeconvolutionLayerTest, Gradient) {
  typedef TypeParam Dtype;
  this->bottom_->Reshape(vector<int>{2, 2, 3, 2});
  FillGaussian(this->bottom_.get());
  this->bottom2_->Reshape(vector<int>{2, 2, 3, 2});
  FillGaussian(this->bottom2_.get());
  this->bottom_vec_.push_back(this->bottom2_.get());
  this->top_vec_.push_back(this->top2_.get());
  DeconvolutionLayer<Dtype> layer(this->MakeParam(2, 3, 2, 1));
  GradientChecker<Dtype> checker(1e-2, 1e-3);
  checker.CheckGradientExhaustive(&layer, this->bottom_vec_, this->top_vec_);
}

TYPED_TEST(DeconvolutionLayerTest, GradientGroupDilation) {
  typedef TypeParam Dtype;
  this->bottom_->Reshape(vector<int>{1, 4, 3, 3});
  FillGaussian(this->bottom_.get());
  LayerParameter p = this->MakeParam(2, 2, 1, 1);
  p.mutable_convolution_param()->set_group(2);
  p.mutable_convolution_param()->add_dilation(2);
  DeconvolutionLayer<Dtype> layer(p);
  GradientChecker<Dtype> checker(1e-2, 1e-3);
  checker.CheckGradientExhaustive(&layer, this->bottom_vec_, this->top_vec_);
}

TYPED_TEST(DeconvolutionLayerTest, Gradient3D) {
  typedef TypeParam Dtype;
  this->bottom_->Reshape(vector<int>{1, 2, 2, 3, 2});
  FillGaussian(this->bottom_.get());
  DeconvolutionLayer<Dtype> layer(this->MakeParam(2, 2, 2, 0));
  GradientChecker<Dtype> checker(1e-2, 1e-3);
  checker.CheckGradientExhaustive(&layer, this->bottom_vec_, this->top_vec_);
}

TYPED_TEST(DeconvolutionLayerTest, BackwardReadsDeclaration) {
  typedef TypeParam Dtype;
  LayerParameter p = this->MakeParam(4, 3, 2, 1);
  p.mutable_convolution_param()->set_group(2);
  DeconvolutionLayer<Dtype> layer(p);
  layer.SetUp(this->bottom_vec_, this->top_vec_);
  contract_test::CheckBackwardReads<Dtype>(&layer,
      this->bottom_vec_, this->top_vec_);
}

TYPED_TEST(DeconvolutionLayerTest, BadParamsThrow) {
  typedef TypeParam Dtype;
  auto fails = [&](const LayerParameter& p) {
    DeconvolutionLayer<Dtype> layer(p);
    EXPECT_THROW(layer.SetUp(this->bottom_vec_, this->top_vec_), caffe::Error)
        << p.DebugString();
  };
  fails(this->MakeParam(0, 3, 1, 0));
  LayerParameter p = this->MakeParam(3, 3, 1, 0);
  p.mutable_convolution_param()->set_group(2);  // 3 outputs
  fails(p);
  p = this->MakeParam(2, 3, 1, 0);
  p.mutable_convolution_param()->set_group(3);  // 4 channels
  fails(p);
  fails(this->MakeParam(2, 1, 1, 2));  // pad eats the whole output
  p = this->MakeParam(2, 3, 1, 0);
  p.mutable_convolution_param()->add_dilation(1);
  p.mutable_convolution_param()->add_dilation(1);
  p.mutable_convolution_param()->add_dilation(1);
  fails(p);  // 3 dilations for 2 spatial axes
}

}  // namespace caffe
