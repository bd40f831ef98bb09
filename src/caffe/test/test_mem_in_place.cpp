// In place by plan (MemoryContract::top_overwrites_bottoms): an Eltwise's
// top lies exactly over a bottom that the Eltwise reads for the last time,
// so a residual block's sum needs no memory of its own.  And layers whose
// backward never runs (Layer::set_backward_runs) keep nothing for it:
// Scale in place then makes no copy of its input.  These tests prove the
// pairing happens where it may and only there, that the plan is smaller
// for it, that results stay bit-identical, and that the overwritten bottom
// refuses reads.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "caffe/caffe.hpp"
#include "caffe/mem/planner.hpp"
#include "caffe/test/mem_trajectory_util.hpp"
#include "caffe/util/io.hpp"
#include "caffe/util/memory_fit.hpp"

namespace caffe {
namespace {

// One residual block: the branch conv -> BN -> Scale ends in the Eltwise,
// whose other bottom (the shortcut) is read again by conv1's backward.
// With `loss`, a training net; without, a deploy net, whose widest step is
// the sum (1 x 1 convolutions need no column buffer).
NetParameter BlockNet(bool loss) {
  std::string text = R"(
name: "block"
layer { name: "data" type: "DummyData" top: "data" top: "label"
  dummy_data_param {
    shape { dim: 2 dim: 4 dim: 6 dim: 6 } shape { dim: 2 }
    data_filler { type: "gaussian" std: 1 }
    data_filler { type: "uniform" min: 0 max: 2.9 } } }
layer { name: "conv0" type: "Convolution" bottom: "data" top: "conv0"
  convolution_param { num_output: 4 kernel_size: 1 engine: CAFFE
    weight_filler { type: "gaussian" std: 0.3 } } }
layer { name: "relu0" type: "ReLU" bottom: "conv0" top: "conv0" }
layer { name: "conv1" type: "Convolution" bottom: "conv0" top: "conv1"
  convolution_param { num_output: 4 kernel_size: 1 engine: CAFFE
    weight_filler { type: "gaussian" std: 0.3 } } }
layer { name: "bn1" type: "BatchNorm" bottom: "conv1" top: "conv1" }
layer { name: "sc1" type: "Scale" bottom: "conv1" top: "conv1"
  scale_param { bias_term: true } }
layer { name: "sum" type: "Eltwise" bottom: "conv1" bottom: "conv0"
  top: "sum" }
layer { name: "relu1" type: "ReLU" bottom: "sum" top: "sum" }
layer { name: "ip" type: "InnerProduct" bottom: "sum" top: "ip"
  inner_product_param { num_output: 3
    weight_filler { type: "gaussian" std: 0.5 } } }
)";
  if (loss) {
    text += R"(layer { name: "loss" type: "SoftmaxWithLoss" bottom: "ip"
  bottom: "label" top: "loss" })";
  } else {
    text += R"(layer { name: "mute" type: "Silence" bottom: "label" })";
  }
  NetParameter param;
  ReadProtoFromTextString(text, "block net", &param);
  param.mutable_state()->set_phase(loss ? TRAIN : TEST);
  return param;
}

NetParameter WithMemParam(NetParameter param, const std::string& mp) {
  ReadProtoFromTextString(mp, "mem_param", param.mutable_mem_param());
  return param;
}

int RequestNamed(const std::vector<mem::BufferRequest>& requests,
                 const std::string& name) {
  for (size_t i = 0; i < requests.size(); ++i)
    if (requests[i].name == name) return static_cast<int>(i);
  return -1;
}

// The sum lies over conv1 (its branch input, read by nobody later), never
// over the shortcut, which conv1's backward reads.
void ExpectSumOverBranch(const Net<float>& net, const std::string& what) {
  const std::vector<mem::BufferRequest>& requests = net.memory()->requests();
  const mem::Plan& plan = net.memory()->plan();
  const int sum = RequestNamed(requests, "sum");
  const int branch = RequestNamed(requests, "conv1");
  ASSERT_GE(sum, 0) << what;
  ASSERT_GE(branch, 0) << what;
  EXPECT_EQ(branch, requests[sum].in_place_of) << what;
  EXPECT_EQ(sum, requests[branch].in_place_of) << what;
  EXPECT_EQ(plan.placements[sum].offset, plan.placements[branch].offset)
      << what;
  EXPECT_EQ(plan.placements[sum].slot, plan.placements[branch].slot) << what;
  int pairs = 0;
  for (const mem::BufferRequest& r : requests) pairs += r.in_place_of >= 0;
  EXPECT_EQ(2, pairs) << what << ": only the sum and its branch pair";
}

TEST(InPlaceByPlanTest, TrainingNetPutsTheSumOverItsBranch) {
  Net<float> net(WithMemParam(BlockNet(true), "optimize_train: true"));
  ExpectSumOverBranch(net, "TRAIN");
}

// Unpaired, the deploy net's widest step is the sum's (shortcut, branch and
// sum); paired, it holds one buffer fewer and the plan shrinks.
TEST(InPlaceByPlanTest, DeployNetPutsTheSumOverItsBranch) {
  Net<float> net(WithMemParam(BlockNet(false), "optimize_test: true"));
  ExpectSumOverBranch(net, "TEST");
  const std::vector<mem::BufferRequest>& requests = net.memory()->requests();
  std::vector<mem::BufferRequest> unpaired = requests;
  for (mem::BufferRequest& r : unpaired) r.in_place_of = -1;
  EXPECT_LT(net.memory()->plan().shared_bytes,
            mem::MakePlan(unpaired, 2).shared_bytes);
  EXPECT_EQ(net.memory()->plan().shared_bytes,
            net.memory()->plan().lower_bound);
}

TEST(InPlaceByPlanTest, TrainingIsBitIdentical) {
  const NetParameter param = BlockNet(true);
  const Trajectory reference = TrainTrajectory(param, nullptr, 4);
  for (const char* text :
       {"optimize_train: true", "optimize_train: true check: true",
        "optimize_train: true release: DYNAMIC",
        "optimize_train: true recompute { auto: SQRT }",
        "optimize_train: true recompute { checkpoint: 'conv0' }"}) {
    MemoryOptimizationParameter mp;
    ReadProtoFromTextString(text, "mem_param", &mp);
    ExpectBitIdentical(reference, TrainTrajectory(param, &mp, 4), text);
  }
}

std::vector<float> DeployOutput(const NetParameter& param) {
  Caffe::set_random_seed(1701);
  Net<float> net(param);
  net.Forward();
  const Blob<float>& ip = *net.blob_by_name("ip");
  return std::vector<float>(ip.cpu_data(), ip.cpu_data() + ip.count());
}

TEST(InPlaceByPlanTest, DeployForwardIsBitIdentical) {
  const std::vector<float> plain = DeployOutput(BlockNet(false));
  for (const char* text :
       {"optimize_test: true", "optimize_test: true check: true"}) {
    const std::vector<float> planned =
        DeployOutput(WithMemParam(BlockNet(false), text));
    ASSERT_EQ(plain.size(), planned.size()) << text;
    EXPECT_EQ(0, std::memcmp(plain.data(), planned.data(),
                             plain.size() * sizeof(float)))
        << text;
  }
}

TEST(InPlaceByPlanTest, TheOverwrittenBranchRefusesReads) {
  Net<float> net(WithMemParam(BlockNet(false), "optimize_test: true"));
  net.Forward();
  try {
    net.blob_by_name("conv1")->cpu_data();
    FAIL() << "conv1's memory holds the sum after the forward pass";
  } catch (const BlobNotReadable& e) {
    EXPECT_NE(std::string(e.what()).find("'sum'"), std::string::npos)
        << e.what();
  }
  // The sum itself and the output read fine.
  EXPECT_NO_THROW(net.blob_by_name("ip")->cpu_data());
}

// A deploy net runs no backward: Scale in place keeps no copy of its
// input, with or without mem_param, and its Backward refuses to run.  A
// training net's Scale keeps one (or borrows BatchNorm's under mem_param).
TEST(InPlaceByPlanTest, ScaleKeepsNoCopyWhenNoBackwardRuns) {
  for (const char* mp : {"", "optimize_test: true"}) {
    NetParameter param = BlockNet(false);
    if (*mp) param = WithMemParam(param, mp);
    Net<float> net(param);
    const Layer<float>& scale = *net.layer_by_name("sc1");
    EXPECT_FALSE(scale.backward_runs()) << mp;
    EXPECT_EQ(0u, scale.InternalBytes()) << mp;
  }
  Net<float> train(BlockNet(true));
  EXPECT_TRUE(train.layer_by_name("sc1")->backward_runs());
  EXPECT_GT(train.layer_by_name("sc1")->InternalBytes(), 0u);
  // The data layer feeds no gradient: it never runs backward either.
  EXPECT_FALSE(train.layer_by_name("data")->backward_runs());

  Net<float> deploy(BlockNet(false));
  deploy.Forward();
  const int id = LayerIndex(deploy, "sc1");
  EXPECT_THROW(deploy.layers()[id]->Backward(deploy.top_vecs()[id], {true},
                                             deploy.bottom_vecs()[id]),
               InternalError);
}

// With or without mem_param, a Scale in place right after a BatchNorm
// (in place or writing a top of its own, as auto: CHEAP's rewrite makes
// it) reads what BatchNorm keeps of its normalized output instead of
// copying its input: the memory and the pass that writes the copy are
// saved, and
// training keeps the bits of a net whose Scale keeps its own copy (an
// identity Power between the two leaves it nothing to borrow).
TEST(InPlaceByPlanTest, ScaleBorrowsBatchNormsCopyWithoutMemParam) {
  const NetParameter param = BlockNet(true);
  NetParameter apart = param;
  for (LayerParameter& layer : *apart.mutable_layer()) {
    if (layer.name() == "bn1") layer.set_top(0, "bn1");
    if (layer.name() == "sc1") {
      layer.set_bottom(0, "bn1");
      layer.set_top(0, "bn1");
    }
    if (layer.name() == "sum") layer.set_bottom(0, "bn1");
  }
  NetParameter between = param;
  int sc1 = 0;
  while (between.layer(sc1).name() != "sc1") ++sc1;
  LayerParameter* identity = between.mutable_layer()->Add();
  identity->set_name("same");
  identity->set_type("Power");
  identity->add_bottom("conv1");
  identity->add_top("conv1");
  for (int i = between.layer_size() - 1; i > sc1; --i)
    between.mutable_layer()->SwapElements(i, i - 1);
  ASSERT_EQ("same", between.layer(sc1).name());
  Net<float> borrowing(param);
  Net<float> borrowing_apart(apart);
  Net<float> copying(between);
  EXPECT_TRUE(borrowing.borrows_kept_output(LayerIndex(borrowing, "sc1")));
  EXPECT_TRUE(borrowing_apart.borrows_kept_output(
      LayerIndex(borrowing_apart, "sc1")));
  EXPECT_FALSE(copying.borrows_kept_output(LayerIndex(copying, "sc1")));
  // The copy Scale would keep is not among the net's layer buffers.
  const size_t copy = copying.layer_by_name("sc1")->InternalBytes();
  EXPECT_GT(copy, 0u);
  EXPECT_EQ(NetMemoryNeed(borrowing).layer_buffers + copy,
            NetMemoryNeed(copying).layer_buffers);
  // Out of place on a bottom that only it reads, BatchNorm keeps no copy
  // at all: its backward and the Scale's normalize that bottom again.
  EXPECT_EQ(NetMemoryNeed(borrowing).layer_buffers,
            NetMemoryNeed(borrowing_apart).layer_buffers + copy);
  const auto copied = TrainTrajectory(between, nullptr, 4);
  ExpectBitIdentical(copied, TrainTrajectory(param, nullptr, 4),
                     "Scale borrowing BatchNorm's copy");
  ExpectBitIdentical(copied, TrainTrajectory(apart, nullptr, 4),
                     "Scale borrowing the copy of a BatchNorm out of place");
}

// LRN keeps its scale (one value per element) for backward only: a net
// that never runs LRN's backward keeps none, and its output has the bits
// of a net that does, across and within channels.
NetParameter LrnNet(const std::string& region, bool loss) {
  std::string text = R"(
name: "lrn"
layer { name: "data" type: "DummyData" top: "data" top: "label"
  dummy_data_param {
    shape { dim: 2 dim: 7 dim: 5 dim: 6 } shape { dim: 2 }
    data_filler { type: "gaussian" std: 1 }
    data_filler { type: "uniform" min: 0 max: 2.9 } } }
layer { name: "conv" type: "Convolution" bottom: "data" top: "conv"
  convolution_param { num_output: 7 kernel_size: 1
    weight_filler { type: "gaussian" std: 0.5 } } }
layer { name: "norm" type: "LRN" bottom: "conv" top: "norm"
  lrn_param { local_size: 3 alpha: 0.5 beta: 0.75 norm_region: )" +
                     region + R"( } }
layer { name: "ip" type: "InnerProduct" bottom: "norm" top: "ip"
  inner_product_param { num_output: 3
    weight_filler { type: "gaussian" std: 0.5 } } }
)";
  text += loss ? R"(layer { name: "loss" type: "SoftmaxWithLoss"
  bottom: "ip" bottom: "label" top: "loss" })"
               : R"(layer { name: "mute" type: "Silence" bottom: "label" })";
  NetParameter param;
  ReadProtoFromTextString(text, "lrn net", &param);
  param.mutable_state()->set_phase(TRAIN);
  return param;
}

TEST(InPlaceByPlanTest, LrnKeepsNoScaleWhenNoBackwardRuns) {
  for (const char* region : {"ACROSS_CHANNELS", "WITHIN_CHANNEL"}) {
    std::vector<std::vector<float> > norms;
    for (bool loss : {true, false}) {
      Caffe::set_random_seed(1701);
      Net<float> net(LrnNet(region, loss));
      const Layer<float>& lrn = *net.layer_by_name("norm");
      EXPECT_EQ(loss, lrn.backward_runs()) << region;
      EXPECT_EQ(loss, lrn.InternalBytes() > 0) << region;
      net.Forward();
      const Blob<float>& norm = *net.blob_by_name("norm");
      norms.emplace_back(norm.cpu_data(), norm.cpu_data() + norm.count());
    }
    ASSERT_EQ(norms[0].size(), norms[1].size());
    EXPECT_EQ(0, std::memcmp(norms[0].data(), norms[1].data(),
                             norms[0].size() * sizeof(float)))
        << region;
  }
}

}  // namespace
}  // namespace caffe
