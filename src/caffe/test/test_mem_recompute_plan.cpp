// The pure recomputation module (mem/recompute.hpp) on synthetic layer
// sequences: segments, the step schedule, extra work, the choice of
// boundaries for SQRT and BUDGET, and the segment model's optimal split.
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <vector>

#include "caffe/mem/recompute.hpp"

namespace caffe {
namespace mem {
namespace {

TEST(RecomputePlanTest, SegmentsEndAtBoundariesAndOnlyTheLastIsKept) {
  const std::vector<Segment> s = MakeSegments(6, {1, 3});
  ASSERT_EQ(3u, s.size());
  EXPECT_EQ(0, s[0].begin);
  EXPECT_EQ(1, s[0].end);
  EXPECT_TRUE(s[0].recompute);
  EXPECT_EQ(2, s[1].begin);
  EXPECT_EQ(3, s[1].end);
  EXPECT_TRUE(s[1].recompute);
  EXPECT_EQ(4, s[2].begin);
  EXPECT_EQ(5, s[2].end);
  EXPECT_FALSE(s[2].recompute);
  EXPECT_EQ(1u, MakeSegments(6, {}).size());
  EXPECT_THROW(MakeSegments(6, {3, 1}), std::invalid_argument);
  EXPECT_THROW(MakeSegments(6, {5}), std::invalid_argument);
}

TEST(RecomputePlanTest, ScheduleRecomputesEachSegmentBeforeItsBackward) {
  // Layer 0 (data) is never run twice.
  const std::vector<bool> again = {false, true, true, true, true};
  const std::vector<Step> steps = MakeSchedule(MakeSegments(5, {2}), again);
  std::vector<std::pair<int, Step::Kind> > got;
  for (const Step& s : steps) got.push_back({s.layer, s.kind});
  const std::vector<std::pair<int, Step::Kind> > want = {
      {0, Step::kForward},   {1, Step::kForward},   {2, Step::kForward},
      {3, Step::kForward},   {4, Step::kForward},   {4, Step::kBackward},
      {3, Step::kBackward},  {1, Step::kRecompute}, {2, Step::kRecompute},
      {2, Step::kBackward},  {1, Step::kBackward},  {0, Step::kBackward}};
  EXPECT_EQ(want, got);
}

TEST(RecomputePlanTest, ExtraWorkIsTheRecomputedLayersShare) {
  const std::vector<bool> again = {false, true, true, true};
  const std::vector<double> cost = {10, 20, 30, 40};
  EXPECT_DOUBLE_EQ(0.0, ExtraForwardFraction(MakeSegments(4, {}), again, cost));
  // Segment 0-1 runs again, but layer 0 is data: 20 of 100.
  EXPECT_DOUBLE_EQ(0.2,
                   ExtraForwardFraction(MakeSegments(4, {1}), again, cost));
  // More boundaries before the same last one cost nothing more.
  EXPECT_DOUBLE_EQ(0.5,
                   ExtraForwardFraction(MakeSegments(4, {2}), again, cost));
  EXPECT_DOUBLE_EQ(0.5,
                   ExtraForwardFraction(MakeSegments(4, {0, 1, 2}), again, cost));
}

TEST(RecomputePlanTest, InnerBoundariesCutRecomputedSegmentsIntoParts) {
  // Segments 0-4 and 5-7 are recomputed, 8-9 is the last; 1 and 3 cut the
  // first, 6 the second.
  const std::vector<Segment> s = MakeNestedSegments(10, {4, 7}, {1, 3, 6});
  ASSERT_EQ(6u, s.size());
  const int want[6][4] = {// begin, end, nested, group
                          {0, 1, 1, 0}, {2, 3, 1, 0}, {4, 4, 0, 0},
                          {5, 6, 1, 1}, {7, 7, 0, 1}, {8, 9, 0, 2}};
  for (int i = 0; i < 6; ++i) {
    EXPECT_EQ(want[i][0], s[i].begin) << i;
    EXPECT_EQ(want[i][1], s[i].end) << i;
    EXPECT_EQ(want[i][2] == 1, s[i].nested) << i;
    EXPECT_EQ(want[i][3], s[i].group) << i;
    EXPECT_EQ(i < 5, s[i].recompute) << i;
  }
  // Without inner boundaries, the segments of MakeSegments.
  const std::vector<Segment> flat = MakeNestedSegments(10, {4, 7}, {});
  ASSERT_EQ(3u, flat.size());
  for (size_t i = 0; i < flat.size(); ++i) {
    EXPECT_FALSE(flat[i].nested);
    EXPECT_EQ(static_cast<int>(i), flat[i].group);
  }
  // A cut at a segment's end, in the last segment, or out of order.
  EXPECT_THROW(MakeNestedSegments(10, {4, 7}, {4}), std::invalid_argument);
  EXPECT_THROW(MakeNestedSegments(10, {4, 7}, {8}), std::invalid_argument);
  EXPECT_THROW(MakeNestedSegments(10, {4, 7}, {3, 1}), std::invalid_argument);
}

TEST(RecomputePlanTest, NestedPartsRunAThirdTimeBeforeTheirBackward) {
  // Layers 0-3 recomputed as one run, cut after 1; 4-5 last.  Layer 0 is
  // data.
  const std::vector<bool> again = {false, true, true, true, true, true};
  const std::vector<Step> steps =
      MakeSchedule(MakeNestedSegments(6, {3}, {1}), again);
  std::vector<std::vector<int> > got;  // layer, kind, run
  for (const Step& s : steps) got.push_back({s.layer, s.kind, s.run});
  const int F = Step::kForward, R = Step::kRecompute, B = Step::kBackward;
  const std::vector<std::vector<int> > want = {
      {0, F, 0}, {1, F, 0}, {2, F, 0}, {3, F, 0}, {4, F, 0}, {5, F, 0},
      {5, B, 0}, {4, B, 0},
      // The group's run: every layer of 0-3 but the data layer.
      {1, R, 1}, {2, R, 1}, {3, R, 1}, {3, B, 0}, {2, B, 0},
      // The nested part 0-1 again, just before its backward.
      {1, R, 2}, {1, B, 0}, {0, B, 0}};
  EXPECT_EQ(want, got);
  // Its layers count twice in the extra work: layer 1 twice, 2 and 3
  // once, over 6 layers of cost 1.
  EXPECT_DOUBLE_EQ(4.0 / 6.0,
                   ExtraForwardFraction(MakeNestedSegments(6, {3}, {1}),
                                        again, std::vector<double>(6, 1.0)));
}

TEST(RecomputePlanTest, EqualBytesCutsSplitARangeOnly) {
  const std::vector<double> bytes(10, 1.0);
  const std::vector<int> all = {0, 1, 2, 3, 4, 5, 6, 7, 8};
  // Layers 3-8 in three parts of two layers: cuts after 4 and 6.
  EXPECT_EQ(std::vector<int>({4, 6}), EqualBytesCuts(all, bytes, 3, 8, 3));
  EXPECT_TRUE(EqualBytesCuts(all, bytes, 3, 8, 1).empty());
  // No candidate inside the range: no cut.
  EXPECT_TRUE(EqualBytesCuts({0, 1, 8}, bytes, 3, 8, 3).empty());
}

TEST(RecomputePlanTest, EqualBytesSplitsAtCumulativeFractions) {
  // Ten layers of 1 byte; candidates everywhere: thirds of [0, 8] end at
  // layers 2 and 5.
  const std::vector<double> bytes(10, 1.0);
  const std::vector<int> all = {0, 1, 2, 3, 4, 5, 6, 7, 8};
  EXPECT_EQ(std::vector<int>({2, 5}), EqualBytesBoundaries(all, bytes, 8, 3));
  // Only some positions allowed: the nearest ones.
  EXPECT_EQ(std::vector<int>({3, 6}),
            EqualBytesBoundaries({3, 6, 7}, bytes, 8, 3));
  EXPECT_TRUE(EqualBytesBoundaries(all, bytes, 8, 1).empty());
  // SQRT over 9 candidates: about sqrt(10) = 3 segments.
  EXPECT_EQ(2u, SqrtBoundaries(all, bytes).size());
}

TEST(RecomputePlanTest, BudgetTakesTheEarliestLastBoundaryThatFits) {
  // A synthetic peak: 100 without recomputation; with boundaries, 100 minus
  // 5 per layer up to the last boundary, plus 1 per boundary kept.
  const std::vector<double> bytes(12, 1.0);
  const std::vector<int> candidates = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
  int calls = 0;
  auto peak = [&](const std::vector<int>& b) -> size_t {
    ++calls;
    if (b.empty()) return 100;
    return 100 - 5 * (b.back() + 1) + b.size();
  };
  BudgetResult r = FitBudget(candidates, bytes, 80, peak);
  ASSERT_TRUE(r.fits);
  // 100 - 5 * 5 + 1 = 76 with the last boundary at layer 4 alone; at
  // layer 3 the best is 100 - 20 + 1 = 81 > 80.
  EXPECT_EQ(std::vector<int>({4}), r.boundaries);
  EXPECT_LE(r.peak, 80u);
  // Without recomputation it fits already: nothing recomputed.
  r = FitBudget(candidates, bytes, 100, peak);
  EXPECT_TRUE(r.fits);
  EXPECT_TRUE(r.boundaries.empty());
  // Too small: no fit, and the least peak seen is reported.
  r = FitBudget(candidates, bytes, 5, peak);
  EXPECT_FALSE(r.fits);
  EXPECT_GT(r.smallest_peak, 5u);
  EXPECT_LT(r.smallest_peak, 100u);
  EXPECT_LT(calls, 200);  // bisection, not every combination
}

}  // namespace
}  // namespace mem
}  // namespace caffe

namespace caffe {
namespace mem {
namespace {

TEST(RecomputePlanTest, ThresholdCutsWhereTheFewestBytesCross) {
  // Eight layers of 10 bytes; crossing bytes are low after layers 2 and 5.
  const std::vector<double> bytes(8, 10.0);
  const std::vector<double> crossing = {50, 40, 5, 40, 50, 5, 40, 50};
  const std::vector<int> all = {0, 1, 2, 3, 4, 5, 6};
  // Threshold 40: the window opens at 10 bytes; the cheapest cut in each
  // window wins.
  EXPECT_EQ(std::vector<int>({2, 5}),
            ThresholdBoundaries(all, bytes, crossing, 40));
  // The best split under a synthetic peak (fewer bytes kept is better).
  auto peak = [&](const std::vector<int>& b) -> size_t {
    if (b.empty()) return 1000;
    size_t p = 100;
    for (int c : b) p += static_cast<size_t>(crossing[c]);
    return p;
  };
  const std::vector<int> best =
      BestSublinearBoundaries(all, bytes, crossing, peak);
  ASSERT_FALSE(best.empty());
  EXPECT_LE(peak(best), peak(SqrtBoundaries(all, bytes)));
  // Nothing beats no recomputation: nothing is chosen.
  EXPECT_TRUE(BestSublinearBoundaries(all, bytes, crossing,
                                      [](const std::vector<int>& b) {
                                        return b.empty() ? size_t(1) : 2;
                                      }).empty());
}

}  // namespace
}  // namespace mem
}  // namespace caffe

namespace caffe {
namespace mem {
namespace {

TEST(RecomputePlanTest, ModelPeakCountsKeptCutsAndTheLiveSegment) {
  // Layers of 10, 20, 30, 40 bytes; cuts after 0 and 2 keep 5 and 7.
  const std::vector<double> bytes = {10, 20, 30, 40};
  const std::vector<double> crossing = {5, 6, 7, 8};
  // Segments: [0] (10), [1, 2] with 5 kept (55), [3] live with 12 kept
  // when backward starts (52).
  EXPECT_DOUBLE_EQ(55, ModelPeak({0, 2}, bytes, crossing));
  EXPECT_DOUBLE_EQ(100, ModelPeak({}, bytes, crossing));
  // One cut after 2: [0, 2] (60), then [3] with 7 kept (47).
  EXPECT_DOUBLE_EQ(60, ModelPeak({2}, bytes, crossing));
}

// The dynamic program's split is the best of every subset of cuts (brute
// force), for random chains.
TEST(RecomputePlanTest, ModelOptimalSplitBeatsEverySubset) {
  unsigned int seed = 12345;
  auto next = [&seed]() {
    seed = seed * 1103515245u + 12345u;
    return (seed >> 8) % 1000;
  };
  for (int trial = 0; trial < 200; ++trial) {
    const int n = 3 + static_cast<int>(next() % 10);
    std::vector<double> bytes(n), crossing(n);
    for (int i = 0; i < n; ++i) {
      bytes[i] = 1 + next() % 100;
      crossing[i] = next() % 60;
    }
    std::vector<int> candidates;
    for (int i = 0; i + 1 < n; ++i)
      if (next() % 4 != 0) candidates.push_back(i);
    if (candidates.empty()) continue;
    const int last = candidates[next() % candidates.size()];
    std::vector<int> before;  // candidates before last: subsets of these
    for (int c : candidates)
      if (c < last) before.push_back(c);
    double best = std::numeric_limits<double>::infinity();
    for (unsigned mask = 0; mask < (1u << before.size()); ++mask) {
      std::vector<int> split;
      for (size_t k = 0; k < before.size(); ++k)
        if (mask & (1u << k)) split.push_back(before[k]);
      split.push_back(last);
      best = std::min(best, ModelPeak(split, bytes, crossing));
    }
    const std::vector<int> dp =
        MinModelPeakSplit(candidates, bytes, crossing, last);
    ASSERT_FALSE(dp.empty());
    EXPECT_EQ(dp.back(), last);
    for (int c : dp)
      EXPECT_TRUE(std::find(candidates.begin(), candidates.end(), c) !=
                  candidates.end());
    EXPECT_LE(ModelPeak(dp, bytes, crossing), best * (1 + 1e-9) + 1e-9)
        << "trial " << trial;
  }
}

}  // namespace
}  // namespace mem
}  // namespace caffe
