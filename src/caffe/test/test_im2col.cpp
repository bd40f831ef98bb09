// Tests for im2col/col2im (2-D and N-D) against direct definitions.
#include <gtest/gtest.h>

#include <vector>

#include "caffe/common.hpp"
#include "caffe/test/test_gradient_check_util.hpp"
#include "caffe/util/im2col.hpp"
#include "caffe/util/math_functions.hpp"

namespace caffe {
namespace {

int OutDim(int in, int k, int p, int s, int d) {
  return (in + 2 * p - (d * (k - 1) + 1)) / s + 1;
}

template <typename Dtype>
vector<Dtype> RandomVector(int n) {
  vector<Dtype> v(n);
  caffe_rng_gaussian<Dtype>(n, Dtype(0), Dtype(1), v.data());
  return v;
}

// Column matrix straight from its definition.
template <typename Dtype>
vector<Dtype> NaiveIm2col2D(const vector<Dtype>& im, int C, int H, int W,
                            int kh, int kw, int ph, int pw, int sh, int sw,
                            int dh, int dw) {
  const int OH = OutDim(H, kh, ph, sh, dh), OW = OutDim(W, kw, pw, sw, dw);
  vector<Dtype> col(C * kh * kw * OH * OW);
  for (int c = 0; c < C; ++c)
    for (int i = 0; i < kh; ++i)
      for (int j = 0; j < kw; ++j)
        for (int oh = 0; oh < OH; ++oh)
          for (int ow = 0; ow < OW; ++ow) {
            const int y = oh * sh - ph + i * dh, x = ow * sw - pw + j * dw;
            const int row = (c * kh + i) * kw + j;
            col[row * OH * OW + oh * OW + ow] =
                (y >= 0 && y < H && x >= 0 && x < W) ? im[(c * H + y) * W + x]
                                                     : Dtype(0);
          }
  return col;
}

template <typename Dtype>
Dtype Dot(const vector<Dtype>& a, const vector<Dtype>& b) {
  Dtype s = 0;
  for (size_t i = 0; i < a.size(); ++i) s += a[i] * b[i];
  return s;
}

struct Case2D { int C, H, W, kh, kw, ph, pw, sh, sw, dh, dw; };
const Case2D kCases[] = {
    {2, 5, 6, 3, 3, 1, 1, 1, 1, 1, 1},
    {3, 7, 5, 3, 2, 2, 0, 2, 1, 1, 1},
    {1, 9, 8, 3, 3, 2, 1, 1, 2, 2, 3},
    {2, 4, 4, 1, 1, 0, 0, 2, 2, 1, 1},
    {1, 3, 4, 5, 5, 2, 2, 3, 3, 1, 1},
};

}  // namespace

template <typename Dtype>
class Im2colTest : public ::testing::Test {};
TYPED_TEST_SUITE(Im2colTest, TestDtypes);

TYPED_TEST(Im2colTest, Im2col2DMatchesDefinition) {
  typedef TypeParam Dtype;
  Caffe::set_random_seed(3);
  for (const Case2D& t : kCases) {
    vector<Dtype> im = RandomVector<Dtype>(t.C * t.H * t.W);
    vector<Dtype> expected = NaiveIm2col2D(im, t.C, t.H, t.W, t.kh, t.kw, t.ph,
                                           t.pw, t.sh, t.sw, t.dh, t.dw);
    vector<Dtype> col(expected.size(), Dtype(99));
    im2col_cpu(im.data(), t.C, t.H, t.W, t.kh, t.kw, t.ph, t.pw, t.sh, t.sw,
               t.dh, t.dw, col.data());
    for (size_t i = 0; i < col.size(); ++i) EXPECT_EQ(expected[i], col[i]);
  }
}

// col2im is the adjoint of im2col: <im2col(x), y> = <x, col2im(y)>.
TYPED_TEST(Im2colTest, Col2im2DIsAdjoint) {
  typedef TypeParam Dtype;
  Caffe::set_random_seed(4);
  for (const Case2D& t : kCases) {
    const int OH = OutDim(t.H, t.kh, t.ph, t.sh, t.dh);
    const int OW = OutDim(t.W, t.kw, t.pw, t.sw, t.dw);
    vector<Dtype> x = RandomVector<Dtype>(t.C * t.H * t.W);
    vector<Dtype> y = RandomVector<Dtype>(t.C * t.kh * t.kw * OH * OW);
    vector<Dtype> col(y.size()), im(x.size(), Dtype(7));
    im2col_cpu(x.data(), t.C, t.H, t.W, t.kh, t.kw, t.ph, t.pw, t.sh, t.sw,
               t.dh, t.dw, col.data());
    col2im_cpu(y.data(), t.C, t.H, t.W, t.kh, t.kw, t.ph, t.pw, t.sh, t.sw,
               t.dh, t.dw, im.data());
    const Dtype a = Dot(col, y), b = Dot(x, im);
    EXPECT_NEAR(a, b, 1e-4 * std::max<Dtype>(1, std::fabs(a)));
  }
}

TYPED_TEST(Im2colTest, NDMatches2D) {
  typedef TypeParam Dtype;
  Caffe::set_random_seed(5);
  for (const Case2D& t : kCases) {
    const int OH = OutDim(t.H, t.kh, t.ph, t.sh, t.dh);
    const int OW = OutDim(t.W, t.kw, t.pw, t.sw, t.dw);
    const int im_shape[] = {t.C, t.H, t.W};
    const int col_shape[] = {t.C * t.kh * t.kw, OH, OW};
    const int kernel[] = {t.kh, t.kw}, pad[] = {t.ph, t.pw};
    const int stride[] = {t.sh, t.sw}, dil[] = {t.dh, t.dw};
    vector<Dtype> x = RandomVector<Dtype>(t.C * t.H * t.W);
    vector<Dtype> y = RandomVector<Dtype>(col_shape[0] * OH * OW);
    vector<Dtype> col2d(y.size()), colnd(y.size());
    im2col_cpu(x.data(), t.C, t.H, t.W, t.kh, t.kw, t.ph, t.pw, t.sh, t.sw,
               t.dh, t.dw, col2d.data());
    im2col_nd_cpu(x.data(), 2, im_shape, col_shape, kernel, pad, stride, dil,
                  colnd.data());
    for (size_t i = 0; i < y.size(); ++i) EXPECT_EQ(col2d[i], colnd[i]);
    vector<Dtype> im2d(x.size()), imnd(x.size(), Dtype(5));
    col2im_cpu(y.data(), t.C, t.H, t.W, t.kh, t.kw, t.ph, t.pw, t.sh, t.sw,
               t.dh, t.dw, im2d.data());
    col2im_nd_cpu(y.data(), 2, im_shape, col_shape, kernel, pad, stride, dil,
                  imnd.data());
    for (size_t i = 0; i < x.size(); ++i)
      EXPECT_NEAR(im2d[i], imnd[i], 1e-5);
  }
}

TYPED_TEST(Im2colTest, ND3DMatchesDefinitionAndIsAdjoint) {
  typedef TypeParam Dtype;
  Caffe::set_random_seed(6);
  const int C = 2, D = 4, H = 5, W = 3;
  const int kernel[] = {2, 3, 2}, pad[] = {1, 1, 0}, stride[] = {2, 1, 1},
            dil[] = {1, 2, 1};
  const int OD = OutDim(D, 2, 1, 2, 1), OH = OutDim(H, 3, 1, 1, 2),
            OW = OutDim(W, 2, 0, 1, 1);
  const int im_shape[] = {C, D, H, W};
  const int col_shape[] = {C * 12, OD, OH, OW};
  vector<Dtype> x = RandomVector<Dtype>(C * D * H * W);
  vector<Dtype> col(C * 12 * OD * OH * OW, Dtype(3));
  im2col_nd_cpu(x.data(), 3, im_shape, col_shape, kernel, pad, stride, dil,
                col.data());
  for (int c = 0; c < C; ++c)
    for (int a = 0; a < 2; ++a)
      for (int b = 0; b < 3; ++b)
        for (int e = 0; e < 2; ++e)
          for (int od = 0; od < OD; ++od)
            for (int oh = 0; oh < OH; ++oh)
              for (int ow = 0; ow < OW; ++ow) {
                const int z = od * 2 - 1 + a, y = oh - 1 + b * 2, xx = ow + e;
                const bool in = z >= 0 && z < D && y >= 0 && y < H &&
                                xx >= 0 && xx < W;
                const Dtype v = in ? x[((c * D + z) * H + y) * W + xx] : 0;
                const int row = ((c * 2 + a) * 3 + b) * 2 + e;
                EXPECT_EQ(v, col[((row * OD + od) * OH + oh) * OW + ow]);
              }
  vector<Dtype> y = RandomVector<Dtype>(col.size());
  vector<Dtype> im(x.size());
  col2im_nd_cpu(y.data(), 3, im_shape, col_shape, kernel, pad, stride, dil,
                im.data());
  const Dtype lhs = Dot(col, y), rhs = Dot(x, im);
  EXPECT_NEAR(lhs, rhs, 1e-4 * std::max<Dtype>(1, std::fabs(lhs)));
}

}  // namespace caffe
