// The channel sums' order of additions (util/elementwise.hpp LaneSum):
// term j of each run goes to lane j % kSumLanes (16), the lanes combine
// pairwise in one fixed tree.  BatchNorm's and Scale's results depend on
// exactly that order, on every vector copy of the parallel loop; these
// tests hold the sums to a plain scalar reference of it, bit for bit.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "caffe/util/channel_sums.hpp"

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

// Lanes [first, first + count) added pairwise, as Total() documents.
template <typename Acc>
Acc PairwiseTotal(const std::vector<Acc>& lane, int first, int count) {
  if (count == 1) return lane[first];
  const int half = count / 2;
  return PairwiseTotal(lane, first, half) +
         PairwiseTotal(lane, first + half, half);
}

// The documented order, written out with no vectors in mind.
template <typename Term>
double Reference(const Term& term, int d, int outer, int channels,
                 int inner) {
  std::vector<double> lane(kSumLanes, 0.0);
  for (int n = 0; n < outer; ++n) {
    const long begin = (static_cast<long>(n) * channels + d) * inner;
    for (int j = 0; j < inner; ++j) lane[j % kSumLanes] += term(begin + j);
  }
  return PairwiseTotal(lane, 0, kSumLanes);
}

TEST(LaneSumTest, SixteenLanesCombinedPairwise) {
  // The lane count is part of every BatchNorm and Scale result's bits
  // (docs/benchmarks.md): changing it is a change of results, not a tuning.
  ASSERT_EQ(16, kSumLanes);
  // 1 + 2^-24 rounds back to 1 in float, so whether the small terms meet
  // each other (pairwise) or the large one first (in sequence) shows.
  LaneSum<float> sum;
  const float tiny = std::ldexp(1.f, -24);
  sum.AddRun(0, kSumLanes, [&](long j) { return j == 0 ? 1.f : tiny; });
  std::vector<float> lane(kSumLanes, tiny);
  lane[0] = 1.f;
  EXPECT_EQ(PairwiseTotal(lane, 0, kSumLanes), sum.Total());
  EXPECT_NE(1.f, sum.Total());  // a running sum would have lost them all
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

// A sum of an aggregate (channel_sums.hpp's contract): two sums of
// different types taken in one sweep, as the fused chain's backward takes
// the Scale's (float) and BatchNorm's (double) sums.
struct FloatAndDouble {
  float f;
  double d;
  FloatAndDouble& operator+=(const FloatAndDouble& o) {
    f += o.f;
    d += o.d;
    return *this;
  }
  FloatAndDouble operator+(const FloatAndDouble& o) const {
    return {f + o.f, d + o.d};
  }
};

TEST(LaneSumTest, AnAggregateSumsEachMemberAsAScalarSumWould) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> mantissa(-1.f, 1.f);
  std::uniform_int_distribution<int> exponent(-12, 12);
  const int outer = 3, channels = 4;
  for (int inner : {1, 9, 17, 49}) {
    const int count = outer * channels * inner;
    std::vector<float> a(count), b(count);
    for (int i = 0; i < count; ++i) {
      a[i] = std::ldexp(mantissa(rng), exponent(rng));
      b[i] = std::ldexp(mantissa(rng), exponent(rng));
    }
    auto float_term = [&](long j) { return a[j] * b[j]; };
    auto double_term = [&](long j) { return static_cast<double>(b[j]); };
    for (int d = 0; d < channels; ++d) {
      const FloatAndDouble both = SumOverChannel<FloatAndDouble>(
          d, outer, channels, inner, [&](long j) {
            return FloatAndDouble{float_term(j), double_term(j)};
          });
      const float want_f =
          SumOverChannel<float>(d, outer, channels, inner, float_term);
      const double want_d =
          SumOverChannel<double>(d, outer, channels, inner, double_term);
      EXPECT_EQ(want_f, both.f) << "inner " << inner << " channel " << d;
      EXPECT_EQ(want_d, both.d) << "inner " << inner << " channel " << d;
    }
  }
}

}  // namespace
}  // namespace caffe
