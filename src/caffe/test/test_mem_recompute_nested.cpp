// Nested recomputation (mem_param.recompute { auto: SQRT levels: 2 }) on
// real nets: recomputed segments cut again into parts, every part but the
// last run a third time just before its backward.  Training stays
// bit-identical to training without mem_param (Dropout masks replayed on
// every run, BatchNorm's statistics advanced once), the plan is never
// larger than SQRT's single level and smaller on a deep block net, and bad
// settings are refused by name.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "caffe/caffe.hpp"
#include "caffe/test/block_net_util.hpp"
#include "caffe/test/mem_trajectory_util.hpp"
#include "caffe/test/model_zoo_util.hpp"
#include "caffe/util/mem_report.hpp"

namespace caffe {
namespace {

MemoryOptimizationParameter Sqrt(int levels) {
  MemoryOptimizationParameter mp;
  mp.set_check(true);
  mp.mutable_recompute()->set_auto_(RecomputeParameter_Auto_SQRT);
  mp.mutable_recompute()->set_levels(levels);
  return mp;
}

TEST(NestedRecomputeTest, DeepBlockNetNestsTrainsBitIdenticallyAndPlansLess) {
  const NetParameter net = BlockNet(18, 3);
  const Trajectory base = TrainTrajectory(net, nullptr, 4);
  const MemoryOptimizationParameter one = Sqrt(1), two = Sqrt(2);
  const Trajectory single = TrainTrajectory(net, &one, 4);
  const Trajectory nested = TrainTrajectory(net, &two, 4);
  ExpectBitIdentical(base, single, "SQRT");
  ExpectBitIdentical(base, nested, "SQRT levels 2");
  EXPECT_LT(nested.planned_bytes, single.planned_bytes);
  MemoryOptimizationParameter dynamic = two;
  dynamic.set_release(MemoryOptimizationParameter_Release_DYNAMIC);
  ExpectBitIdentical(base, TrainTrajectory(net, &dynamic, 4),
                     "SQRT levels 2 DYNAMIC");

  // The chosen plan has nested parts, and their layers run a third time
  // after the group's run and before their own backward.
  NetParameter p = net;
  p.mutable_mem_param()->CopyFrom(two);
  Net<float> n(p);
  const NetMemory& m = *n.memory();
  int nested_parts = 0;
  for (size_t s = 0; s < m.segments().size(); ++s) {
    const mem::Segment& seg = m.segments()[s];
    if (!seg.nested) continue;
    ++nested_parts;
    EXPECT_TRUE(seg.recompute);
    EXPECT_LT(seg.end, m.GroupEnd(static_cast<int>(s)));
    for (int i = seg.begin; i <= seg.end; ++i) {
      if (!m.recomputable(i)) continue;
      EXPECT_GT(m.RecomputeStep(i, 1), m.RecomputeStep(i, 0)) << i;
      EXPECT_GT(m.RecomputeStep(i, 1), m.BackwardStep(seg.end + 1)) << i;
      EXPECT_LT(m.RecomputeStep(i, 1), m.BackwardStep(i)) << i;
    }
  }
  EXPECT_GT(nested_parts, 0);
  // Some buffer lives three times.
  bool third = false;
  for (const mem::Buffer& b : m.buffers()) third = third || b.lifetime == 2;
  EXPECT_TRUE(third);
  // `caffe mem`'s report counts the parts, and its planned run (nested
  // recomputation and all) measures within the plan.
  const MemoryReport r = BuildMemoryReport(p, TRAIN, 2);
  EXPECT_EQ(r.nested_parts, nested_parts);
  const std::string text = FormatMemoryReport(r);
  EXPECT_NE(text.find("nested (levels: 2): " + std::to_string(nested_parts) +
                      " parts"),
            std::string::npos)
      << text;
}

TEST(NestedRecomputeTest, BudgetTurnsToNestingWhenNoSingleLevelFits) {
  const NetParameter net = BlockNet(18, 3);
  const MemoryOptimizationParameter two = Sqrt(2);
  NetParameter p = net;
  p.mutable_mem_param()->CopyFrom(two);
  Net<float> sqrt_net(p);
  const size_t nested_peak = sqrt_net.memory()->plan().total_bytes();
  const double sqrt_extra = sqrt_net.memory()->extra_forward_fraction();
  // A budget that only a nested plan meets.
  MemoryOptimizationParameter budget;
  budget.set_check(true);
  budget.mutable_recompute()->set_auto_(RecomputeParameter_Auto_BUDGET);
  budget.mutable_recompute()->set_memory_budget_mb((nested_peak + 64) /
                                                   (1024.0 * 1024.0));
  p.mutable_mem_param()->CopyFrom(budget);
  EXPECT_THROW(Net<float> n(p), Error) << "one level fits the budget";
  budget.mutable_recompute()->set_levels(2);
  const Trajectory base = TrainTrajectory(net, nullptr, 3);
  const Trajectory fits = TrainTrajectory(net, &budget, 3);
  ExpectBitIdentical(base, fits, "BUDGET levels 2");
  EXPECT_LE(fits.planned_bytes, nested_peak + 64);
  p.mutable_mem_param()->CopyFrom(budget);
  Net<float> n(p);
  bool nested = false;
  for (const mem::Segment& seg : n.memory()->segments())
    nested = nested || seg.nested;
  EXPECT_TRUE(nested);
  // SQRT levels 2's plan fits these budgets, so BUDGET, which thins its
  // candidates within the budget before comparing their costs, reruns no
  // more than it (choosing before thinning, a budget 8% over SQRT's peak
  // here got a plan rerunning 1.17 forward passes against SQRT's 1.11).
  for (int percent = 0; percent <= 12; percent += 4) {
    const double mb = nested_peak * (1 + percent / 100.0) / (1024.0 * 1024.0);
    budget.mutable_recompute()->set_memory_budget_mb(mb);
    p.mutable_mem_param()->CopyFrom(budget);
    Net<float> wider(p);
    EXPECT_LE(wider.memory()->plan().total_bytes(), mb * 1024.0 * 1024.0);
    EXPECT_LE(wider.memory()->extra_forward_fraction(), sqrt_extra + 1e-12)
        << "budget " << percent << "% over SQRT levels 2's peak";
  }
}

// With room under the budget beyond the nested plan's peak, BUDGET keeps
// expensive outputs (convolutions inside recomputed segments, never
// rerun) as it does for one level, within the budget and with the same
// bits.  ResNet-50 at 30% of its sharing plan: the cheapest nested plan
// leaves room for some of stage 4's convolution outputs, and moving its
// cuts (RefineBudgetPlan) lowers its extra forward work.
TEST(NestedRecomputeTest, BudgetKeepsExpensiveOutputsInANestedPlan) {
  const NetParameter net = ZooTrainNet("resnet50", 1);
  ASSERT_GT(net.layer_size(), 0);
  NetParameter p = net;
  p.mutable_mem_param()->set_optimize_train(true);
  const size_t sharing = Net<float>(p).memory()->plan().total_bytes();
  MemoryOptimizationParameter budget;
  budget.set_optimize_train(true);
  budget.set_check(true);
  budget.mutable_recompute()->set_auto_(RecomputeParameter_Auto_BUDGET);
  budget.mutable_recompute()->set_levels(2);
  const size_t limit = sharing * 3 / 10;
  budget.mutable_recompute()->set_memory_budget_mb(limit / (1024.0 * 1024.0));
  p.mutable_mem_param()->CopyFrom(budget);
  Net<float> n(p);
  const NetMemory& m = *n.memory();
  EXPECT_LE(m.plan().total_bytes(), limit);
  bool nested = false;
  int kept = 0;
  for (const mem::Segment& seg : m.segments()) {
    nested = nested || seg.nested;
    if (!seg.recompute) continue;
    for (int i = seg.begin; i <= seg.end; ++i)
      kept += !m.recomputable(i) &&
              n.layers()[i]->type() == std::string("Convolution");
  }
  EXPECT_TRUE(nested);
  EXPECT_GT(kept, 0);
  // Moving the searched split's cuts saves forward work at the same
  // budget.
  EXPECT_GT(m.budget_searched_fraction(), 0);
  EXPECT_LT(m.extra_forward_fraction(), m.budget_searched_fraction());
  ExpectBitIdentical(TrainTrajectory(net, nullptr, 2),
                     TrainTrajectory(net, &budget, 2),
                     "ResNet-50 BUDGET 30% levels 2");
}

TEST(NestedRecomputeTest, BadLevelsAreRefusedByName) {
  NetParameter p = BlockNet(3);
  MemoryOptimizationParameter mp = Sqrt(3);
  p.mutable_mem_param()->CopyFrom(mp);
  try {
    Net<float> n(p);
    FAIL() << "levels: 3 was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("levels"), std::string::npos)
        << e.what();
  }
  mp = Sqrt(2);
  mp.mutable_recompute()->set_auto_(RecomputeParameter_Auto_CHEAP);
  p.mutable_mem_param()->CopyFrom(mp);
  try {
    Net<float> n(p);
    FAIL() << "levels: 2 with CHEAP was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("auto: SQRT"), std::string::npos)
        << e.what();
  }
}

// ResNet-50 and GoogLeNet (branches, Eltwise, Concat) train identically
// with nested recomputation, in a plan no larger than SQRT's.
TEST(NestedRecomputeTest, BranchyZooNetsTrainBitIdentically) {
  for (const ZooModel& m : ZooModels()) {
    if (m.name != "resnet50" && m.name != "googlenet") continue;
    NetParameter net = ZooTrainVal(m, 1);
    net.mutable_state()->set_phase(TRAIN);
    const Trajectory base = TrainTrajectory(net, nullptr, 2);
    const MemoryOptimizationParameter one = Sqrt(1), two = Sqrt(2);
    const Trajectory nested = TrainTrajectory(net, &two, 2);
    ExpectBitIdentical(base, nested, m.name + " SQRT levels 2");
    NetParameter p = net;
    p.mutable_mem_param()->CopyFrom(one);
    Net<float> single(p);
    EXPECT_LE(nested.planned_bytes, single.memory()->plan().total_bytes())
        << m.name;
  }
}

}  // namespace
}  // namespace caffe
