// The memory planner on synthetic lifetimes: exact results on small graphs
// whose best plan is known, and invariants on random ones.
#include <gtest/gtest.h>

#include <random>
#include <stdexcept>

#include "caffe/mem/planner.hpp"
#include "caffe/util/parallel.hpp"

namespace caffe {
namespace mem {
namespace {

BufferRequest Buf(const char* name, size_t bytes, int first, int last,
                  bool shareable = true) {
  BufferRequest r;
  r.name = name;
  r.bytes = bytes;
  r.first_step = first;
  r.last_step = last;
  r.shareable = shareable;
  return r;
}

// A chain a->b->c->d where each buffer is read only by the next step.
std::vector<BufferRequest> Chain(size_t bytes) {
  return {Buf("a", bytes, 0, 1), Buf("b", bytes, 1, 2), Buf("c", bytes, 2, 3),
          Buf("d", bytes, 3, 4)};
}

TEST(MemPlannerTest, ChainNeedsTwoBuffersAtEveryLevel) {
  for (int level = 0; level <= 2; ++level) {
    std::vector<BufferRequest> reqs = Chain(1024);
    Plan plan = MakePlan(reqs, level);
    EXPECT_EQ(CheckPlan(reqs, plan), "") << "level " << level;
    EXPECT_EQ(plan.total_bytes(), 2048u) << "level " << level;
    EXPECT_EQ(plan.lower_bound, 2048u);
    EXPECT_EQ(plan.unshared_bytes, 4096u);
  }
}

TEST(MemPlannerTest, LevelZeroOnlyReusesEqualSizes) {
  std::vector<BufferRequest> reqs = {Buf("big", 4096, 0, 1),
                                     Buf("small", 1024, 2, 3)};
  EXPECT_EQ(MakePlan(reqs, 0).total_bytes(), 5120u);
  EXPECT_EQ(MakePlan(reqs, 1).total_bytes(), 4096u);
  EXPECT_EQ(MakePlan(reqs, 2).total_bytes(), 4096u);
}

TEST(MemPlannerTest, LevelOnePicksTheSmallestFreeSlotThatFits) {
  std::vector<BufferRequest> reqs = {Buf("s1", 8192, 0, 0), Buf("s2", 2048, 0, 0),
                                     Buf("x", 1024, 1, 1)};
  Plan plan = MakePlan(reqs, 1);
  EXPECT_EQ(plan.placements[2].slot, plan.placements[1].slot);
  EXPECT_EQ(plan.total_bytes(), 10240u);
}

TEST(MemPlannerTest, ArenaPacksAroundLongLivedBuffers) {
  // A long-lived buffer (like a forward activation kept for backward) and
  // short ones that come and go: the arena fits the short ones beside it.
  std::vector<BufferRequest> reqs = {
      Buf("keep", 4096, 0, 9), Buf("t1", 2048, 1, 2), Buf("t2", 2048, 3, 4),
      Buf("t3", 2048, 5, 6), Buf("t4", 1024, 7, 8)};
  Plan plan = MakePlan(reqs, 2);
  EXPECT_EQ(CheckPlan(reqs, plan), "");
  EXPECT_EQ(plan.shared_bytes, 6144u);
  EXPECT_EQ(plan.lower_bound, 6144u);
}

TEST(MemPlannerTest, PinnedBuffersAreNeverShared) {
  std::vector<BufferRequest> reqs = {Buf("input", 1000, 0, 0, false),
                                     Buf("x", 1000, 1, 1),
                                     Buf("loss", 4, 2, 9, false)};
  for (int level = 0; level <= 2; ++level) {
    Plan plan = MakePlan(reqs, level);
    EXPECT_EQ(CheckPlan(reqs, plan), "");
    EXPECT_NE(plan.placements[0].slot, plan.placements[1].slot);
    EXPECT_NE(plan.placements[2].slot, plan.placements[1].slot);
    EXPECT_NE(plan.placements[0].slot, plan.placements[2].slot);
    EXPECT_EQ(plan.pinned_bytes, AlignUp(1000) + AlignUp(4));
  }
}

TEST(MemPlannerTest, SizesAreAligned) {
  std::vector<BufferRequest> reqs = {Buf("a", 1, 0, 1), Buf("b", 65, 0, 1)};
  Plan plan = MakePlan(reqs, 2);
  EXPECT_EQ(plan.placements[0].offset % kAlignment, 0u);
  EXPECT_EQ(plan.placements[1].offset % kAlignment, 0u);
  EXPECT_EQ(plan.shared_bytes, 64u + 128u);
}

TEST(MemPlannerTest, BadRequestsAreRejected) {
  EXPECT_THROW(MakePlan({Buf("x", 8, 3, 2)}, 2), std::invalid_argument);
  EXPECT_THROW(MakePlan({Buf("x", 8, 0, 2)}, 3), std::invalid_argument);
}

TEST(MemPlannerTest, CheckPlanCatchesOverlap) {
  std::vector<BufferRequest> reqs = {Buf("a", 256, 0, 3), Buf("b", 256, 2, 5)};
  Plan plan = MakePlan(reqs, 2);
  ASSERT_EQ(CheckPlan(reqs, plan), "");
  plan.placements[1].offset = plan.placements[0].offset;  // corrupt it
  const std::string err = CheckPlan(reqs, plan);
  EXPECT_NE(err.find("'a'"), std::string::npos) << err;
  EXPECT_NE(err.find("'b'"), std::string::npos) << err;
}

TEST(MemPlannerTest, LiveBytesPerStep) {
  std::vector<size_t> live = LiveBytesPerStep(Chain(64), 5);
  EXPECT_EQ(live, (std::vector<size_t>{64, 128, 128, 128, 64}));
}

// An element-wise step s reads x (its last use) and writes y: as a pair,
// y lies exactly over x, and the chain needs one buffer fewer at s.
TEST(MemPlannerTest, InPlacePairSharesTheHandOverStep) {
  // shortcut lives across the step; x dies at step 2, y starts there.
  std::vector<BufferRequest> reqs = {Buf("shortcut", 1024, 0, 2),
                                     Buf("x", 1024, 1, 2), Buf("y", 1024, 2, 3),
                                     Buf("z", 1024, 3, 4)};
  EXPECT_EQ(MakePlan(reqs, 2).shared_bytes, 3072u);  // unpaired: 3 at step 2
  reqs[1].in_place_of = 2;
  reqs[2].in_place_of = 1;
  EXPECT_EQ(HandOverStep(reqs, 1, 2), 2);
  EXPECT_EQ(HandOverStep(reqs, 2, 1), 2);
  EXPECT_EQ(HandOverStep(reqs, 0, 1), -1);
  Plan plan = MakePlan(reqs, 2);
  EXPECT_EQ(CheckPlan(reqs, plan), "");
  EXPECT_EQ(plan.placements[2].offset, plan.placements[1].offset);
  EXPECT_EQ(plan.shared_bytes, 2048u);
  EXPECT_EQ(plan.lower_bound, 2048u);
  EXPECT_EQ(LiveBytesPerStep(reqs, 5),
            (std::vector<size_t>{1024, 2048, 2048, 2048, 1024}));
  // Anything else on y's bytes at the hand-over is still an overlap.
  plan.placements[0].offset = plan.placements[1].offset;
  EXPECT_NE(CheckPlan(reqs, plan), "");
}

// A pair does not share when the newer is larger and something live sits
// right above the older: then it is placed like any other buffer.
TEST(MemPlannerTest, InPlacePairNeverCoversOtherLiveBytes) {
  std::vector<BufferRequest> reqs = {Buf("x", 1024, 0, 2), Buf("w", 1024, 0, 4),
                                     Buf("y", 2048, 2, 3)};
  reqs[0].in_place_of = 2;
  reqs[2].in_place_of = 0;
  Plan plan = MakePlan(reqs, 2);
  EXPECT_EQ(CheckPlan(reqs, plan), "");
  EXPECT_LE(plan.shared_bytes, 4096u);
  EXPECT_GE(plan.shared_bytes, plan.lower_bound);
  EXPECT_EQ(plan.lower_bound, 3072u);  // w + the larger of x and y
}

TEST(MemPlannerTest, InPlaceOfAMissingBufferIsRejected) {
  std::vector<BufferRequest> reqs = {Buf("x", 8, 0, 1)};
  reqs[0].in_place_of = 3;
  EXPECT_THROW(MakePlan(reqs, 2), std::invalid_argument);
}

// Up to 40 buffers over up to 30 steps: some empty, some pinned, some
// handing over in place at one step (as Analyze pairs them), and the
// one-step ones marked scratch at random.
std::vector<BufferRequest> RandomGraph(std::mt19937* rng) {
  std::mt19937& random = *rng;
  const int n = 1 + random() % 40;
  const int steps = 2 + random() % 30;
  std::vector<BufferRequest> reqs;
  for (int i = 0; i < n; ++i) {
    const int a = random() % steps, b = random() % steps;
    const size_t bytes = (random() % 4 == 0) ? 0 : 64 * (1 + random() % 50);
    reqs.push_back(Buf("r", bytes, std::min(a, b), std::max(a, b),
                       random() % 8 != 0));
    reqs.back().scratch = a == b && random() % 2 == 0;
  }
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      if (i != j && reqs[i].in_place_of < 0 && reqs[j].in_place_of < 0 &&
          reqs[i].shareable && reqs[j].shareable &&
          reqs[i].last_step == reqs[j].first_step &&
          reqs[i].first_step < reqs[j].first_step && random() % 2 == 0) {
        reqs[i].in_place_of = j;
        reqs[j].in_place_of = i;
      }
  return reqs;
}

TEST(MemPlannerTest, RandomGraphsGiveSoundPlansWithinBounds) {
  std::mt19937 rng(1234);
  for (int trial = 0; trial < 200; ++trial) {
    const std::vector<BufferRequest> reqs = RandomGraph(&rng);
    size_t previous = 0;
    for (int level = 0; level <= 2; ++level) {
      Plan plan = MakePlan(reqs, level);
      ASSERT_EQ(CheckPlan(reqs, plan), "") << "trial " << trial;
      EXPECT_GE(plan.shared_bytes, plan.lower_bound);
      EXPECT_LE(plan.total_bytes(), plan.unshared_bytes);
      if (level == 2) EXPECT_LE(plan.shared_bytes, previous);
      if (level == 1) previous = plan.shared_bytes;
    }
  }
}

// Scratch placed first is one more candidate, kept only when smaller: a
// plan never grows for marking requests as scratch, and on some of these
// graphs (long-lived buffers around one-step scratch, as a net's
// activations around its convolutions' workspaces) it shrinks.
TEST(MemPlannerTest, ScratchFirstNeverGrowsAndSometimesShrinks) {
  std::mt19937 rng(99);
  int smaller = 0;
  for (int trial = 0; trial < 300; ++trial) {
    const int steps = 4 + rng() % 20;
    std::vector<BufferRequest> reqs;
    const int n = 2 + rng() % 12;
    for (int i = 0; i < n; ++i) {
      const int a = rng() % steps, b = rng() % steps;
      reqs.push_back(Buf("blob", 64 * (1 + rng() % 40), std::min(a, b),
                         std::max(a, b)));
    }
    for (int s = 0; s < steps; ++s)
      if (rng() % 2 == 0) reqs.push_back(Buf("scratch", 64 * (1 + rng() % 40),
                                             s, s));
    const Plan without = MakePlan(reqs, 2);
    for (BufferRequest& r : reqs) r.scratch = r.name == "scratch";
    const Plan with = MakePlan(reqs, 2);
    ASSERT_EQ(CheckPlan(reqs, with), "") << "trial " << trial;
    EXPECT_LE(with.shared_bytes, without.shared_bytes) << "trial " << trial;
    EXPECT_GE(with.shared_bytes, with.lower_bound) << "trial " << trial;
    if (with.shared_bytes < without.shared_bytes) ++smaller;
  }
  EXPECT_GT(smaller, 0);
}

// Level 2's greedy passes run side by side on the parallel loop; the
// winner is the smallest arena, ties to the earlier pass, so every thread
// count gives the same placements.
TEST(MemPlannerTest, PlanDoesNotDependOnThreadCount) {
  const int threads = ParallelThreads();
  std::mt19937 rng(4321);
  for (int trial = 0; trial < 300; ++trial) {
    const std::vector<BufferRequest> reqs = RandomGraph(&rng);
    SetParallelThreads(1);
    const Plan one = MakePlan(reqs, 2);
    for (int t : {2, 3}) {
      SetParallelThreads(t);
      const Plan many = MakePlan(reqs, 2);
      ASSERT_EQ(many.slot_bytes, one.slot_bytes) << "trial " << trial;
      for (size_t i = 0; i < reqs.size(); ++i) {
        ASSERT_EQ(many.placements[i].slot, one.placements[i].slot);
        ASSERT_EQ(many.placements[i].offset, one.placements[i].offset)
            << "trial " << trial << ", " << t << " threads, buffer " << i;
      }
    }
  }
  SetParallelThreads(threads);
}

}  // namespace
}  // namespace mem
}  // namespace caffe
