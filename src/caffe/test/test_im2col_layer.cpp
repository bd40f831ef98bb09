// Tests for Im2colLayer: output shapes and values against a direct N-D
// gather written here (2-D, rectangular, dilated, forced N-D, 1-D, 3-D and a
// non-default channel axis), gradients, the BackwardReads declaration and
// parameter errors.
#include <gtest/gtest.h>

#include <vector>

#include "caffe/blob.hpp"
#include "caffe/common.hpp"
#include "caffe/layers/im2col_layer.hpp"
#include "caffe/test/test_gradient_check_util.hpp"
#include "caffe/test/test_layer_contract_util.hpp"

namespace caffe {

namespace {

// The expected top for a bottom [outer..., C, S...] with the given per-axis
// geometry; also returns its shape.
template <typename Dtype>
vector<Dtype> ReferenceIm2col(const Blob<Dtype>& bottom, int channel_axis,
                              const vector<int>& kernel,
                              const vector<int>& pad,
                              const vector<int>& stride,
                              const vector<int>& dilation,
                              vector<int>* top_shape) {
  const int ns = static_cast<int>(kernel.size());
  const int outer = bottom.count(0, channel_axis);
  const int C = bottom.shape(channel_axis);
  vector<int> in(ns), out(ns);
  int K = 1, O = 1, I = 1;
  for (int d = 0; d < ns; ++d) {
    in[d] = bottom.shape(channel_axis + 1 + d);
    out[d] = (in[d] + 2 * pad[d] - (dilation[d] * (kernel[d] - 1) + 1)) /
                 stride[d] + 1;
    K *= kernel[d];
    O *= out[d];
    I *= in[d];
  }
  *top_shape = bottom.shape();
  (*top_shape)[channel_axis] = C * K;
  for (int d = 0; d < ns; ++d) (*top_shape)[channel_axis + 1 + d] = out[d];
  vector<Dtype> top(static_cast<size_t>(outer) * C * K * O);
  const Dtype* x = bottom.cpu_data();
  for (int n = 0; n < outer; ++n)
    for (int c = 0; c < C; ++c)
      for (int k = 0; k < K; ++k)
        for (int o = 0; o < O; ++o) {
          // Unravel k and o (row-major), then find the input position.
          int kr = k, orr = o, offset = 0;
          bool inside = true;
          vector<int> kk(ns), oo(ns);
          for (int d = ns - 1; d >= 0; --d) {
            kk[d] = kr % kernel[d];
            kr /= kernel[d];
            oo[d] = orr % out[d];
            orr /= out[d];
          }
          for (int d = 0; d < ns; ++d) {
            const int pos = oo[d] * stride[d] - pad[d] + kk[d] * dilation[d];
            inside = inside && pos >= 0 && pos < in[d];
            offset = offset * in[d] + pos;
          }
          top[((static_cast<size_t>(n) * C + c) * K + k) * O + o] =
              inside ? x[(static_cast<size_t>(n) * C + c) * I + offset]
                     : Dtype(0);
        }
  return top;
}

}  // namespace

template <typename Dtype>
class Im2colLayerTest : public ::testing::Test {
 protected:
  Im2colLayerTest() : bottom_(vector<int>{2, 3, 6, 5}) {
    Caffe::set_random_seed(1701);
    Fill();
    bottom_vec_.push_back(&bottom_);
    top_vec_.push_back(&top_);
  }
  void Fill() {
    caffe_rng_gaussian<Dtype>(bottom_.count(), Dtype(0), Dtype(1),
                              bottom_.mutable_cpu_data());
  }
  LayerParameter Param() {
    LayerParameter p;
    p.set_name("im2col");
    p.set_type("Im2col");
    return p;
  }
  void CheckForward(const LayerParameter& p, int channel_axis,
                    const vector<int>& kernel, const vector<int>& pad,
                    const vector<int>& stride, const vector<int>& dilation) {
    Im2colLayer<Dtype> layer(p);
    layer.SetUp(bottom_vec_, top_vec_);
    layer.Forward(bottom_vec_, top_vec_);
    vector<int> want_shape;
    const vector<Dtype> want = ReferenceIm2col(
        bottom_, channel_axis, kernel, pad, stride, dilation, &want_shape);
    ASSERT_EQ(want_shape, top_.shape());
    for (int i = 0; i < top_.count(); ++i)
      EXPECT_EQ(want[i], top_.cpu_data()[i]) << "index " << i;
  }
  Blob<Dtype> bottom_, top_;
  vector<Blob<Dtype>*> bottom_vec_, top_vec_;
};

TYPED_TEST_SUITE(Im2colLayerTest, TestDtypes);

TYPED_TEST(Im2colLayerTest, Forward2D) {
  LayerParameter p = this->Param();
  ConvolutionParameter* cp = p.mutable_convolution_param();
  cp->add_kernel_size(3);
  cp->add_stride(2);
  cp->add_pad(1);
  this->CheckForward(p, 1, {3, 3}, {1, 1}, {2, 2}, {1, 1});
  EXPECT_EQ((vector<int>{2, 27, 3, 3}), this->top_.shape());
}

TYPED_TEST(Im2colLayerTest, ForwardRectangular) {
  LayerParameter p = this->Param();
  ConvolutionParameter* cp = p.mutable_convolution_param();
  cp->set_kernel_h(3);
  cp->set_kernel_w(2);
  cp->set_stride_h(1);
  cp->set_stride_w(2);
  cp->set_pad_h(0);
  cp->set_pad_w(1);
  this->CheckForward(p, 1, {3, 2}, {0, 1}, {1, 2}, {1, 1});
}

TYPED_TEST(Im2colLayerTest, ForwardDilatedAndPerAxis) {
  LayerParameter p = this->Param();
  ConvolutionParameter* cp = p.mutable_convolution_param();
  cp->add_kernel_size(2);
  cp->add_kernel_size(3);
  cp->add_dilation(2);
  cp->add_pad(1);
  cp->add_pad(0);
  this->CheckForward(p, 1, {2, 3}, {1, 0}, {1, 1}, {2, 2});
}

TYPED_TEST(Im2colLayerTest, ForwardForcedND) {
  LayerParameter p = this->Param();
  ConvolutionParameter* cp = p.mutable_convolution_param();
  cp->add_kernel_size(3);
  cp->add_stride(2);
  cp->add_pad(1);
  cp->add_dilation(1);
  cp->set_force_nd_im2col(true);
  this->CheckForward(p, 1, {3, 3}, {1, 1}, {2, 2}, {1, 1});
}

TYPED_TEST(Im2colLayerTest, Forward1DAnd3D) {
  {
    this->bottom_.Reshape(vector<int>{2, 3, 7});
    this->Fill();
    LayerParameter p = this->Param();
    p.mutable_convolution_param()->add_kernel_size(3);
    p.mutable_convolution_param()->add_stride(2);
    this->CheckForward(p, 1, {3}, {0}, {2}, {1});
  }
  {
    this->bottom_.Reshape(vector<int>{2, 2, 4, 3, 5});
    this->Fill();
    LayerParameter p = this->Param();
    ConvolutionParameter* cp = p.mutable_convolution_param();
    cp->add_kernel_size(2);
    cp->add_kernel_size(2);
    cp->add_kernel_size(3);
    cp->add_pad(1);
    cp->add_stride(1);
    cp->add_stride(2);
    cp->add_stride(1);
    this->CheckForward(p, 1, {2, 2, 3}, {1, 1, 1}, {1, 2, 1}, {1, 1, 1});
  }
}

TYPED_TEST(Im2colLayerTest, ForwardChannelAxis) {
  // axis 2: the first two axes are both batch axes.
  this->bottom_.Reshape(vector<int>{2, 2, 3, 5, 4});
  this->Fill();
  LayerParameter p = this->Param();
  p.mutable_convolution_param()->set_axis(2);
  p.mutable_convolution_param()->add_kernel_size(2);
  this->CheckForward(p, 2, {2, 2}, {0, 0}, {1, 1}, {1, 1});
}

TYPED_TEST(Im2colLayerTest, Gradient) {
  typedef TypeParam Dtype;
  {
    LayerParameter p = this->Param();
    p.mutable_convolution_param()->add_kernel_size(3);
    p.mutable_convolution_param()->add_stride(2);
    p.mutable_convolution_param()->add_pad(1);
    Im2colLayer<Dtype> layer(p);
    GradientChecker<Dtype> checker(1e-2, 1e-3);
    checker.CheckGradientExhaustive(&layer, this->bottom_vec_,
                                    this->top_vec_);
  }
  {
    LayerParameter p = this->Param();
    p.mutable_convolution_param()->add_kernel_size(2);
    p.mutable_convolution_param()->add_dilation(2);
    p.mutable_convolution_param()->add_pad(1);
    p.mutable_convolution_param()->set_force_nd_im2col(true);
    Im2colLayer<Dtype> layer(p);
    GradientChecker<Dtype> checker(1e-2, 1e-3);
    checker.CheckGradientExhaustive(&layer, this->bottom_vec_,
                                    this->top_vec_);
  }
}

TYPED_TEST(Im2colLayerTest, BackwardReads) {
  typedef TypeParam Dtype;
  for (bool nd : {false, true}) {
    LayerParameter p = this->Param();
    p.mutable_convolution_param()->add_kernel_size(3);
    p.mutable_convolution_param()->add_pad(1);
    p.mutable_convolution_param()->set_force_nd_im2col(nd);
    Im2colLayer<Dtype> layer(p);
    EXPECT_EQ(kReadsNothing, layer.Memory().backward_reads);
    EXPECT_FALSE(layer.Memory().in_place);
    layer.SetUp(this->bottom_vec_, this->top_vec_);
    contract_test::CheckBackwardReads<Dtype>(&layer, this->bottom_vec_,
                                             this->top_vec_);
  }
}

TYPED_TEST(Im2colLayerTest, BadParams) {
  typedef TypeParam Dtype;
  auto expect_throw = [this](const LayerParameter& p, const char* why) {
    Im2colLayer<Dtype> layer(p);
    EXPECT_THROW(layer.SetUp(this->bottom_vec_, this->top_vec_), Error)
        << why;
  };
  expect_throw(this->Param(), "no kernel");
  {
    LayerParameter p = this->Param();
    p.mutable_convolution_param()->set_kernel_h(2);
    expect_throw(p, "kernel_h without kernel_w");
  }
  {
    LayerParameter p = this->Param();
    p.mutable_convolution_param()->add_kernel_size(0);
    expect_throw(p, "zero kernel");
  }
  {
    LayerParameter p = this->Param();
    for (int i = 0; i < 3; ++i) p.mutable_convolution_param()->add_kernel_size(2);
    expect_throw(p, "three kernel sizes for two spatial axes");
  }
  {
    LayerParameter p = this->Param();
    p.mutable_convolution_param()->add_kernel_size(2);
    p.mutable_convolution_param()->add_stride(0);
    expect_throw(p, "zero stride");
  }
  {
    LayerParameter p = this->Param();
    p.mutable_convolution_param()->add_kernel_size(7);
    expect_throw(p, "kernel larger than the 6 x 5 input");
  }
  {
    LayerParameter p = this->Param();
    p.mutable_convolution_param()->add_kernel_size(2);
    p.mutable_convolution_param()->set_axis(3);
    expect_throw(p, "no spatial axis after the channel axis");
  }
}

}  // namespace caffe
