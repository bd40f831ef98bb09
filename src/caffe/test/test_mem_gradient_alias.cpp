// Gradient aliasing (MemoryContract::diff_alias_bottom): under mem_param a
// Split's bottom diff is its top 0's diff memory and a unit Eltwise SUM's
// bottom 0 diff is its top's.  These tests prove that the net aliases
// exactly the declared pairs, that training stays bit-identical at every
// setting, that the plan is smaller for it, and that a diff the caller
// asks for (exclude_blob, RequestBlobs, KeepBlobs) still holds Caffe's
// value.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "caffe/caffe.hpp"
#include "caffe/mem/analyze.hpp"
#include "caffe/mem/planner.hpp"
#include "caffe/net_graph_builder.hpp"
#include "caffe/test/mem_trajectory_util.hpp"
#include "caffe/util/io.hpp"

namespace caffe {
namespace {

// Two residual blocks with identity shortcuts (Split inserted by the net),
// the second Eltwise's bottom 0 being the first's top through a Split: a
// chain of aliases.  `extra` is appended to the prototxt.
NetParameter ResidualNet(const std::string& extra = "") {
  const std::string text = R"(
name: "residual"
layer { name: "data" type: "DummyData" top: "data" top: "label"
  dummy_data_param {
    shape { dim: 4 dim: 3 dim: 8 dim: 8 } shape { dim: 4 }
    data_filler { type: "gaussian" std: 1 }
    data_filler { type: "uniform" min: 0 max: 3.9 } } }
layer { name: "conv0" type: "Convolution" bottom: "data" top: "conv0"
  convolution_param { num_output: 6 kernel_size: 3 pad: 1
    weight_filler { type: "gaussian" std: 0.3 } } }
layer { name: "relu0" type: "ReLU" bottom: "conv0" top: "conv0" }
layer { name: "conv1" type: "Convolution" bottom: "conv0" top: "conv1"
  convolution_param { num_output: 6 kernel_size: 3 pad: 1
    weight_filler { type: "gaussian" std: 0.3 } } }
layer { name: "bn1" type: "BatchNorm" bottom: "conv1" top: "conv1" }
layer { name: "sc1" type: "Scale" bottom: "conv1" top: "conv1"
  scale_param { bias_term: true } }
layer { name: "relu1" type: "ReLU" bottom: "conv1" top: "conv1" }
layer { name: "conv2" type: "Convolution" bottom: "conv1" top: "conv2"
  convolution_param { num_output: 6 kernel_size: 3 pad: 1
    weight_filler { type: "gaussian" std: 0.3 } } }
layer { name: "add" type: "Eltwise" bottom: "conv0" bottom: "conv2"
  top: "add" }
layer { name: "relu2" type: "ReLU" bottom: "add" top: "add" }
layer { name: "conv3" type: "Convolution" bottom: "add" top: "conv3"
  convolution_param { num_output: 6 kernel_size: 3 pad: 1
    weight_filler { type: "gaussian" std: 0.3 } } }
layer { name: "add2" type: "Eltwise" bottom: "add" bottom: "conv3"
  top: "add2" eltwise_param { coeff: 1 coeff: 1 } }
layer { name: "pool" type: "Pooling" bottom: "add2" top: "pool"
  pooling_param { pool: AVE global_pooling: true } }
layer { name: "ip" type: "InnerProduct" bottom: "pool" top: "ip"
  inner_product_param { num_output: 4
    weight_filler { type: "gaussian" std: 0.5 } } }
layer { name: "loss" type: "SoftmaxWithLoss" bottom: "ip" bottom: "label"
  top: "loss" }
)" + extra;
  NetParameter param;
  ReadProtoFromTextString(text, "residual net", &param);
  param.mutable_state()->set_phase(TRAIN);
  return param;
}

NetParameter WithMemParam(NetParameter param, const std::string& mp) {
  ReadProtoFromTextString(mp, "mem_param", param.mutable_mem_param());
  return param;
}

const Layer<float>& LayerNamed(const Net<float>& net, const std::string& n) {
  return *net.layer_by_name(n);
}

bool SameDiff(const Net<float>& net, const std::string& a,
              const std::string& b) {
  return net.blob_by_name(a)->diff() == net.blob_by_name(b)->diff();
}

TEST(GradientAliasTest, AliasesTheDeclaredPairsUnderMemParam) {
  Net<float> net(WithMemParam(ResidualNet(), "optimize_train: true"));
  // The net inserted Splits for conv0 (conv1, add) and add (conv3, add2).
  for (const char* name : {"add", "add2", "conv0_relu0_0_split",
                           "add_relu2_0_split"})
    EXPECT_TRUE(LayerNamed(net, name).alias_bottom_diff()) << name;
  for (const char* name : {"conv1", "bn1", "sc1", "pool", "ip"})
    EXPECT_FALSE(LayerNamed(net, name).alias_bottom_diff()) << name;
  // A Split's bottom and top 0 (the conv branch), an Eltwise's bottom 0
  // (the Split's top 1, the shortcut) and its top: so the shortcut's
  // gradient runs from add2 back to add in one memory, and from add back
  // to conv0's Split.
  EXPECT_TRUE(SameDiff(net, "conv0", "conv0_relu0_0_split_0"));
  EXPECT_TRUE(SameDiff(net, "conv0_relu0_0_split_1", "add"));
  EXPECT_TRUE(SameDiff(net, "add", "add_relu2_0_split_0"));
  EXPECT_TRUE(SameDiff(net, "add_relu2_0_split_1", "add2"));
  // The other bottoms keep diffs of their own.
  EXPECT_FALSE(SameDiff(net, "conv0", "conv0_relu0_0_split_1"));
  EXPECT_FALSE(SameDiff(net, "add", "add_relu2_0_split_1"));
  EXPECT_FALSE(SameDiff(net, "add", "conv2"));
  EXPECT_FALSE(SameDiff(net, "add2", "conv3"));
  // The plan still counts what Caffe 1.0 would allocate: what it counts
  // when nothing is aliased.
  Net<float> unaliased(
      WithMemParam(ResidualNet(), "optimize_train: true share_diff: false"));
  EXPECT_EQ(unaliased.memory()->plan().unshared_bytes,
            net.memory()->plan().unshared_bytes);
}

TEST(GradientAliasTest, NothingIsAliasedWithoutMemParamOrShareDiff) {
  for (const char* mp : {"", "optimize_train: true share_diff: false",
                         "optimize_train: false optimize_test: true"}) {
    NetParameter param = ResidualNet();
    if (*mp) param = WithMemParam(param, mp);
    Net<float> net(param);
    for (const auto& layer : net.layers())
      EXPECT_FALSE(layer->alias_bottom_diff()) << mp << " "
                                               << layer->layer_param().name();
    EXPECT_FALSE(SameDiff(net, "conv0", "add")) << mp;
  }
}

TEST(GradientAliasTest, OnlyCopyingLayersDeclareIt) {
  // Weighted sums, products and maxima compute their bottom diffs.
  for (const char* op : {"operation: SUM coeff: 1 coeff: -1",
                         "operation: PROD", "operation: MAX"}) {
    NetParameter param = WithMemParam(ResidualNet(), "optimize_train: true");
    param.mutable_layer(8)->mutable_eltwise_param()->Clear();
    ASSERT_EQ("add", param.layer(8).name());
    ReadProtoFromTextString(op, "eltwise_param",
                            param.mutable_layer(8)->mutable_eltwise_param());
    Net<float> net(param);
    EXPECT_EQ(-1, LayerNamed(net, "add").Memory().diff_alias_bottom) << op;
    EXPECT_FALSE(LayerNamed(net, "add").alias_bottom_diff()) << op;
    EXPECT_FALSE(SameDiff(net, "conv0", "add")) << op;
  }
}

TEST(GradientAliasTest, ExcludedBlobsKeepTheirOwnDiffs) {
  Net<float> net(WithMemParam(ResidualNet(),
                              "optimize_train: true exclude_blob: 'add'"));
  // add is the top of one Eltwise and the bottom of a Split.
  EXPECT_FALSE(LayerNamed(net, "add").alias_bottom_diff());
  EXPECT_FALSE(LayerNamed(net, "add_relu2_0_split").alias_bottom_diff());
  EXPECT_TRUE(LayerNamed(net, "add2").alias_bottom_diff());
  EXPECT_FALSE(SameDiff(net, "add", "conv0_relu0_0_split_1"));
  EXPECT_FALSE(SameDiff(net, "add", "add_relu2_0_split_0"));
}

// Losses and weights over several iterations: memcmp-equal to no
// mem_param at every setting that aliases.
TEST(GradientAliasTest, TrainingIsBitIdentical) {
  const NetParameter param = ResidualNet();
  const Trajectory reference = TrainTrajectory(param, nullptr, 4);
  const char* settings[] = {
      "optimize_train: true",
      "optimize_train: true level: 0",
      "optimize_train: true level: 1",
      "optimize_train: true release: DYNAMIC",
      "optimize_train: true check: true",
      "optimize_train: true recompute { auto: SQRT }",
      "optimize_train: true recompute { checkpoint: 'add' }",
  };
  for (const char* text : settings) {
    MemoryOptimizationParameter mp;
    ReadProtoFromTextString(text, "mem_param", &mp);
    ExpectBitIdentical(reference, TrainTrajectory(param, &mp, 4), text);
  }
}

// The planner's gain: the same graph with every aliased top given a diff
// of its own has more bytes live at each aliased layer's backward step.
TEST(GradientAliasTest, ThePlanIsSmallerForIt) {
  Net<float> net(WithMemParam(ResidualNet(), "optimize_train: true"));
  NetGraphSource<float> source(&net);
  const mem::NetGraph aliased = source.Graph();
  mem::NetGraph separate = aliased;
  int aliased_layers = 0;
  for (const mem::GraphLayer& l : aliased.layers) {
    if (l.diff_aliased_bottom < 0) continue;
    ++aliased_layers;
    mem::GraphMemory own;
    own.bytes = aliased.blobs[l.tops[0]].count_bytes;
    separate.memories.push_back(own);
    separate.blobs[l.tops[0]].diff =
        static_cast<int>(separate.memories.size()) - 1;
  }
  EXPECT_EQ(4, aliased_layers);
  const std::vector<mem::Step>& schedule = net.memory()->schedule();
  const mem::AnalyzeOptions options;
  const size_t with_alias =
      mem::MakePlan(mem::Analyze(aliased, schedule, options).requests, 2)
          .total_bytes();
  const size_t without =
      mem::MakePlan(mem::Analyze(separate, schedule, options).requests, 2)
          .total_bytes();
  EXPECT_EQ(net.memory()->plan().total_bytes(), with_alias);
  EXPECT_LE(with_alias, without);
  const int steps = static_cast<int>(schedule.size());
  const std::vector<size_t> live_aliased = mem::LiveBytesPerStep(
      mem::Analyze(aliased, schedule, options).requests, steps);
  const std::vector<size_t> live_separate = mem::LiveBytesPerStep(
      mem::Analyze(separate, schedule, options).requests, steps);
  for (size_t i = 0; i < aliased.layers.size(); ++i) {
    const mem::GraphLayer& l = aliased.layers[i];
    if (l.diff_aliased_bottom < 0) continue;
    const int step = net.memory()->BackwardStep(static_cast<int>(i));
    EXPECT_GE(live_separate[step],
              live_aliased[step] + aliased.blobs[l.tops[0]].count_bytes)
        << l.name;
  }
}

std::vector<float> DiffOf(const Net<float>& net, const std::string& blob) {
  const Blob<float>& b = *net.blob_by_name(blob);
  return std::vector<float>(b.cpu_diff(), b.cpu_diff() + b.count());
}

// A diff asked for mid-pass holds Caffe's value after the coming
// backward, and later passes stay bit-identical.
TEST(GradientAliasTest, RequestedDiffsHoldCaffesValues) {
  Caffe::set_random_seed(77);
  Net<float> plain(ResidualNet());
  plain.Forward();
  plain.Backward();
  Caffe::set_random_seed(77);
  Net<float> net(WithMemParam(ResidualNet(), "optimize_train: true"));
  net.Forward();
  net.RequestBlobs({"add", "conv0_relu0_0_split_0"}, true);
  EXPECT_FALSE(LayerNamed(net, "add").alias_bottom_diff());
  EXPECT_FALSE(LayerNamed(net, "conv0_relu0_0_split").alias_bottom_diff());
  EXPECT_FALSE(LayerNamed(net, "add_relu2_0_split").alias_bottom_diff());
  EXPECT_TRUE(LayerNamed(net, "add2").alias_bottom_diff());
  EXPECT_FALSE(SameDiff(net, "add", "conv0_relu0_0_split_1"));
  net.Backward();
  for (const char* name : {"add", "conv0_relu0_0_split_0"}) {
    const std::vector<float> want = DiffOf(plain, name);
    const std::vector<float> got = DiffOf(net, name);
    ASSERT_EQ(want.size(), got.size());
    EXPECT_EQ(0, std::memcmp(want.data(), got.data(),
                             want.size() * sizeof(float)))
        << name;
  }
  // Every parameter gradient as without mem_param, this pass and the next
  // (planned again without those aliases).
  for (int pass = 0; pass < 2; ++pass) {
    if (pass == 1) {
      plain.ClearParamDiffs();
      Caffe::set_random_seed(78);  // the same dummy data
      plain.Forward();
      plain.Backward();
      net.ClearParamDiffs();
      Caffe::set_random_seed(78);
      net.Forward();
      net.Backward();
      EXPECT_EQ(DiffOf(plain, "add"), DiffOf(net, "add"));
    }
    for (size_t p = 0; p < plain.learnable_params().size(); ++p) {
      const Blob<float>& a = *plain.learnable_params()[p];
      const Blob<float>& b = *net.learnable_params()[p];
      EXPECT_EQ(0, std::memcmp(a.cpu_diff(), b.cpu_diff(),
                               a.count() * sizeof(float)))
          << "pass " << pass << " param " << p;
    }
  }
}

TEST(GradientAliasTest, KeptBlobsEndTheirAliases) {
  Net<float> net(WithMemParam(ResidualNet(), "optimize_train: true"));
  net.KeepBlobs({"add2"});
  EXPECT_FALSE(LayerNamed(net, "add2").alias_bottom_diff());
  EXPECT_TRUE(LayerNamed(net, "add").alias_bottom_diff());
  EXPECT_FALSE(SameDiff(net, "add2", "add_relu2_0_split_1"));
}

// A top sharing a bottom's diff without declaring it is an internal error
// the graph builder catches.
TEST(GradientAliasTest, UndeclaredDiffSharingIsRefused) {
  Net<float> net(WithMemParam(ResidualNet(), "optimize_train: true"));
  net.blob_by_name("conv1")->ShareDiff(*net.blob_by_name(
      "conv0_relu0_0_split_0"));
  NetGraphSource<float> source(&net);
  EXPECT_THROW(source.Graph(), InternalError);
}

}  // namespace
}  // namespace caffe
