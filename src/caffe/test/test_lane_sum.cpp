// The channel sums' order of additions (util/elementwise.hpp LaneSum):
// term j of each run goes to lane j % kSumLanes, the lanes combine in one
// fixed tree.  BatchNorm's and Scale's results depend on exactly that
// order, on every vector copy of the parallel loop; these tests hold the
// sums to a plain scalar reference of it, bit for bit.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "caffe/util/elementwise.hpp"

namespace caffe {
namespace {

struct Value {
  const float* x;
  double operator()(long j) const { return x[j]; }
};
struct Product {
  const float* a;
  const float* b;
  double operator()(long j) const { return static_cast<double>(a[j]) * b[j]; }
};

// Channel d: both sums in one sweep, and each alone.
struct ChannelSums {
  const float* a;
  const float* b;
  double* together_a;
  double* together_b;
  double* alone_a;
  double* alone_b;
  int outer, channels, inner;
  void operator()(long d) const {
    SumTwoOverChannel<double>(d, outer, channels, inner, Value{a},
                              Product{a, b}, &together_a[d], &together_b[d]);
    alone_a[d] = SumOverChannel<double>(d, outer, channels, inner, Value{a});
    alone_b[d] =
        SumOverChannel<double>(d, outer, channels, inner, Product{a, b});
  }
};

// The documented order, written out with no vectors in mind.
template <typename Term>
double Reference(const Term& term, int d, int outer, int channels,
                 int inner) {
  double lane[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  for (int n = 0; n < outer; ++n) {
    const long begin = (static_cast<long>(n) * channels + d) * inner;
    for (int j = 0; j < inner; ++j) lane[j % 8] += term(begin + j);
  }
  return ((lane[0] + lane[1]) + (lane[2] + lane[3])) +
         ((lane[4] + lane[5]) + (lane[6] + lane[7]));
}

TEST(LaneSumTest, ChannelSumsFollowTheLaneOrderOnEveryVectorCopy) {
  std::mt19937 rng(7);
  // Magnitudes over many decades, so that another order of additions
  // rounds differently.
  std::uniform_real_distribution<float> mantissa(-1.f, 1.f);
  std::uniform_int_distribution<int> exponent(-12, 12);
  const int outer = 3, channels = 5;
  for (int inner : {1, 7, 8, 9, 17, 49, 196}) {
    const int count = outer * channels * inner;
    std::vector<float> a(count), b(count);
    for (int i = 0; i < count; ++i) {
      a[i] = std::ldexp(mantissa(rng), exponent(rng));
      b[i] = std::ldexp(mantissa(rng), exponent(rng));
    }
    for (CpuVector copy :
         {CpuVector::kBaseline, CpuVector::kAvx2, CpuVector::kAvx512}) {
      SetCpuVectorLoops(copy);
      std::vector<double> ta(channels), tb(channels), sa(channels),
          sb(channels);
      ForEach(channels, 1,
              ChannelSums{a.data(), b.data(), ta.data(), tb.data(), sa.data(),
                          sb.data(), outer, channels, inner});
      for (int d = 0; d < channels; ++d) {
        const double want_a =
            Reference(Value{a.data()}, d, outer, channels, inner);
        const double want_b =
            Reference(Product{a.data(), b.data()}, d, outer, channels, inner);
        EXPECT_EQ(want_a, ta[d]) << "inner " << inner << " channel " << d;
        EXPECT_EQ(want_b, tb[d]) << "inner " << inner << " channel " << d;
        EXPECT_EQ(want_a, sa[d]) << "inner " << inner << " channel " << d;
        EXPECT_EQ(want_b, sb[d]) << "inner " << inner << " channel " << d;
      }
    }
    SetCpuVectorLoops(CpuVector::kAvx512);  // the CPU's best, as before
  }
}

}  // namespace
}  // namespace caffe
