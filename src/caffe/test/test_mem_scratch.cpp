// Layers' per-call scratch in the memory plan (Layer::ScratchMemory): a
// convolution's column buffer or oneDNN workspace is planned in the arena
// at each step the layer runs, so under mem_param the thread's shared
// workspace is never allocated, the scratch is placed only during those
// steps, and training stays bit-identical to an unoptimized run.
#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "caffe/caffe.hpp"
#include "caffe/layers/conv_layer.hpp"
#include "caffe/mem/net_memory.hpp"
#include "caffe/test/mem_trajectory_util.hpp"
#include "caffe/util/io.hpp"
#include "caffe/util/scratch.hpp"

namespace caffe {
namespace {

// conv1 (3x3, im2col or oneDNN: scratch) -> relu -> conv2 (3x3, stride 2)
// -> pool -> ip -> loss.
const char* const kConvNet = R"(
name: "scratch_net" state { phase: TRAIN }
layer { name: "d" type: "DummyData" top: "x" top: "label"
  dummy_data_param { shape { dim: 4 dim: 3 dim: 12 dim: 12 } shape { dim: 4 }
    data_filler { type: "gaussian" std: 1 } data_filler { type: "constant" value: 1 } } }
layer { name: "conv1" type: "Convolution" bottom: "x" top: "c1"
  convolution_param { num_output: 6 kernel_size: 3 pad: 1
    weight_filler { type: "gaussian" std: 0.2 } } }
layer { name: "relu" type: "ReLU" bottom: "c1" top: "c1" }
layer { name: "conv2" type: "Convolution" bottom: "c1" top: "c2"
  convolution_param { num_output: 5 kernel_size: 3 stride: 2 engine: CAFFE
    weight_filler { type: "gaussian" std: 0.2 } } }
layer { name: "pool" type: "Pooling" bottom: "c2" top: "p"
  pooling_param { pool: AVE kernel_size: 2 stride: 2 } }
layer { name: "ip" type: "InnerProduct" bottom: "p" top: "y"
  inner_product_param { num_output: 3 weight_filler { type: "gaussian" std: 0.2 } } }
layer { name: "loss" type: "SoftmaxWithLoss" bottom: "y" bottom: "label" top: "loss" }
)";

// Calls `f(layer)` after each layer's forward.
struct AfterForward : Net<float>::Callback {
  std::function<void(int)> f;
  void run(int layer) override { f(layer); }
};

NetParameter ConvNet() {
  NetParameter p;
  ReadProtoFromTextString(kConvNet, "scratch_net", &p);
  return p;
}

MemoryOptimizationParameter Optimize(bool dynamic) {
  MemoryOptimizationParameter mp;
  mp.set_optimize_train(true);
  mp.set_check(true);
  if (dynamic) mp.set_release(MemoryOptimizationParameter_Release_DYNAMIC);
  return mp;
}

TEST(MemScratchTest, EachConvolutionStepHasItsScratchInThePlan) {
  NetParameter param = ConvNet();
  param.mutable_mem_param()->CopyFrom(Optimize(false));
  Net<float> net(param);
  const NetMemory& memory = *net.memory();
  for (const char* name : {"conv1", "conv2"}) {
    const int layer = LayerIndex(net, name);
    SyncedMemory* scratch = net.layers()[layer]->ScratchMemory();
    ASSERT_TRUE(scratch) << name;
    EXPECT_GT(scratch->size(), 0u) << name;
    std::vector<int> steps;
    for (size_t i = 0; i < memory.buffers().size(); ++i) {
      const mem::Buffer& b = memory.buffers()[i];
      if (!b.scratch || b.layer_id != layer) continue;
      EXPECT_TRUE(memory.requests()[i].shareable);
      EXPECT_EQ(memory.requests()[i].bytes, scratch->size());
      steps.push_back(memory.requests()[i].first_step);
      EXPECT_EQ(memory.requests()[i].last_step, steps.back());
    }
    EXPECT_EQ(steps, std::vector<int>({memory.ForwardStep(layer),
                                       memory.BackwardStep(layer)}))
        << name;
  }
  // Layers without scratch have none.
  EXPECT_FALSE(net.layers()[LayerIndex(net, "relu")]->ScratchMemory());
}

// Trains `param` two iterations' worth of passes and returns the bytes of
// the thread's shared workspace while the net is still alive (its
// convolutions free it when destroyed).
size_t SharedWorkspaceAfterPasses(const NetParameter& param) {
  ConvolutionLayer<float>::ReleaseColBuffer();
  Net<float> net(param);
  for (int i = 0; i < 2; ++i) {
    net.ClearParamDiffs();
    net.ForwardBackward();
  }
  return ConvolutionLayer<float>::ColBufferBytes();
}

TEST(MemScratchTest, PlannedRunsNeverGrowTheSharedWorkspace) {
  // Without a plan the layers use the shared workspace, as before.
  EXPECT_GT(SharedWorkspaceAfterPasses(ConvNet()), 0u);
  for (bool dynamic : {false, true}) {
    const char* what = dynamic ? "DYNAMIC" : "STATIC";
    const MemoryOptimizationParameter mp = Optimize(dynamic);
    NetParameter param = ConvNet();
    param.mutable_mem_param()->CopyFrom(mp);
    EXPECT_EQ(SharedWorkspaceAfterPasses(param), 0u) << what;
    ExpectBitIdentical(TrainTrajectory(ConvNet(), nullptr, 3),
                       TrainTrajectory(ConvNet(), &mp, 3),
                       std::string(what) + " scratch");
  }
}

TEST(MemScratchTest, ScratchIsPlacedOnlyWhileItsStepRuns) {
  ConvolutionLayer<float>::ReleaseColBuffer();
  NetParameter param = ConvNet();
  param.mutable_mem_param()->CopyFrom(Optimize(false));
  Net<float> net(param);
  SyncedMemory* scratch =
      net.layers()[LayerIndex(net, "conv2")]->ScratchMemory();
  ASSERT_TRUE(scratch);
  const void* seen_in_forward = nullptr;
  const int conv2 = LayerIndex(net, "conv2");
  auto callback = std::make_shared<AfterForward>();
  callback->f = [&](int layer) {
    if (layer == conv2) seen_in_forward = scratch->placed_ptr(false);
  };
  net.add_after_forward(callback);
  net.ForwardBackward();
  EXPECT_NE(seen_in_forward, nullptr);
  // Between steps the plan has taken its bytes back: a direct call to the
  // layer would use memory of its own, not the arena.
  EXPECT_EQ(scratch->placed_ptr(false), nullptr);
  EXPECT_EQ(ConvolutionLayer<float>::ColBufferBytes(), 0u);
}

TEST(MemScratchTest, ScratchOnlyGrowsSoAShrinkingShapeKeepsThePlannedOne) {
  Scratch s;
  s.Resize(0);
  EXPECT_EQ(s.get(), nullptr);  // nothing needed yet
  s.Resize(1000);
  SyncedMemory* first = s.get();
  ASSERT_NE(first, nullptr);
  EXPECT_EQ(first->size(), 1000u);
  s.Resize(600);  // a smaller shape: the plan's memory stays
  EXPECT_EQ(s.get(), first);
  s.Resize(4000);
  EXPECT_NE(s.get(), first);
  EXPECT_EQ(s.get()->size(), 4000u);
  // The replaced memory outlives the resize (a plan made before it may
  // still place it until the net plans again; ASan and valgrind runs of
  // MemDynamicReshapeTest watch this): it still answers.
  EXPECT_EQ(first->size(), 1000u);
  EXPECT_EQ(first->placed_ptr(false), nullptr);
}

TEST(MemScratchTest, RecomputationRunsItsLayersWithTheirOwnScratch) {
  MemoryOptimizationParameter mp = Optimize(false);
  mp.mutable_recompute()->set_auto_(RecomputeParameter_Auto_SQRT);
  const Trajectory recomputed = TrainTrajectory(ConvNet(), &mp, 3);
  const Trajectory plain = TrainTrajectory(ConvNet(), nullptr, 3);
  ExpectBitIdentical(plain, recomputed, "SQRT recomputation with scratch");
}

}  // namespace
}  // namespace caffe
