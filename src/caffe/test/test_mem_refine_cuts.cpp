// mem::RefineCuts on synthetic chains: the plan it returns is valid, fits
// and costs no more than the start; it only ever asks about valid plans;
// it finds the cheaper cut a byte-balanced split misses (a costly stem
// run a third time); and it respects its bound on planner calls.
#include <gtest/gtest.h>

#include <functional>
#include <random>
#include <vector>

#include "caffe/mem/recompute.hpp"
#include "caffe/mem/refine_cuts.hpp"

namespace caffe {
namespace mem {
namespace {

std::vector<int> AllCandidates(int n) {
  std::vector<int> c;
  for (int i = 0; i + 1 < n; ++i) c.push_back(i);
  return c;
}

double CostOf(const Cuts& c, const std::vector<double>& layer_cost) {
  const int n = static_cast<int>(layer_cost.size());
  return ExtraForwardFraction(MakeNestedSegments(n, c.outer, c.inner),
                              std::vector<bool>(n, true), layer_cost);
}

// Every plan of n layers (each cut position: none, outer or inner) that
// ValidCuts accepts.
std::vector<Cuts> EveryValidPlan(int n) {
  std::vector<Cuts> plans;
  const std::vector<int> candidates = AllCandidates(n);
  int total = 1;
  for (int i = 0; i + 1 < n; ++i) total *= 3;
  for (int code = 0; code < total; ++code) {
    Cuts c;
    int x = code;
    for (int i = 0; i + 1 < n; ++i, x /= 3) {
      if (x % 3 == 1) c.outer.push_back(i);
      if (x % 3 == 2) c.inner.push_back(i);
    }
    if (ValidCuts(c, candidates, n)) plans.push_back(c);
  }
  return plans;
}

// The longest run of layers any part holds at once: a stand-in for a
// planned peak that favours many short parts.
int LongestPart(const Cuts& c, int n) {
  int longest = 0;
  for (const Segment& s : MakeNestedSegments(n, c.outer, c.inner))
    longest = std::max(longest, s.end - s.begin + 1);
  return longest;
}

TEST(RefineCutsTest, ValidCutsFollowsMakeNestedSegments) {
  const int n = 8;
  const std::vector<int> c = AllCandidates(n);
  EXPECT_TRUE(ValidCuts({{2, 5}, {}}, c, n));
  EXPECT_TRUE(ValidCuts({{5}, {1, 3}}, c, n));
  EXPECT_FALSE(ValidCuts({{5, 2}, {}}, c, n));   // not ascending
  EXPECT_FALSE(ValidCuts({{2}, {4}}, c, n));     // in the last segment
  EXPECT_FALSE(ValidCuts({{2, 5}, {2}}, c, n));  // at a segment's end
  EXPECT_FALSE(ValidCuts({{}, {1}}, c, n));      // nothing recomputed
  EXPECT_FALSE(ValidCuts({{7}, {}}, c, n));      // past the last cut
  EXPECT_FALSE(ValidCuts({{2, 5}, {}}, {2, 4}, n));  // 5 is no candidate
  // Agreement with MakeNestedSegments on every cut assignment of 7 layers.
  for (const Cuts& p : EveryValidPlan(7))
    EXPECT_NO_THROW(MakeNestedSegments(7, p.outer, p.inner));
}

TEST(RefineCutsTest, StemRunThreeTimesBecomesACheckpoint) {
  // Layers 0 and 1 cost five times the others.  The start nests the stem
  // (a part run a third time); the cheapest plan whose parts hold at most
  // four layers reruns only layers 0..3.
  const int n = 8;
  const std::vector<double> cost = {5, 5, 1, 1, 1, 1, 1, 1};
  auto fits = [n](const Cuts& c) { return LongestPart(c, n) <= 4; };
  const Cuts start{{5}, {1}};
  ASSERT_TRUE(fits(start));
  double best = 1e9;
  for (const Cuts& p : EveryValidPlan(n))
    if (fits(p)) best = std::min(best, CostOf(p, cost));
  EXPECT_DOUBLE_EQ(best, 12.0 / 16.0);
  const Cuts got = RefineCuts(
      AllCandidates(n), n, start,
      [&cost](const Cuts& c) { return CostOf(c, cost); }, fits);
  EXPECT_TRUE(fits(got));
  EXPECT_DOUBLE_EQ(CostOf(got, cost), best);
  EXPECT_LT(CostOf(got, cost), CostOf(start, cost));
}

TEST(RefineCutsTest, RandomChainsNeverGetWorseAndAskOnlyValidPlans) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(0.1, 4.0);
  int improved = 0;
  for (int trial = 0; trial < 40; ++trial) {
    const int n = 6 + trial % 10;
    std::vector<double> cost(n), bytes(n);
    for (int i = 0; i < n; ++i) {
      cost[i] = u(rng);
      bytes[i] = u(rng);
    }
    // Some cuts are not allowed (every third layer).
    std::vector<int> candidates;
    for (int i = 0; i + 1 < n; ++i)
      if (i % 3 != 2) candidates.push_back(i);
    // A peak model: the largest sum of bytes any part holds, plus the
    // bytes kept at every cut (a stand-in for the planner).
    auto peak = [&](const Cuts& c) {
      double largest = 0;
      for (const Segment& s : MakeNestedSegments(n, c.outer, c.inner)) {
        double sum = 0;
        for (int i = s.begin; i <= s.end; ++i) sum += bytes[i];
        largest = std::max(largest, sum);
      }
      double kept = 0;
      for (int b : c.outer) kept += 0.5 * bytes[b];
      for (int b : c.inner) kept += 0.5 * bytes[b];
      return largest + kept;
    };
    // Start: every candidate an outer cut, which fits a budget set there.
    const Cuts start{candidates, {}};
    const double budget = peak(start) * (1.0 + 0.3 * (trial % 3));
    int asked = 0;
    bool all_valid = true;
    auto fits = [&](const Cuts& c) {
      ++asked;
      all_valid = all_valid && ValidCuts(c, candidates, n);
      return peak(c) <= budget;
    };
    RefineOptions options;
    options.max_fits_asked = 25;
    options.allow_inner = trial % 2 == 0;
    const Cuts got = RefineCuts(
        candidates, n, start,
        [&cost](const Cuts& c) { return CostOf(c, cost); }, fits, options);
    EXPECT_TRUE(all_valid) << "trial " << trial;
    EXPECT_TRUE(ValidCuts(got, candidates, n)) << "trial " << trial;
    EXPECT_LE(peak(got), budget) << "trial " << trial;
    EXPECT_LE(CostOf(got, cost), CostOf(start, cost)) << "trial " << trial;
    EXPECT_LE(asked, options.max_fits_asked) << "trial " << trial;
    if (!options.allow_inner) EXPECT_TRUE(got.inner.empty());
    if (CostOf(got, cost) < CostOf(start, cost)) ++improved;
  }
  EXPECT_GT(improved, 20);  // the search does something
}

}  // namespace
}  // namespace mem
}  // namespace caffe
