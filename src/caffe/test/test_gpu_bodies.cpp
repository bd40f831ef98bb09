// The GPU kernel bodies, run on the CPU: each functor a .cu file launches
// (im2col_kernels.hpp, pooling_kernels.hpp, lrn_kernels.hpp) is run here by
// ForEach over the same index space and compared with the CPU code it
// stands in for, so the code the GPU runs is tested on every machine, GPU
// or not.  (test_all is built with -ffp-contract=off as the library is.)
//
// im2col, the bias add, max pooling's forward and LRN copy, compare or
// compute values in the CPU's order: equal exactly.  col2im, the bias sum and the pooling gradients add in
// another order than the CPU loops: double, within 1e-12.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "../layers/lrn_kernels.hpp"
#include "../layers/pooling_kernels.hpp"
#include "caffe/caffe.hpp"
#include "caffe/util/channel_sums.hpp"
#include "caffe/util/elementwise.hpp"
#include "caffe/util/im2col.hpp"
#include "caffe/util/im2col_kernels.hpp"
#include "caffe/util/math_functions.hpp"

namespace caffe {
namespace {

int OutDim(int in, int k, int p, int s, int d) {
  return (in + 2 * p - (d * (k - 1) + 1)) / s + 1;
}

std::vector<double> Gaussian(int n, unsigned int seed) {
  Caffe::set_random_seed(seed);
  std::vector<double> v(n);
  caffe_rng_gaussian<double>(n, 0.0, 1.0, v.data());
  return v;
}

struct ConvCase { int C, H, W, kh, kw, ph, pw, sh, sw, dh, dw; };
const ConvCase kConvCases[] = {
    {2, 5, 6, 3, 3, 1, 1, 1, 1, 1, 1}, {3, 7, 5, 3, 2, 2, 0, 2, 1, 1, 1},
    {1, 9, 8, 3, 3, 2, 1, 1, 2, 2, 3}, {2, 4, 4, 1, 1, 0, 0, 2, 2, 1, 1},
    {1, 3, 4, 5, 5, 2, 2, 3, 3, 1, 1}, {4, 11, 13, 5, 3, 2, 1, 3, 2, 1, 2},
};

ConvGeometry Geometry(const ConvCase& c) {
  const int im[] = {c.H, c.W};
  const int col[] = {OutDim(c.H, c.kh, c.ph, c.sh, c.dh),
                     OutDim(c.W, c.kw, c.pw, c.sw, c.dw)};
  const int kernel[] = {c.kh, c.kw}, pad[] = {c.ph, c.pw};
  const int stride[] = {c.sh, c.sw}, dilation[] = {c.dh, c.dw};
  return MakeConvGeometry(c.C, im, col, kernel, pad, stride, dilation);
}

TEST(GpuBodiesTest, Im2ColBodyEqualsIm2colCpu) {
  for (const ConvCase& c : kConvCases) {
    const ConvGeometry g = Geometry(c);
    const std::vector<double> im = Gaussian(c.C * c.H * c.W, 3);
    const size_t cols = static_cast<size_t>(c.C) * c.kh * c.kw *
                        g.height_col * g.width_col;
    std::vector<double> expected(cols, -1), actual(cols, -2);
    im2col_cpu(im.data(), c.C, c.H, c.W, c.kh, c.kw, c.ph, c.pw, c.sh, c.sw,
               c.dh, c.dw, expected.data());
    ForEach(static_cast<long>(c.C) * g.height_col * g.width_col, 1,
            Im2ColBody<double>{im.data(), actual.data(), g});
    EXPECT_EQ(expected, actual) << "C=" << c.C << " H=" << c.H;
  }
}

TEST(GpuBodiesTest, Col2ImBodyMatchesCol2imCpu) {
  for (const ConvCase& c : kConvCases) {
    const ConvGeometry g = Geometry(c);
    const int cols = c.C * c.kh * c.kw * g.height_col * g.width_col;
    const std::vector<double> col = Gaussian(cols, 4);
    std::vector<double> expected(c.C * c.H * c.W, -1), actual(expected.size(), -2);
    col2im_cpu(col.data(), c.C, c.H, c.W, c.kh, c.kw, c.ph, c.pw, c.sh, c.sw,
               c.dh, c.dw, expected.data());
    ForEach(static_cast<long>(actual.size()), 1,
            Col2ImBody<double>{col.data(), actual.data(), g});
    for (size_t i = 0; i < actual.size(); ++i)
      ASSERT_NEAR(actual[i], expected[i], 1e-12) << "element " << i;
  }
}

// The N-D bodies (which im2col_nd_cpu runs, and the GPU) with two axes
// give the 2-D CPU loop's bits: im2col is a copy, and col2im adds each
// pixel's entries in kernel-offset order, as that loop does.
TEST(GpuBodiesTest, NdBodiesWithTwoAxesEqualThe2dLoop) {
  for (const ConvCase& c : kConvCases) {
    const ConvGeometry g = Geometry(c);
    const int im_shape[] = {c.C, c.H, c.W};
    const int col_shape[] = {c.C * c.kh * c.kw, g.height_col, g.width_col};
    const int kernel[] = {c.kh, c.kw}, pad[] = {c.ph, c.pw};
    const int stride[] = {c.sh, c.sw}, dilation[] = {c.dh, c.dw};
    const std::vector<double> im = Gaussian(c.C * c.H * c.W, 7);
    const size_t cols =
        static_cast<size_t>(col_shape[0]) * g.height_col * g.width_col;
    std::vector<double> expected(cols, -1), actual(cols, -2);
    im2col_cpu(im.data(), c.C, c.H, c.W, c.kh, c.kw, c.ph, c.pw, c.sh, c.sw,
               c.dh, c.dw, expected.data());
    im2col_nd_cpu(im.data(), 2, im_shape, col_shape, kernel, pad, stride,
                  dilation, actual.data());
    EXPECT_EQ(expected, actual) << "C=" << c.C << " H=" << c.H;
    const std::vector<double> col = Gaussian(static_cast<int>(cols), 8);
    std::vector<double> image(im.size(), -1), image_nd(im.size(), -2);
    col2im_cpu(col.data(), c.C, c.H, c.W, c.kh, c.kw, c.ph, c.pw, c.sh, c.sw,
               c.dh, c.dw, image.data());
    col2im_nd_cpu(col.data(), 2, im_shape, col_shape, kernel, pad, stride,
                  dilation, image_nd.data());
    EXPECT_EQ(image, image_nd) << "C=" << c.C << " H=" << c.H;
  }
}

// Against plain loops over (channel, kernel offset, output position), in
// three and one spatial axes.
TEST(GpuBodiesTest, NdBodiesEqualPlainLoops) {
  struct NdCase {
    int axes, channels;
    int size[3], kernel[3], pad[3], stride[3], dilation[3];
  };
  const NdCase cases[] = {
      {3, 2, {5, 6, 4}, {3, 2, 2}, {1, 0, 1}, {2, 1, 1}, {1, 2, 1}},
      {3, 1, {4, 4, 7}, {2, 3, 3}, {0, 2, 1}, {1, 2, 3}, {2, 1, 2}},
      {1, 3, {11, 0, 0}, {3, 0, 0}, {2, 0, 0}, {2, 0, 0}, {3, 0, 0}},
  };
  for (const NdCase& c : cases) {
    int im_shape[4] = {c.channels}, col_shape[4] = {c.channels};
    long im_spatial = 1, col_spatial = 1, kernel_size = 1;
    for (int d = 0; d < c.axes; ++d) {
      im_shape[d + 1] = c.size[d];
      col_shape[d + 1] =
          OutDim(c.size[d], c.kernel[d], c.pad[d], c.stride[d], c.dilation[d]);
      col_shape[0] *= c.kernel[d];
      im_spatial *= im_shape[d + 1];
      col_spatial *= col_shape[d + 1];
      kernel_size *= c.kernel[d];
    }
    const std::vector<double> im =
        Gaussian(static_cast<int>(c.channels * im_spatial), 9);
    std::vector<double> expected_col(col_shape[0] * col_spatial, 0);
    std::vector<double> col_in = Gaussian(static_cast<int>(expected_col.size()), 10);
    std::vector<double> expected_im(im.size(), 0);
    for (int ch = 0; ch < c.channels; ++ch) {
      for (long k = 0; k < kernel_size; ++k) {
        for (long o = 0; o < col_spatial; ++o) {
          long kr = k, orest = o, index = 0;
          bool inside = true;
          int koff[3], opos[3];
          for (int d = c.axes - 1; d >= 0; --d) {
            koff[d] = static_cast<int>(kr % c.kernel[d]);
            kr /= c.kernel[d];
            opos[d] = static_cast<int>(orest % col_shape[d + 1]);
            orest /= col_shape[d + 1];
          }
          for (int d = 0; d < c.axes; ++d) {
            const int p = opos[d] * c.stride[d] - c.pad[d] +
                          koff[d] * c.dilation[d];
            inside = inside && p >= 0 && p < c.size[d];
            index = index * c.size[d] + p;
          }
          const long at = (ch * kernel_size + k) * col_spatial + o;
          expected_col[at] = inside ? im[ch * im_spatial + index] : 0.0;
          if (inside) expected_im[ch * im_spatial + index] += col_in[at];
        }
      }
    }
    std::vector<double> col(expected_col.size(), -1), image(im.size(), -1);
    im2col_nd_cpu(im.data(), c.axes, im_shape, col_shape, c.kernel, c.pad,
                  c.stride, c.dilation, col.data());
    col2im_nd_cpu(col_in.data(), c.axes, im_shape, col_shape, c.kernel,
                  c.pad, c.stride, c.dilation, image.data());
    EXPECT_EQ(expected_col, col) << c.axes << " axes";
    EXPECT_EQ(expected_im, image) << c.axes << " axes";
  }
}

TEST(GpuBodiesTest, NdGeometryRefusesMoreThanTenAxes) {
  std::vector<int> ones(12, 1), zeros(12, 0);
  EXPECT_THROW(MakeConvGeometryNd(11, ones.data(), ones.data(), ones.data(),
                                  zeros.data(), ones.data(), ones.data()),
               Error);
  EXPECT_NO_THROW(MakeConvGeometryNd(10, ones.data(), ones.data(),
                                     ones.data(), zeros.data(), ones.data(),
                                     ones.data()));
}

TEST(GpuBodiesTest, ChannelBiasAddAndSumMatchLoops) {
  const int outer = 3, channels = 4, inner = 5;
  std::vector<double> y = Gaussian(outer * channels * inner, 5);
  const std::vector<double> bias = Gaussian(channels, 6);
  std::vector<double> expected = y;
  for (int n = 0; n < outer; ++n)
    for (int c = 0; c < channels; ++c)
      for (int i = 0; i < inner; ++i)
        expected[(n * channels + c) * inner + i] += bias[c];
  ForEach(static_cast<long>(y.size()), 1,
          ChannelBiasAdd<double>{y.data(), bias.data(), channels, inner});
  EXPECT_EQ(expected, y);
  std::vector<double> sum(channels, 1.0), loop(channels, 1.0);
  for (int c = 0; c < channels; ++c)
    for (int n = 0; n < outer; ++n)
      for (int i = 0; i < inner; ++i) loop[c] += y[(n * channels + c) * inner + i];
  ForEach(channels, 1,
          ChannelSum<double, ValueTerm<double> >{sum.data(), outer, channels,
                                                 inner,
                                                 ValueTerm<double>{y.data()}});
  for (int c = 0; c < channels; ++c) EXPECT_NEAR(sum[c], loop[c], 1e-12);
}

struct PoolCase { int H, W, k, s, p; const char* method; };
const PoolCase kPoolCases[] = {
    {7, 8, 3, 2, 0, "MAX"}, {6, 6, 3, 2, 1, "MAX"}, {5, 7, 2, 2, 1, "MAX"},
    {7, 8, 3, 2, 1, "AVE"}, {5, 5, 5, 1, 0, "AVE"}, {9, 6, 3, 3, 2, "AVE"},
};

// The pooling bodies against PoolingLayer<double>'s CPU loops (double
// never takes the oneDNN engine).
// gpu_axpby's body computes what caffe_cpu_axpby (BLAS) computes, and
// like it never reads y when b is 0: a y full of NaN (what mem_param's
// check mode leaves in a dead buffer) must not turn into NaN.  The GPU's
// body once read it, and an LSTM net trained with check mode got a NaN
// loss on the GPU only (EuclideanLoss's backward).
TEST(GpuBodiesTest, AxpbyBodyReadsAsBlasDoes) {
  const std::vector<double> x = Gaussian(37, 5);
  const std::vector<double> y0 = Gaussian(37, 6);
  const double nan = std::nan("");
  const struct { double a, b; bool nan_y, nan_x; } cases[] = {
      {0.5, 0.0, true, false}, {0.0, 0.0, true, true}, {0.0, 1.5, false, true},
      {-2.0, 0.25, false, false}, {1.0, 1.0, false, false}};
  for (const auto& c : cases) {
    std::vector<double> xin = x, expected = y0, actual = y0;
    if (c.nan_x) xin.assign(x.size(), nan);
    if (c.nan_y) expected.assign(y0.size(), nan), actual = expected;
    caffe_cpu_axpby<double>(37, c.a, xin.data(), c.b, expected.data());
    ForEach(37, 1, Axpby<double>{xin.data(), actual.data(), c.a, c.b});
    for (int i = 0; i < 37; ++i) {
      ASSERT_FALSE(std::isnan(actual[i])) << c.a << " " << c.b << " " << i;
      EXPECT_EQ(expected[i], actual[i]) << c.a << " " << c.b << " " << i;
    }
  }
}

TEST(GpuBodiesTest, PoolingBodiesMatchThePoolingLayer) {
  for (const PoolCase& c : kPoolCases) {
    const bool max = std::string(c.method) == "MAX";
    LayerParameter param;
    param.set_name("pool");
    param.set_type("Pooling");
    PoolingParameter* pp = param.mutable_pooling_param();
    pp->set_pool(max ? PoolingParameter_PoolMethod_MAX
                     : PoolingParameter_PoolMethod_AVE);
    pp->set_kernel_size(c.k);
    pp->set_stride(c.s);
    pp->set_pad(c.p);
    const int N = 2, C = 3;
    Blob<double> bottom(N, C, c.H, c.W), top;
    const std::vector<double> x = Gaussian(bottom.count(), 7);
    std::copy(x.begin(), x.end(), bottom.mutable_cpu_data());
    std::vector<Blob<double>*> bottoms{&bottom}, tops{&top};
    std::shared_ptr<Layer<double> > layer =
        LayerRegistry<double>::CreateLayer(param);
    layer->SetUp(bottoms, tops);
    layer->Forward(bottoms, tops);
    const std::vector<double> dy = Gaussian(top.count(), 8);
    std::copy(dy.begin(), dy.end(), top.mutable_cpu_diff());
    layer->Backward(tops, {true}, bottoms);

    const PoolGeometry g{c.H, c.W, top.height(), top.width(), c.k, c.k,
                         c.s, c.s, c.p, c.p};
    std::vector<double> y(top.count(), -7), dx(bottom.count(), -7);
    std::vector<int> mask(top.count(), -9);
    if (max) {
      ForEach(top.count(), 1,
              MaxPoolForward<double>{x.data(), y.data(), mask.data(), g});
      ForEach(bottom.count(), 1,
              MaxPoolBackward<double>{dy.data(), mask.data(), dx.data(), g});
    } else {
      ForEach(top.count(), 1, AvePoolForward<double>{x.data(), y.data(), g});
      ForEach(bottom.count(), 1,
              AvePoolBackward<double>{dy.data(), dx.data(), g});
    }
    for (int i = 0; i < top.count(); ++i) {
      if (max) {
        ASSERT_EQ(y[i], top.cpu_data()[i]) << c.method << " top " << i;
      } else {
        ASSERT_NEAR(y[i], top.cpu_data()[i], 1e-12) << c.method << " top " << i;
      }
    }
    // MAX: the layer scatters per plane from its byte-per-output argmax;
    // the GPU's gather from either argmax form gives the same bits.
    for (int i = 0; i < bottom.count(); ++i) {
      if (max) {
        ASSERT_EQ(dx[i], bottom.cpu_diff()[i]) << "k" << c.k << " s" << c.s
                                               << " p" << c.p << " dx " << i;
      } else {
        ASSERT_NEAR(dx[i], bottom.cpu_diff()[i], 1e-12)
            << c.method << " k" << c.k << " s" << c.s << " p" << c.p
            << " bottom diff " << i;
      }
    }
    if (max) {
      std::vector<uint8_t> offsets(top.count(), 0);
      std::vector<double> y8(top.count(), -7), dx8(bottom.count(), -7);
      ForEach(top.count(), 1,
              MaxPoolForward<double, uint8_t>{x.data(), y8.data(),
                                              offsets.data(), g});
      ForEach(bottom.count(), 1,
              MaxPoolBackward<double, uint8_t>{dy.data(), offsets.data(),
                                               dx8.data(), g});
      EXPECT_EQ(0, memcmp(y8.data(), y.data(), y.size() * sizeof(double)));
      EXPECT_EQ(0, memcmp(dx8.data(), dx.data(), dx.size() * sizeof(double)))
          << "k" << c.k << " s" << c.s << " p" << c.p;
    }
  }
}

// One LRN layer's forward and backward on 2 x C x H x W Gaussian inputs:
// fills x and dy with what went in, top and bottom with what came out.
template <typename Dtype>
void RunLrnLayer(const LRNParameter& lrn, int C, int H, int W,
                 std::vector<Dtype>* x, std::vector<Dtype>* dy,
                 Blob<Dtype>* bottom, Blob<Dtype>* top) {
  LayerParameter param;
  param.set_name("lrn");
  param.set_type("LRN");
  *param.mutable_lrn_param() = lrn;
  bottom->Reshape(2, C, H, W);
  const std::vector<double> xd = Gaussian(bottom->count(), 11);
  x->assign(xd.begin(), xd.end());
  std::copy(x->begin(), x->end(), bottom->mutable_cpu_data());
  std::vector<Blob<Dtype>*> bottoms{bottom}, tops{top};
  std::shared_ptr<Layer<Dtype> > layer =
      LayerRegistry<Dtype>::CreateLayer(param);
  layer->SetUp(bottoms, tops);
  layer->Forward(bottoms, tops);
  const std::vector<double> dyd = Gaussian(top->count(), 12);
  dy->assign(dyd.begin(), dyd.end());
  std::copy(dy->begin(), dy->end(), top->mutable_cpu_diff());
  layer->Backward(tops, {true}, bottoms);
}

// LRN ACROSS_CHANNELS: the bodies do the CPU loops' operations in their
// order, so top and bottom diff are equal bit for bit, in float (where a
// different order would show) as in double, for beta 0.75 (the square
// roots) and another beta (pow), and planes over the CPU's 512-position
// chunk.
template <typename Dtype>
void CheckLrnBodies(int C, int H, int W, int local_size, float beta) {
  LRNParameter params;
  LRNParameter* lp = &params;
  lp->set_local_size(local_size);
  lp->set_alpha(0.3f);
  lp->set_beta(beta);
  lp->set_k(1.5f);
  const int N = 2;
  Blob<Dtype> bottom, top;
  std::vector<Dtype> x, dy;
  RunLrnLayer(params, C, H, W, &x, &dy, &bottom, &top);

  const LrnAcross g{C, static_cast<long>(H) * W, (local_size - 1) / 2};
  const Dtype alpha = lp->alpha(), k = lp->k(), b = lp->beta();
  const Dtype coeff = alpha / local_size;
  std::vector<Dtype> scale(x.size(), -7), y(x.size(), -7), dx(x.size(), -7);
  ForEach(N * g.plane, 1,
          LrnAcrossForward<Dtype>{x.data(), scale.data(), y.data(), g, k,
                                  coeff, NegPow<Dtype>(b)});
  ForEach(N * g.plane, 1,
          LrnAcrossBackward<Dtype>{x.data(), scale.data(), dy.data(),
                                   dx.data(), g, 2 * coeff * b,
                                   NegPow<Dtype>(b)});
  for (size_t i = 0; i < x.size(); ++i) {
    ASSERT_EQ(y[i], top.cpu_data()[i]) << "top " << i << " C" << C;
    ASSERT_EQ(dx[i], bottom.cpu_diff()[i]) << "bottom diff " << i << " C" << C;
  }
}

// LRN WITHIN_CHANNEL: the same, the bodies walking each window row by
// row as the CPU's window sum does (windows clipped at every border).
template <typename Dtype>
void CheckLrnWithinBodies(int C, int H, int W, int local_size, float beta) {
  LRNParameter params;
  LRNParameter* lp = &params;
  lp->set_norm_region(LRNParameter_NormRegion_WITHIN_CHANNEL);
  lp->set_local_size(local_size);
  lp->set_alpha(0.3f);
  lp->set_beta(beta);
  Blob<Dtype> bottom, top;
  std::vector<Dtype> x, dy;
  RunLrnLayer(params, C, H, W, &x, &dy, &bottom, &top);

  const LrnWithin g{H, W, (local_size - 1) / 2};
  const Dtype alpha = lp->alpha(), b = lp->beta();
  const Dtype coeff = alpha / (local_size * local_size);
  std::vector<Dtype> scale(x.size(), -7), y(x.size(), -7), dx(x.size(), -7);
  ForEach(static_cast<long>(x.size()), 1,
          LrnWithinForward<Dtype>{x.data(), scale.data(), y.data(), g, coeff,
                                  NegPow<Dtype>(b)});
  ForEach(static_cast<long>(x.size()), 1,
          LrnWithinBackward<Dtype>{x.data(), scale.data(), dy.data(),
                                   dx.data(), g, 2 * coeff * b, b,
                                   NegPow<Dtype>(b)});
  for (size_t i = 0; i < x.size(); ++i) {
    ASSERT_EQ(y[i], top.cpu_data()[i]) << "top " << i << " HxW " << H << "x"
                                       << W;
    ASSERT_EQ(dx[i], bottom.cpu_diff()[i]) << "bottom diff " << i;
  }
}

TEST(GpuBodiesTest, LrnWithinChannelBodiesEqualTheLayer) {
  for (float beta : {0.75f, 0.6f}) {
    CheckLrnWithinBodies<float>(3, 5, 4, 3, beta);
    CheckLrnWithinBodies<double>(3, 5, 4, 3, beta);
    CheckLrnWithinBodies<float>(2, 7, 9, 5, beta);
    CheckLrnWithinBodies<float>(2, 2, 3, 5, beta);  // window wider than H, W
  }
}

TEST(GpuBodiesTest, LrnAcrossChannelsBodiesEqualTheLayer) {
  for (float beta : {0.75f, 0.6f}) {
    CheckLrnBodies<float>(7, 5, 4, 5, beta);
    CheckLrnBodies<double>(7, 5, 4, 5, beta);
    CheckLrnBodies<float>(3, 30, 20, 3, beta);   // 600 positions: 2 chunks
    CheckLrnBodies<float>(2, 3, 3, 5, beta);     // window wider than C
  }
}

// Without a GPU, asking for a blob's GPU memory is a caffe::Error saying
// why -- never a crash or an abort that would take a Python host along.
TEST(GpuBodiesTest, WithoutAGpuGpuMemoryIsAClearError) {
  std::string why;
  if (Caffe::GpuCount(&why) > 0)
    GTEST_SKIP() << "a GPU is present: test_gpu covers GPU memory";
  Blob<float> blob(std::vector<int>{2, 3});
  blob.mutable_cpu_data()[0] = 1;
  try {
    blob.gpu_data();
    ADD_FAILURE() << "GPU memory handed out without a GPU";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("GPU"), std::string::npos)
        << e.what();
  }
  EXPECT_EQ(blob.cpu_data()[0], 1);  // the CPU copy is untouched
}

}  // namespace
}  // namespace caffe
