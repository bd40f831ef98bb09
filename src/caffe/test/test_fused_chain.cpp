// Fused steps (fused_steps.hpp): BatchNorm -> Scale -> ReLU chains and
// Eltwise SUM -> ReLU pairs, fused on the CPU, give the bits of the layers
// run one by one -- forward values, gradients, whole training runs, with
// and without mem_param -- and the net really fuses them (and does not
// where it must not).
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include <google/protobuf/text_format.h>

#include "caffe/caffe.hpp"
#include "caffe/layers/batch_norm_layer.hpp"
#include "caffe/layers/scale_layer.hpp"
#include "caffe/step_hook.hpp"
#include "caffe/test/chain_nets.hpp"
#include "caffe/test/mem_trajectory_util.hpp"
#include "caffe/util/elementwise.hpp"
#include "caffe/util/io.hpp"
#include "caffe/util/memory_fit.hpp"

namespace caffe {
namespace {

// Every blob's data and diff and every parameter's data and diff after one
// forward and backward pass.
template <typename Dtype>
std::vector<Dtype> OnePass(const NetParameter& param, bool fuse) {
  Caffe::set_random_seed(1234);
  Net<Dtype> net(param);
  net.set_fuse_chains(fuse);
  net.ClearParamDiffs();
  net.Forward();
  net.Backward();
  std::vector<Dtype> out;
  for (const auto& b : net.blobs()) {
    out.insert(out.end(), b->cpu_data(), b->cpu_data() + b->count());
    out.insert(out.end(), b->cpu_diff(), b->cpu_diff() + b->count());
  }
  for (const auto& p : net.params()) {
    out.insert(out.end(), p->cpu_data(), p->cpu_data() + p->count());
    out.insert(out.end(), p->cpu_diff(), p->cpu_diff() + p->count());
  }
  return out;
}

template <typename Dtype>
void ExpectSameBits(const std::vector<Dtype>& a, const std::vector<Dtype>& b) {
  ASSERT_EQ(a.size(), b.size());
  size_t differ = 0;
  for (size_t i = 0; i < a.size(); ++i)
    if (std::memcmp(&a[i], &b[i], sizeof(Dtype)) != 0) ++differ;
  EXPECT_EQ(0u, differ) << "of " << a.size() << " values";
}

TEST(FusedChainTest, FindsTheInPlaceChains) {
  Net<float> net(ChainNet(8));
  struct { const char* layer; const char* forward_into; const char* backward_into; }
  const expected[] = {
      {"bn1", "bn1", "relu1"}, {"sc1", "bn1", "relu1"},
      {"relu1", "bn1", "relu1"}, {"bn2", "bn2", "sc2"},
      {"sc2", "bn2", "sc2"}, {"bn3", "bn3", "relu3"},
      {"relu3", "bn3", "relu3"}, {"sc4", "sc4", "relu4"},
      {"relu4", "sc4", "relu4"}, {"bn5", "bn5", "relu5"},
      {"sc5", "bn5", "relu5"}, {"relu5", "bn5", "relu5"},
      {"add", "add", "relu2"}, {"relu2", "add", "relu2"}};
  for (const auto& e : expected) {
    const int i = LayerIndex(net, e.layer);
    EXPECT_EQ(LayerIndex(net, e.forward_into), net.fused_forward_into(i))
        << e.layer;
    EXPECT_EQ(LayerIndex(net, e.backward_into), net.fused_backward_into(i))
        << e.layer;
  }
  // The other layers are in no chain.
  for (const char* alone : {"conv1", "conv2", "conv3", "pool", "ip"}) {
    EXPECT_EQ(-1, net.fused_forward_into(LayerIndex(net, alone))) << alone;
    EXPECT_EQ(-1, net.fused_backward_into(LayerIndex(net, alone))) << alone;
  }
  // Chains that run layer by layer now (debug_info here)
  // attribute no time to another layer.
  net.set_debug_info(true);
  EXPECT_EQ(-1, net.fused_forward_into(LayerIndex(net, "sc1")));
  EXPECT_EQ(-1, net.fused_backward_into(LayerIndex(net, "sc1")));
  net.set_debug_info(false);
  EXPECT_EQ(LayerIndex(net, "bn1"), net.fused_forward_into(LayerIndex(net, "sc1")));
  net.set_fuse_chains(false);
  EXPECT_EQ(-1, net.fused_forward_into(LayerIndex(net, "sc1")));
}

TEST(FusedChainTest, OnePassIsBitIdenticalFloat) {
  ExpectSameBits(OnePass<float>(ChainNet(8), true),
                 OnePass<float>(ChainNet(8), false));
}

TEST(FusedChainTest, OnePassIsBitIdenticalDouble) {
  ExpectSameBits(OnePass<double>(ChainNet(7), true),
                 OnePass<double>(ChainNet(7), false));
}

// Planes shorter than kMinChannelRun run by plane, the form a GPU runs:
// forward, BatchNorm's statistics first, then every member's plane bodies
// in one pass (fused_chain_forward.hpp); backward, the members' four sums
// in one channel pass, then one plane pass (fused_chain_backward.hpp).
// 1x1 planes are the extreme.
TEST(FusedChainTest, ByPlaneIsBitIdentical) {
  for (int side : {3, 1}) {
    ASSERT_LT(side * side, kMinChannelRun);
    ExpectSameBits(OnePass<float>(ChainNet(side), true),
                   OnePass<float>(ChainNet(side), false));
    ExpectSameBits(OnePass<double>(ChainNet(side), true),
                   OnePass<double>(ChainNet(side), false));
  }
}

// Each variant of the chains (chain_nets.hpp: with and without the
// Scale's bias, global statistics in training, leaky slopes, a frozen
// Scale, the Eltwise's coefficients) gives the members' bits, by channel
// (8x8 planes: the backward recomputes the ReLU's input from the kept
// copy; an in-place ReLU has a slope >= 0, the net refuses a negative one
// in place) and by plane (3x3: the mask from the blob, the members' sums
// in one pass).
TEST(FusedChainTest, OnePassIsBitIdenticalForEveryVariant) {
  for (int side : {8, 3}) {
    for (const NetParameter& param : ChainNetVariants(side)) {
      ExpectSameBits(OnePass<float>(param, true),
                     OnePass<float>(param, false));
      ExpectSameBits(OnePass<double>(param, true),
                     OnePass<double>(param, false));
    }
  }
}

// The fused backward of bn1 -> sc1 -> relu1 reads the ReLU's input from
// BatchNorm's kept copy, not from the blob: with the blob's data spoiled
// after forward it still gives the gradients of an unspoiled run.
TEST(FusedChainTest, BackwardTakesTheReLUInputFromTheKeptCopy) {
  auto chain_gradients = [](bool fuse, bool spoil) {
    Caffe::set_random_seed(1234);
    Net<float> net(ChainNet(8));
    net.set_fuse_chains(fuse);
    net.ClearParamDiffs();
    net.Forward();
    Blob<float>& conv1 = *net.blob_by_name("conv1");
    float* diff = conv1.mutable_cpu_diff();
    for (int i = 0; i < conv1.count(); ++i) diff[i] = 0.01f * (i % 97) - 0.4f;
    if (spoil) {
      float* data = conv1.mutable_cpu_data();
      for (int i = 0; i < conv1.count(); ++i) data[i] = -1.0f;
    }
    net.BackwardFromTo(LayerIndex(net, "relu1"), LayerIndex(net, "bn1"));
    std::vector<float> out(conv1.cpu_diff(), conv1.cpu_diff() + conv1.count());
    for (const char* name : {"sc1"}) {
      for (const auto& p : net.layer_by_name(name)->blobs())
        out.insert(out.end(), p->cpu_diff(), p->cpu_diff() + p->count());
    }
    return out;
  };
  const std::vector<float> reference = chain_gradients(false, false);
  ExpectSameBits(reference, chain_gradients(true, true));
  // The spoiled blob does change the layer-by-layer gradients: the test
  // would see a fused backward that read it.
  const std::vector<float> spoiled = chain_gradients(false, true);
  EXPECT_NE(0, std::memcmp(reference.data(), spoiled.data(),
                           reference.size() * sizeof(float)));
}

// Under mem_param the sum's top shares its diff with bottom 0, which the
// layers below then overwrite: after backward, fused or not, reading the
// top's diff is refused rather than answered with another blob's values.
TEST(FusedChainTest, AnAliasedSumsDiffIsRefusedAfterAFusedBackward) {
  for (bool fuse : {true, false}) {
    NetParameter param = ChainNet(8);
    param.mutable_state()->set_phase(TRAIN);
    param.mutable_mem_param()->set_optimize_train(true);
    Net<float> net(param);
    net.set_fuse_chains(fuse);
    net.Forward();
    net.Backward();
    EXPECT_THROW(net.blob_by_name("add")->cpu_diff(), BlobNotReadable)
        << (fuse ? "fused" : "layer by layer");
  }
}

// The wide copies of the parallel loop (util/elementwise.hpp) give the
// baseline loop's bits, fused and not.  A copy the CPU lacks is capped to
// the best it has, so there the runs compare that one with the baseline.
TEST(FusedChainTest, WideLoopsGiveTheBaselineBits) {
  const CpuVector best = CpuVectorLoops();
  std::printf("widest loop on this CPU: %d (0 baseline, 1 AVX2, 2 AVX-512)\n",
              static_cast<int>(best));
  for (bool fuse : {true, false}) {
    SetCpuVectorLoops(CpuVector::kBaseline);
    const std::vector<float> baseline = OnePass<float>(ChainNet(8), fuse);
    const std::vector<double> baseline_d = OnePass<double>(ChainNet(7), fuse);
    for (CpuVector wide : {CpuVector::kAvx2, CpuVector::kAvx512}) {
      SetCpuVectorLoops(wide);
      ExpectSameBits(baseline, OnePass<float>(ChainNet(8), fuse));
      ExpectSameBits(baseline_d, OnePass<double>(ChainNet(7), fuse));
    }
  }
  SetCpuVectorLoops(best);
}

TEST(FusedChainTest, TestPhaseWithGlobalStatisticsIsBitIdentical) {
  NetParameter param = ChainNet(8);
  param.mutable_state()->set_phase(TEST);
  // Stored statistics: train a net once and reuse its blobs.
  NetParameter trained;
  {
    Net<float> net(ChainNet(8));
    net.Forward();
    net.ToProto(&trained);
  }
  auto run = [&](bool fuse) {
    Caffe::set_random_seed(99);  // the same dummy data
    Net<float> net(param);
    net.CopyTrainedLayersFrom(trained);
    net.set_fuse_chains(fuse);
    net.Forward();
    const Blob<float>& add = *net.blob_by_name("add");
    return std::vector<float>(add.cpu_data(), add.cpu_data() + add.count());
  };
  ExpectSameBits(run(true), run(false));
}

// The chain's time lands on one member only when it ran fused.
// LEANCAFFE_FUSE_CHAINS=0 makes new nets run every layer on its own (in
// any front end); any other value, or none, leaves fusion on.
TEST(FusedChainTest, TheEnvironmentCanTurnFusionOff) {
  const char* before = std::getenv("LEANCAFFE_FUSE_CHAINS");
  const std::string saved = before ? before : "";
  setenv("LEANCAFFE_FUSE_CHAINS", "0", 1);
  Net<float> off(ChainNet(8));
  setenv("LEANCAFFE_FUSE_CHAINS", "1", 1);
  Net<float> on(ChainNet(8));
  unsetenv("LEANCAFFE_FUSE_CHAINS");
  Net<float> unset(ChainNet(8));
  if (before) setenv("LEANCAFFE_FUSE_CHAINS", saved.c_str(), 1);
  EXPECT_FALSE(off.fuse_chains());
  EXPECT_EQ(-1, off.fused_forward_into(LayerIndex(off, "sc1")));
  EXPECT_TRUE(on.fuse_chains());
  EXPECT_TRUE(unset.fuse_chains());
  EXPECT_EQ(LayerIndex(unset, "bn1"),
            unset.fused_forward_into(LayerIndex(unset, "sc1")));
}

TEST(FusedChainTest, RunsFusedOnlyWhereItMay) {
  auto scale_ran_alone = [](Net<float>* net) {
    net->set_layer_timing(true);
    net->Forward();
    net->Backward();
    const int sc1 = LayerIndex(*net, "sc1");
    const bool fwd = net->forward_ms()[sc1] > 0;
    const bool bwd = net->backward_ms()[sc1] > 0;
    EXPECT_EQ(fwd, bwd);
    return fwd;
  };
  {
    Net<float> net(ChainNet(8));
    EXPECT_FALSE(scale_ran_alone(&net));
    net.set_fuse_chains(false);
    EXPECT_TRUE(scale_ran_alone(&net));
  }
  {
    Net<float> net(ChainNet(3));  // 9-element planes: fused by plane
    EXPECT_FALSE(scale_ran_alone(&net));
  }
  for (bool fuse : {true, false}) {
    // The Eltwise SUM -> ReLU pair: the ReLU runs no step of its own.
    Net<float> net(ChainNet(8));
    net.set_fuse_chains(fuse);
    net.set_layer_timing(true);
    net.Forward();
    net.Backward();
    const int add = LayerIndex(net, "add"), relu2 = LayerIndex(net, "relu2");
    EXPECT_GT(net.forward_ms()[add], 0);
    EXPECT_GT(net.backward_ms()[relu2], 0);
    EXPECT_EQ(!fuse, net.forward_ms()[relu2] > 0);
    EXPECT_EQ(!fuse, net.backward_ms()[add] > 0);
  }
  {
    // Under mem_param too, where the sum's bottom 0 shares the top's diff
    // (gradient aliasing) and only bottom 1 is written.
    NetParameter param = ChainNet(8);
    param.mutable_state()->set_phase(TRAIN);
    param.mutable_mem_param()->set_optimize_train(true);
    Net<float> net(param);
    net.set_layer_timing(true);
    net.Forward();
    net.Backward();
    const int add = LayerIndex(net, "add");
    EXPECT_TRUE(net.layers()[add]->alias_bottom_diff());
    EXPECT_EQ(0, net.forward_ms()[add + 1]);
    EXPECT_EQ(0, net.backward_ms()[add]);
  }
  {
    Net<float> net(ChainNet(8));
    net.set_debug_info(true);
    EXPECT_TRUE(scale_ran_alone(&net));
  }
  {
    // A step hook watches every layer's step: no fusion while it is there.
    struct Watcher : StepHook {} watcher;
    Net<float> net(ChainNet(8));
    net.AddStepHook(&watcher);
    EXPECT_TRUE(scale_ran_alone(&net));
    net.RemoveStepHook(&watcher);
    EXPECT_FALSE(scale_ran_alone(&net));
  }
  {
    // Only part of the chain in the range: layer by layer.
    Net<float> net(ChainNet(8));
    net.set_layer_timing(true);
    const int sc1 = LayerIndex(net, "sc1");
    net.ForwardTo(sc1);
    EXPECT_GT(net.forward_ms()[sc1], 0);
  }
}

TEST(FusedChainTest, BackwardCallbacksRunForEveryMember) {
  struct Recorder : Net<float>::Callback {
    std::vector<int> layers;
    void run(int layer) override { layers.push_back(layer); }
  } before, after;
  Net<float> net(ChainNet(8));
  net.add_before_backward(&before);
  net.add_after_backward(&after);
  net.Forward();
  net.Backward();
  const int n = static_cast<int>(net.layers().size());
  ASSERT_EQ(static_cast<size_t>(n), before.layers.size());
  ASSERT_EQ(static_cast<size_t>(n), after.layers.size());
  for (int k = 0; k < n; ++k) {
    EXPECT_EQ(n - 1 - k, before.layers[k]);
    EXPECT_EQ(n - 1 - k, after.layers[k]);
  }
}

// Training runs: fused and layer by layer give the same losses and
// weights, without mem_param and under several of its settings.
TEST(FusedChainTest, TrainingIsBitIdenticalWithAndWithoutMemParam) {
  const NetParameter param = ChainNet(8);
  auto unfused = [](Net<float>* net) { net->set_fuse_chains(false); };
  const Trajectory reference = TrainTrajectory(param, nullptr, 4, unfused);
  ExpectBitIdentical(reference, TrainTrajectory(param, nullptr, 4),
                     "fused, no mem_param");
  const char* settings[] = {
      "optimize_train: true",
      "optimize_train: true level: 0",
      "optimize_train: true release: DYNAMIC",
      "optimize_train: true check: true",
      "optimize_train: true recompute { auto: SQRT }",
      "optimize_train: true recompute { auto: CHEAP }",
      "optimize_train: true check: true recompute { auto: CHEAP }",
      "optimize_train: true release: DYNAMIC recompute { auto: CHEAP }",
  };
  for (const char* text : settings) {
    MemoryOptimizationParameter mp;
    ReadProtoFromTextString(text, "mem_param", &mp);
    ExpectBitIdentical(reference, TrainTrajectory(param, &mp, 4), text);
  }
}

// A BatchNorm out of place on a bottom only it reads (bn5 on conv3) keeps
// no copy of its output: its backward, its Scale's and the fused chain's
// normalize the bottom again (util/normalized_input.hpp).  That gives the
// bits of a BatchNorm that keeps the copy because another layer reads its
// bottom too (a Silence: conv3 then goes through a Split), by channel (8x8
// planes) and by plane (3x3, the GPU's form), fused and layer by layer,
// with and without mem_param.
TEST(FusedChainTest, BatchNormOnAnIntactBottomNormalizesItAgain) {
  for (int side : {8, 3}) {
    NetParameter reading = ChainNet(side);
    reading.mutable_state()->set_phase(TRAIN);
    NetParameter copying = reading;
    LayerParameter* peek = copying.add_layer();
    peek->set_name("peek");
    peek->set_type("Silence");
    peek->add_bottom("conv3");
    Net<float> reads(reading), copies(copying);
    const auto& bn_reads = dynamic_cast<const BatchNormLayer<float>&>(
        *reads.layer_by_name("bn5"));
    const auto& bn_copies = dynamic_cast<const BatchNormLayer<float>&>(
        *copies.layer_by_name("bn5"));
    EXPECT_TRUE(bn_reads.reads_input());
    EXPECT_EQ(0, bn_reads.normalized_output()->count());
    EXPECT_EQ(kReadsBottomData, bn_reads.Memory().backward_reads);
    EXPECT_FALSE(bn_copies.reads_input());
    EXPECT_EQ(copies.blob_by_name("bn5")->count(),
              bn_copies.normalized_output()->count());
    // The in-place BatchNorms keep their copies, and every Scale borrows.
    for (const char* in_place : {"bn1", "bn2", "bn3"}) {
      EXPECT_FALSE(dynamic_cast<const BatchNormLayer<float>&>(
                       *reads.layer_by_name(in_place)).reads_input())
          << in_place;
    }
    EXPECT_TRUE(reads.borrows_kept_output(LayerIndex(reads, "sc5")));
    EXPECT_TRUE(copies.borrows_kept_output(LayerIndex(copies, "sc5")));
    EXPECT_EQ(0, dynamic_cast<const ScaleLayer<float>&>(
                     *reads.layer_by_name("sc5")).input_copy().count());
    // The copy is the difference in the layers' buffers.
    EXPECT_EQ(NetMemoryNeed(reads).layer_buffers +
                  bn_copies.normalized_output()->count() * sizeof(float),
              NetMemoryNeed(copies).layer_buffers);
    auto unfused = [](Net<float>* net) { net->set_fuse_chains(false); };
    const Trajectory reference = TrainTrajectory(copying, nullptr, 4, unfused);
    ExpectBitIdentical(reference, TrainTrajectory(reading, nullptr, 4),
                       "normalized again, fused");
    ExpectBitIdentical(reference,
                       TrainTrajectory(reading, nullptr, 4, unfused),
                       "normalized again, layer by layer");
    MemoryOptimizationParameter mp;
    ReadProtoFromTextString("optimize_train: true", "mem_param", &mp);
    ExpectBitIdentical(reference, TrainTrajectory(reading, &mp, 4),
                       "normalized again, mem_param");
  }
}

// Recomputation runs a chain fused too: its time lands on the first
// member, the others run no step of their own.
TEST(FusedChainTest, RecomputationRunsTheChainsFused) {
  NetParameter param = ChainNet(8);
  param.mutable_state()->set_phase(TRAIN);
  ReadProtoFromTextString("optimize_train: true recompute { auto: CHEAP }",
                          "mem_param", param.mutable_mem_param());
  for (bool fuse : {true, false}) {
    Net<float> net(param);
    ASSERT_TRUE(net.memory() && net.memory()->recomputes());
    net.set_fuse_chains(fuse);
    net.set_layer_timing(true);
    net.Forward();
    net.Backward();
    int chains_rerun = 0;
    for (const char* first : {"bn1", "bn5"}) {
      const int i = LayerIndex(net, first);
      if (!net.memory()->recomputable(i) ||
          net.memory()->RecomputeStep(i) < 0)
        continue;
      ++chains_rerun;
      EXPECT_GT(net.recompute_ms()[i], 0) << first;
      // The member after it: Scale.
      EXPECT_EQ(!fuse, net.recompute_ms()[i + 1] > 0)
          << net.layer_names()[i + 1] << (fuse ? " fused" : " alone");
    }
    EXPECT_GT(chains_rerun, 0) << "CHEAP reran no chain";
  }
}

// The plan's hand-over test that keeps an out-of-place chain from running
// fused where it would overwrite its own input: some step of a planned
// net gives a dying buffer's memory to a newborn one.
TEST(FusedChainTest, HandsOverWithinFindsReusedMemory) {
  NetParameter param = ChainNet(8);
  param.mutable_state()->set_phase(TRAIN);
  param.mutable_mem_param()->set_optimize_train(true);
  Net<float> net(param);
  ASSERT_TRUE(net.memory());
  const NetMemory& memory = *net.memory();
  int handovers = 0;
  for (int s = 0; s + 1 < memory.num_steps(); ++s) {
    EXPECT_FALSE(memory.HandsOverWithin(s, s)) << s;
    handovers += memory.HandsOverWithin(s, s + 1);
  }
  EXPECT_GT(handovers, 0);
  EXPECT_TRUE(memory.HandsOverWithin(0, memory.num_steps() - 1));
}

}  // namespace
}  // namespace caffe
