// GPU tests (ctest label `gpu`), layer by layer: a net trained for a few
// iterations on the GPU against the same net on the CPU, comparing what
// every layer produced in every iteration -- its tops after its forward,
// its bottoms' and parameters' gradients after its backward -- in the
// order the net ran them.  The first value out of tolerance names the
// iteration, layer and blob where the GPU left the CPU's path, which a
// whole-net comparison (test_gpu_nets.cpp) cannot: there, one wrong
// gradient shows only as drifting losses several steps later.  Without a
// GPU every test here skips, printing why.
//
// The records and their comparison are step_record.hpp's: each blob read
// without changing its heads, and held to 1e-3 relative L2 error.  The GPU
// run is forced onto the CPU's path (each layer's bottoms before forward
// and top diffs before backward set to the CPU's), so each layer is held
// to what it computes from the CPU's inputs: rounding, amplified where a
// ReLU input sits near 0 or a pooling window nearly ties, no longer
// carries from layer to layer.  The two devices still sum in different
// orders, and after one SGD step the weights differ in their last bits;
// a wrong index, a missed term or a stale buffer is far above that.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "caffe/caffe.hpp"
#include "caffe/test/gpu_test_util.hpp"
#include "caffe/test/mem_layer_nets.hpp"
#include "caffe/test/model_zoo_util.hpp"
#include "caffe/test/step_record.hpp"

namespace caffe {
namespace {

void ExpectSameSteps(const NetParameter& net, int iters,
                     const std::string& what) {
  const std::vector<Produced> cpu = Record(Caffe::CPU, net, iters);
  const std::vector<Produced> gpu = Record(Caffe::GPU, net, iters, &cpu);
  ASSERT_FALSE(cpu.empty()) << what;
  EXPECT_EQ("", FirstDeparture(gpu, cpu)) << what;
}

class GpuStepZooTest : public ::testing::TestWithParam<ZooModel> {};

TEST_P(GpuStepZooTest, EveryLayerFollowsTheCpuInEveryIteration) {
  SKIP_WITHOUT_GPU();
  const ZooModel m = GetParam();
  NetParameter net = ZooTrainVal(m, m.size <= 32 ? 8 : 2);
  net.mutable_state()->set_phase(TRAIN);
  ExpectSameSteps(net, 3, m.name);
}

INSTANTIATE_TEST_SUITE_P(Models, GpuStepZooTest,
                         ::testing::ValuesIn(ZooModels()),
                         [](const ::testing::TestParamInfo<ZooModel>& info) {
                           return info.param.name;
                         });

TEST(GpuStepLayerNetsTest, EveryLayerFollowsTheCpuInEveryIteration) {
  SKIP_WITHOUT_GPU();
  for (int i = 0; i < kNumMemLayerNets; ++i)
    ExpectSameSteps(MemLayerNet(i), 3, kMemLayerNets[i][0]);
}

}  // namespace
}  // namespace caffe
