// Recomputation (mem_param.recompute) on real nets: training with segments
// that run forward again during backward gives bit-identical losses and
// weights to training without mem_param, for every net in models/ with
// SQRT, with BUDGET and with user checkpoints (one inside a branch for
// GoogLeNet and ResNet-50), in check mode; Dropout masks are replayed and
// BatchNorm's running statistics advance once per iteration.
#include <gtest/gtest.h>

#include <cstdio>

#include <map>
#include <string>
#include <vector>

#include "caffe/caffe.hpp"
#include "caffe/util/mem_report.hpp"
#include "caffe/test/mem_trajectory_util.hpp"
#include "caffe/test/model_zoo_util.hpp"

namespace caffe {
namespace {

// A mid-net blob per model to cut at (GoogLeNet and ResNet-50: inside a
// branch of an inception module / residual block).
std::string UserCheckpoint(const std::string& model) {
  static const std::map<std::string, std::string> kMid = {
      {"lenet", "pool1"},      {"cifar10_quick", "pool1"},
      {"caffenet", "pool2"},   {"alexnet", "pool2"},
      {"googlenet", "inception_3b/3x3"}, {"vgg16", "pool3"},
      {"resnet50", "res3a_branch2b"}};
  return kMid.at(model);
}

MemoryOptimizationParameter Recompute(
    RecomputeParameter_Auto mode, double budget_mb = 0,
    const std::vector<std::string>& checkpoints = {}) {
  MemoryOptimizationParameter mp;
  mp.set_check(true);
  RecomputeParameter* rp = mp.mutable_recompute();
  rp->set_auto_(mode);
  if (budget_mb > 0) rp->set_memory_budget_mb(budget_mb);
  for (const std::string& c : checkpoints) rp->add_checkpoint(c);
  return mp;
}

// Planned bytes of the TRAIN net `p` under `mp`.
size_t PlannedBytes(NetParameter p, const MemoryOptimizationParameter& mp) {
  p.mutable_mem_param()->CopyFrom(mp);
  p.mutable_state()->set_phase(TRAIN);
  Net<float> net(p);
  return net.memory()->plan().total_bytes();
}

class RecomputeZooTest : public ::testing::TestWithParam<ZooModel> {};

TEST_P(RecomputeZooTest, TrainingIsBitIdentical) {
  const ZooModel m = GetParam();
  NetParameter net = ZooTrainVal(m, m.size <= 32 ? 8 : 1);
  net.mutable_state()->set_phase(TRAIN);
  const int iters = 2;
  const Trajectory base = TrainTrajectory(net, nullptr, iters);
  for (float l : base.losses) ASSERT_TRUE(std::isfinite(l)) << m.name;

  const MemoryOptimizationParameter sqrt =
      Recompute(RecomputeParameter_Auto_SQRT);
  const Trajectory with_sqrt = TrainTrajectory(net, &sqrt, iters);
  ExpectBitIdentical(base, with_sqrt, m.name + " SQRT");

  // Recomputation saves memory beyond sharing alone on the big nets; on
  // LeNet and CIFAR-10 quick SQRT may find nothing to save and keep all.
  MemoryOptimizationParameter share_only;
  const size_t shared = PlannedBytes(net, share_only);
  EXPECT_LE(with_sqrt.planned_bytes, shared) << m.name;
  if (m.size > 32) EXPECT_LT(with_sqrt.planned_bytes, shared) << m.name;

  // A budget halfway between the two plans fits with the least work.
  const double budget_mb =
      (shared + with_sqrt.planned_bytes) / 2.0 / (1024.0 * 1024.0);
  const MemoryOptimizationParameter budget =
      Recompute(RecomputeParameter_Auto_BUDGET, budget_mb);
  const Trajectory with_budget = TrainTrajectory(net, &budget, iters);
  ExpectBitIdentical(base, with_budget, m.name + " BUDGET");
  EXPECT_LE(with_budget.planned_bytes, budget_mb * 1024.0 * 1024.0)
      << m.name;

  // CHEAP reruns only cheap layers.  Where that saves nothing it
  // recomputes nothing, but its out-of-place chain starts still cost a
  // transient copy at the largest layer (AlexNet: +2.4%): at most 5%.
  const MemoryOptimizationParameter cheap =
      Recompute(RecomputeParameter_Auto_CHEAP);
  const Trajectory with_cheap = TrainTrajectory(net, &cheap, iters);
  ExpectBitIdentical(base, with_cheap, m.name + " CHEAP");
  std::printf("%s: CHEAP plan %.1f%% of sharing alone\n", m.name.c_str(),
              100.0 * with_cheap.planned_bytes / shared);
  EXPECT_LE(with_cheap.planned_bytes, shared * 1.05) << m.name;
  if (m.name == "resnet50" || m.name == "googlenet")
    EXPECT_LT(with_cheap.planned_bytes, shared) << m.name;

  const MemoryOptimizationParameter user = Recompute(
      RecomputeParameter_Auto_NONE, 0, {UserCheckpoint(m.name)});
  ExpectBitIdentical(base, TrainTrajectory(net, &user, iters),
                     m.name + " checkpoint " + UserCheckpoint(m.name));
}

INSTANTIATE_TEST_SUITE_P(Models, RecomputeZooTest,
                         ::testing::ValuesIn(ZooModels()),
                         [](const ::testing::TestParamInfo<ZooModel>& info) {
                           return info.param.name;
                         });

// Convolution, BatchNorm + Scale + ReLU in place, Dropout, twice, then a
// classifier: the randomness and the running statistics recomputation
// must not disturb.
const char* kBnDropoutNet = R"(
name: "bn_dropout"
layer { name: "d" type: "DummyData" top: "x" top: "label"
  dummy_data_param { shape { dim: 4 dim: 3 dim: 8 dim: 8 } shape { dim: 4 }
    data_filler { type: "gaussian" std: 1 } data_filler { type: "constant" value: 1 } } }
layer { name: "conv1" type: "Convolution" bottom: "x" top: "c1"
  convolution_param { num_output: 4 kernel_size: 3 pad: 1 weight_filler { type: "gaussian" std: 0.3 } } }
layer { name: "bn1" type: "BatchNorm" bottom: "c1" top: "c1" }
layer { name: "scale1" type: "Scale" bottom: "c1" top: "c1" scale_param { bias_term: true } }
layer { name: "relu1" type: "ReLU" bottom: "c1" top: "c1" }
layer { name: "drop1" type: "Dropout" bottom: "c1" top: "c1" dropout_param { dropout_ratio: 0.3 } }
layer { name: "conv2" type: "Convolution" bottom: "c1" top: "c2"
  convolution_param { num_output: 4 kernel_size: 3 pad: 1 weight_filler { type: "gaussian" std: 0.3 } } }
layer { name: "bn2" type: "BatchNorm" bottom: "c2" top: "c2" }
layer { name: "relu2" type: "ReLU" bottom: "c2" top: "c2" }
layer { name: "drop2" type: "Dropout" bottom: "c2" top: "d2" dropout_param { dropout_ratio: 0.5 } }
layer { name: "pool" type: "Pooling" bottom: "d2" top: "p"
  pooling_param { pool: MAX kernel_size: 2 stride: 2 } }
layer { name: "ip" type: "InnerProduct" bottom: "p" top: "y"
  inner_product_param { num_output: 3 weight_filler { type: "gaussian" std: 0.3 } } }
layer { name: "loss" type: "SoftmaxWithLoss" bottom: "y" bottom: "label" top: "l" }
)";

NetParameter ParseNet(const char* text) {
  NetParameter p;
  ReadProtoFromTextString(text, "test net", &p);
  p.mutable_state()->set_phase(TRAIN);
  return p;
}

TEST(RecomputeTest, DropoutIsReplayedAndBatchNormUpdatesOnce) {
  const NetParameter net = ParseNet(kBnDropoutNet);
  const Trajectory base = TrainTrajectory(net, nullptr, 4);
  // Checkpoints after the first block and after conv2's block: both
  // Dropout layers and both BatchNorms are in recomputed segments.
  for (const std::vector<std::string>& cps :
       std::vector<std::vector<std::string> >{{"c1"}, {"c1", "d2"}, {"c2"}}) {
    const MemoryOptimizationParameter mp =
        Recompute(RecomputeParameter_Auto_NONE, 0, cps);
    // The weights compared include BatchNorm's running statistics.
    ExpectBitIdentical(base, TrainTrajectory(net, &mp, 4),
                       "checkpoint " + cps[0]);
  }
  for (int level = 0; level <= 2; ++level) {
    MemoryOptimizationParameter mp = Recompute(RecomputeParameter_Auto_SQRT);
    mp.set_level(level);
    ExpectBitIdentical(base, TrainTrajectory(net, &mp, 4),
                       "SQRT level " + std::to_string(level));
  }
  MemoryOptimizationParameter dynamic = Recompute(RecomputeParameter_Auto_SQRT);
  dynamic.set_release(MemoryOptimizationParameter_Release_DYNAMIC);
  ExpectBitIdentical(base, TrainTrajectory(net, &dynamic, 4), "SQRT DYNAMIC");
}

TEST(RecomputeTest, CheckpointsThatArePinnedStillWork) {
  // "c1" is also an exclude_blob; "y" is the loss's input and "p" a blob
  // kept for reading: every combination trains identically.
  const NetParameter net = ParseNet(kBnDropoutNet);
  const Trajectory base = TrainTrajectory(net, nullptr, 3);
  MemoryOptimizationParameter mp =
      Recompute(RecomputeParameter_Auto_NONE, 0, {"c1", "p"});
  mp.add_exclude_blob("c1");
  mp.add_exclude_blob("p");
  ExpectBitIdentical(base, TrainTrajectory(net, &mp, 3), "excluded");
  // A net output as checkpoint: add a side output after the pooling.
  NetParameter with_output = net;
  LayerParameter* side = with_output.add_layer();
  side->set_name("side");
  side->set_type("TanH");
  side->add_bottom("p");
  side->add_top("side_out");
  const Trajectory base2 = TrainTrajectory(with_output, nullptr, 3);
  const MemoryOptimizationParameter out =
      Recompute(RecomputeParameter_Auto_NONE, 0, {"side_out", "c2"});
  ExpectBitIdentical(base2, TrainTrajectory(with_output, &out, 3), "output");
}

TEST(RecomputeTest, TooSmallABudgetNamesTheSmallestThatWorks) {
  NetParameter net = ParseNet(kBnDropoutNet);
  net.mutable_mem_param()->CopyFrom(
      Recompute(RecomputeParameter_Auto_BUDGET, 0.0001));
  try {
    Net<float> n(net);
    FAIL() << "a 100-byte budget was accepted";
  } catch (const Error& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("memory_budget_mb"), std::string::npos) << msg;
    EXPECT_NE(msg.find("smallest planned peak"), std::string::npos) << msg;
  }
  net.mutable_mem_param()->CopyFrom(
      Recompute(RecomputeParameter_Auto_NONE, 0, {"no_such_blob"}));
  EXPECT_THROW(Net<float> n(net), Error);
}

TEST(RecomputeTest, ScheduleSegmentsAndReport) {
  NetParameter net = ParseNet(kBnDropoutNet);
  net.mutable_mem_param()->CopyFrom(
      Recompute(RecomputeParameter_Auto_NONE, 0, {"c1"}));
  Net<float> n(net);
  const NetMemory& m = *n.memory();
  ASSERT_TRUE(m.recomputes());
  ASSERT_EQ(2u, m.segments().size());
  // The segment ends after the in-place chain on c1 (drop1, layer 5).
  EXPECT_EQ(5, m.segments()[0].end);
  EXPECT_EQ(std::vector<std::string>({"c1"}), m.checkpoints());
  // The data layer is never run again; the chain's layers are.
  EXPECT_FALSE(m.recomputable(0));
  EXPECT_EQ(-1, m.RecomputeStep(0));
  for (int i = 1; i <= 5; ++i) {
    EXPECT_GT(m.RecomputeStep(i), m.BackwardStep(6)) << i;
    EXPECT_LT(m.RecomputeStep(i), m.BackwardStep(i)) << i;
  }
  EXPECT_GT(m.extra_forward_fraction(), 0.0);
  EXPECT_LT(m.extra_forward_fraction(), 1.0);
  // conv2's output is computed again: its buffer has a second lifetime.
  bool second_life = false, bn_copy = false, scale_copy = false;
  for (const auto& b : m.buffers()) {
    if (b.name == "c1@recompute") second_life = true;
    if (b.name == "bn1/kept0") bn_copy = true;
    if (b.name.rfind("scale1/kept", 0) == 0) scale_copy = true;
  }
  EXPECT_TRUE(second_life);
  // Scale in place after BatchNorm reads BatchNorm's normalized copy
  // rather than keeping its own.
  EXPECT_TRUE(bn_copy);
  EXPECT_FALSE(scale_copy);
  // The report lists the checkpoint and both planned figures.
  const MemoryReport r = BuildMemoryReport(net, TRAIN, 2);
  const std::string text = FormatMemoryReport(r);
  EXPECT_NE(text.find("recomputation: 1 checkpoints (c1)"), std::string::npos)
      << text;
  EXPECT_NE(text.find("extra forward work"), std::string::npos) << text;
  // Per layer of the recomputed segment: the data layer kept, the chain
  // rerun; the predicted shares add up to the extra forward work, and
  // the planned run measured the reruns.
  ASSERT_EQ(r.recompute_layers.size(), 6u);
  EXPECT_EQ(r.recompute_layers[0].layer, "d");
  EXPECT_FALSE(r.recompute_layers[0].recomputed);
  EXPECT_EQ(r.recompute_layers[0].predicted, 0.0);
  double predicted = 0, measured = 0;
  for (size_t i = 1; i < r.recompute_layers.size(); ++i) {
    EXPECT_TRUE(r.recompute_layers[i].recomputed) << i;
    predicted += r.recompute_layers[i].predicted;
    measured += r.recompute_layers[i].measured_ms;
  }
  EXPECT_NEAR(predicted, r.extra_forward_fraction, 1e-12);
  EXPECT_GT(measured, 0.0);
  EXPECT_NE(text.find("Layers in recomputed segments (6;"), std::string::npos)
      << text;
  EXPECT_NE(RenderMemorySvg(r).find("class=\"checkpoint\""),
            std::string::npos);
}

}  // namespace
}  // namespace caffe
