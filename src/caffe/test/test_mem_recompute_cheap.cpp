// recompute { auto: CHEAP }: expensive layers' outputs are kept and only
// the cheap layers between them run again (util/expensive_layers.hpp).
// These tests prove the prototxt rewrite keeps every reader's values,
// that no expensive layer is rerun, that training stays bit-identical,
// and that the plan is smaller than sharing alone on a net of
// Convolution -> BatchNorm -> Scale -> ReLU blocks.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "caffe/caffe.hpp"
#include "caffe/test/block_net_util.hpp"
#include "caffe/test/mem_trajectory_util.hpp"
#include "caffe/test/model_zoo_util.hpp"
#include "caffe/util/expensive_layers.hpp"
#include "caffe/util/io.hpp"

namespace caffe {
namespace {

MemoryOptimizationParameter Cheap() {
  MemoryOptimizationParameter mp;
  mp.mutable_recompute()->set_auto_(RecomputeParameter_Auto_CHEAP);
  return mp;
}

TEST(CheapRecomputeTest, ExpensiveTypesAreTheMatrixProducts) {
  for (const char* t : {"Convolution", "Deconvolution", "InnerProduct",
                        "RNN", "LSTM"})
    EXPECT_TRUE(IsExpensiveLayerType(t)) << t;
  for (const char* t : {"BatchNorm", "Scale", "ReLU", "Eltwise", "Pooling",
                        "Concat", "LRN", "Dropout", "Split"})
    EXPECT_FALSE(IsExpensiveLayerType(t)) << t;
}

TEST(CheapRecomputeTest, TheRewriteStartsEachChainOutOfPlace) {
  NetParameter param = BlockNet(2);
  EXPECT_EQ(2, KeepExpensiveOutputs(&param));  // c0, c1; ip's reader is not
  auto layer = [&](const std::string& name) -> const LayerParameter& {
    for (const LayerParameter& l : param.layer())
      if (l.name() == name) return l;
    ADD_FAILURE() << name;
    return param.layer(0);
  };
  EXPECT_EQ("c0/c0", layer("c0").top(0));
  EXPECT_EQ("c0/c0", layer("bnc0").bottom(0));
  EXPECT_EQ("c0", layer("bnc0").top(0));
  EXPECT_EQ("c0", layer("scc0").bottom(0));  // the rest stays in place
  EXPECT_EQ("c0", layer("scc0").top(0));
  EXPECT_EQ("c0", layer("c1").bottom(0));    // readers see the final value
  EXPECT_EQ("c0", layer("sum1").bottom(0));
  EXPECT_EQ("ip", layer("ip").top(0));
  // A name already taken gets a suffix.
  NetParameter taken = BlockNet(2);
  for (LayerParameter& l : *taken.mutable_layer()) {
    if (l.name() == "pool") l.set_top(0, "c0/c0");
    if (l.name() == "ip") l.set_bottom(0, "c0/c0");
  }
  EXPECT_EQ(2, KeepExpensiveOutputs(&taken));
  EXPECT_EQ("c0/c0_", taken.layer(1).top(0));
  EXPECT_EQ("c0/c0_", taken.layer(2).bottom(0));
}

TEST(CheapRecomputeTest, OnlyCheapLayersRunAgain) {
  NetParameter param = BlockNet(4);
  param.mutable_mem_param()->CopyFrom(Cheap());
  Net<float> net(param);
  const NetMemory& memory = *net.memory();
  ASSERT_FALSE(memory.segments().empty());
  EXPECT_TRUE(memory.recomputes());
  for (size_t i = 0; i < net.layers().size(); ++i) {
    const std::string type = net.layers()[i]->type();
    if (IsExpensiveLayerType(type))
      EXPECT_FALSE(memory.recomputable(static_cast<int>(i)))
          << net.layer_names()[i];
    if (type == "BatchNorm" || type == "ReLU")
      EXPECT_TRUE(memory.recomputable(static_cast<int>(i)))
          << net.layer_names()[i];
  }
  // Timed: the convolutions never recompute, the chains do.
  net.set_layer_timing(true);
  net.Forward();
  net.Backward();
  double cheap_ms = 0;
  for (size_t i = 0; i < net.layers().size(); ++i) {
    if (IsExpensiveLayerType(net.layers()[i]->type()))
      EXPECT_EQ(0, net.recompute_ms()[i]) << net.layer_names()[i];
    else
      cheap_ms += net.recompute_ms()[i];
  }
  EXPECT_GT(cheap_ms, 0);
}

TEST(CheapRecomputeTest, ThePlanIsSmallerThanSharingAlone) {
  const NetParameter param = BlockNet(6);
  const Trajectory shared =
      TrainTrajectory(param, &MemoryOptimizationParameter::default_instance(), 1);
  const MemoryOptimizationParameter cheap = Cheap();
  const Trajectory with_cheap = TrainTrajectory(param, &cheap, 1);
  EXPECT_LT(with_cheap.planned_bytes, shared.planned_bytes);
  std::printf("block net: sharing %zu bytes, CHEAP %zu (%.1f%%)\n",
              shared.planned_bytes, with_cheap.planned_bytes,
              100.0 * with_cheap.planned_bytes / shared.planned_bytes);
}

// The finest split keeps every residual sum's output from forward until
// its reader's segment reruns; a coarser split reruns those sums instead,
// and CHEAP takes whichever plans smaller.
TEST(CheapRecomputeTest, ChoosesASplitNoLargerThanTheFinest) {
  NetParameter param = BlockNet(12);
  param.mutable_mem_param()->CopyFrom(Cheap());
  Net<float> net(param);
  const NetMemory& memory = *net.memory();
  ASSERT_GT(memory.cheap_finest_bytes(), 0u);
  EXPECT_LE(memory.plan().total_bytes(), memory.cheap_finest_bytes());
  int expensive = 0;
  for (const auto& layer : net.layers())
    expensive += IsExpensiveLayerType(layer->type());
  std::printf("12 blocks: finest split %zu bytes, chosen %zu bytes in %zu "
              "segments (%d expensive layers)\n",
              memory.cheap_finest_bytes(), memory.plan().total_bytes(),
              memory.segments().size(), expensive);
  for (size_t i = 0; i < net.layers().size(); ++i)
    if (IsExpensiveLayerType(net.layers()[i]->type()))
      EXPECT_FALSE(memory.recomputable(static_cast<int>(i)));
}

TEST(CheapRecomputeTest, TrainingIsBitIdentical) {
  const NetParameter param = BlockNet(4);
  const Trajectory reference = TrainTrajectory(param, nullptr, 4);
  const char* settings[] = {
      "recompute { auto: CHEAP }",
      "level: 0 recompute { auto: CHEAP }",
      "release: DYNAMIC recompute { auto: CHEAP }",
      "check: true recompute { auto: CHEAP }",
  };
  for (const char* text : settings) {
    MemoryOptimizationParameter mp;
    ReadProtoFromTextString(text, "mem_param", &mp);
    ExpectBitIdentical(reference, TrainTrajectory(param, &mp, 4), text);
  }
}

// cheap_multiply_adds: matrix products doing at most that many
// multiply-adds per output value count as cheap and may rerun.  The block
// net's 3x3 convolutions over 8 channels do 72.
TEST(CheapRecomputeTest, SmallMatrixProductsRerunBelowTheThreshold) {
  const NetParameter param = BlockNet(6);
  auto convs_rerun = [&param](int threshold, size_t* planned) {
    MemoryOptimizationParameter mp = Cheap();
    if (threshold >= 0)
      mp.mutable_recompute()->set_cheap_multiply_adds(threshold);
    NetParameter p = param;
    p.mutable_mem_param()->CopyFrom(mp);
    Net<float> net(p);
    *planned = net.memory()->plan().total_bytes();
    int rerun = 0;
    for (size_t i = 0; i < net.layers().size(); ++i)
      if (std::string(net.layers()[i]->type()) == "Convolution")
        rerun += net.memory()->recomputable(static_cast<int>(i));
    return rerun;
  };
  size_t by_type = 0, at_71 = 0, at_72 = 0;
  EXPECT_EQ(0, convs_rerun(-1, &by_type));
  EXPECT_EQ(0, convs_rerun(71, &at_71));
  EXPECT_EQ(by_type, at_71);
  EXPECT_GT(convs_rerun(72, &at_72), 0);
  EXPECT_LT(at_72, by_type);
  MemoryOptimizationParameter mp = Cheap();
  mp.mutable_recompute()->set_cheap_multiply_adds(72);
  ExpectBitIdentical(TrainTrajectory(param, nullptr, 3),
                     TrainTrajectory(param, &mp, 3),
                     "CHEAP cheap_multiply_adds: 72");
  // Only with auto: CHEAP.
  NetParameter sqrt = param;
  ReadProtoFromTextString(
      "recompute { auto: SQRT cheap_multiply_adds: 72 }", "mem_param",
      sqrt.mutable_mem_param());
  try {
    Net<float> net(sqrt);
    FAIL() << "cheap_multiply_adds with SQRT was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("cheap_multiply_adds"),
              std::string::npos)
        << e.what();
  }
}

// ResNet-50 with cheap_multiply_adds: 128 (its stage 2 and 3 1x1
// expansions and res2a's projection rerun; conv1, at 147, is kept): the
// plan is at most 55% of sharing alone's, and training is bit-identical.
TEST(CheapRecomputeTest, ResNet50WithTheThresholdPlansUnder55Percent) {
  const NetParameter net = ZooTrainNet("resnet50", 2);
  ASSERT_GT(net.layer_size(), 0);
  NetParameter p = net;
  p.mutable_mem_param()->set_optimize_train(true);
  const size_t sharing = Net<float>(p).memory()->plan().total_bytes();
  MemoryOptimizationParameter mp = Cheap();
  mp.set_optimize_train(true);
  p.mutable_mem_param()->CopyFrom(mp);
  const size_t by_type = Net<float>(p).memory()->plan().total_bytes();
  mp.mutable_recompute()->set_cheap_multiply_adds(128);
  p.mutable_mem_param()->CopyFrom(mp);
  const size_t with_threshold = Net<float>(p).memory()->plan().total_bytes();
  std::printf("ResNet-50 b2: sharing %zu, CHEAP %zu (%.1f%%), with "
              "cheap_multiply_adds 128 %zu (%.1f%%)\n",
              sharing, by_type, 100.0 * by_type / sharing, with_threshold,
              100.0 * with_threshold / sharing);
  EXPECT_LE(with_threshold, sharing * 55 / 100);
  EXPECT_LT(with_threshold, by_type);
  ExpectBitIdentical(TrainTrajectory(net, nullptr, 2),
                     TrainTrajectory(net, &mp, 2),
                     "ResNet-50 CHEAP cheap_multiply_adds: 128");
}

// The names users know hold what they held: with the blobs kept readable,
// a forward pass gives every original blob the values of a plain net.
TEST(CheapRecomputeTest, OriginalNamesKeepTheirValues) {
  const NetParameter plain_param = BlockNet(2);
  Caffe::set_random_seed(5);
  Net<float> plain(plain_param);
  plain.Forward();
  NetParameter param = plain_param;
  param.mutable_mem_param()->CopyFrom(Cheap());
  for (const std::string& name : plain.blob_names())
    param.mutable_mem_param()->add_exclude_blob(name);
  Caffe::set_random_seed(5);
  Net<float> net(param);
  net.Forward();
  EXPECT_TRUE(net.has_blob("c0/c0"));
  for (const std::string& name : plain.blob_names()) {
    const Blob<float>& a = *plain.blob_by_name(name);
    const Blob<float>& b = *net.blob_by_name(name);
    ASSERT_EQ(a.count(), b.count()) << name;
    EXPECT_EQ(0, std::memcmp(a.cpu_data(), b.cpu_data(),
                             a.count() * sizeof(float)))
        << name;
  }
}

}  // namespace
}  // namespace caffe
