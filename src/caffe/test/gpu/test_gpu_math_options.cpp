// GPU tests (ctest label `gpu`) of the opt-in GPU arithmetic
// (util/gpu_math_options.hpp): cuDNN's Find ranking, TF32 and
// nondeterministic convolution algorithms.  Without a GPU every test
// skips, printing why.
//
//  * mem_param stays bit-identical within a process under either option:
//    the algorithms are deterministic and Find's ranking is kept per
//    shape, so the optimized and the unoptimized net run the same ones.
//  * Find without TF32 keeps the CPU tolerance of the other GPU tests
//    (losses within 1e-3 relative, weights within 1e-4 of max(1, |w|)).
//  * TF32 rounds products to a 10-bit mantissa, so it is held to a looser
//    bound: losses within 2e-2 relative after three steps.
//  * Nondeterministic algorithms only reorder sums: they keep the CPU
//    tolerance of the other GPU tests, with and without mem_param (whose
//    bits they may change: nothing compares those).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "caffe/caffe.hpp"
#include "caffe/test/gpu_test_util.hpp"
#include "caffe/test/mem_trajectory_util.hpp"
#include "caffe/test/model_zoo_util.hpp"
#include "caffe/util/gpu_math_options.hpp"

namespace caffe {
namespace {

// Sets the two options for a scope and restores the defaults after it.
class MathScope {
 public:
  MathScope(bool tf32, ConvAlgoSearch algo) {
    SetAllowTf32(tf32);
    SetConvAlgo(algo);
  }
  ~MathScope() {
    SetAllowTf32(false);
    SetConvAlgo(ConvAlgoSearch::kHeuristic);
  }
};

Trajectory Train(Caffe::Brew mode, const NetParameter& net,
                 const MemoryOptimizationParameter* mp) {
  ModeScope scope(mode);
  return TrainTrajectory(net, mp, 3);
}

NetParameter ZooNet(const std::string& name, int batch) {
  for (const ZooModel& m : ZooModels()) {
    if (m.name != name) continue;
    NetParameter net = ZooTrainVal(m, batch);
    net.mutable_state()->set_phase(TRAIN);
    return net;
  }
  throw Error("no model " + name + " in models/");
}

struct Options {
  bool tf32;
  ConvAlgoSearch algo;
  std::string name;
};

TEST(GpuMathOptionsTest, MemParamStaysBitIdenticalUnderFindAndTf32) {
  SKIP_WITHOUT_GPU();
  const std::vector<Options> options = {
      {false, ConvAlgoSearch::kFind, "find"},
      {true, ConvAlgoSearch::kHeuristic, "tf32"},
      {true, ConvAlgoSearch::kFind, "find+tf32"}};
  for (const std::string& model : {"cifar10_quick", "resnet50"}) {
    const NetParameter net = ZooNet(model, model == "resnet50" ? 2 : 8);
    for (const Options& o : options) {
      MathScope scope(o.tf32, o.algo);
      const std::string what = model + " with " + o.name;
      const Trajectory base = Train(Caffe::GPU, net, nullptr);
      for (float l : base.losses) ASSERT_TRUE(std::isfinite(l)) << what;
      MemoryOptimizationParameter level2;
      level2.set_optimize_train(true);
      level2.set_check(true);
      ExpectBitIdentical(base, Train(Caffe::GPU, net, &level2),
                         what + ", mem_param level 2");
      MemoryOptimizationParameter sqrt_recompute;
      sqrt_recompute.set_optimize_train(true);
      sqrt_recompute.mutable_recompute()->set_auto_(
          RecomputeParameter_Auto_SQRT);
      ExpectBitIdentical(base, Train(Caffe::GPU, net, &sqrt_recompute),
                         what + ", SQRT recomputation");
    }
  }
}

double RelativeError(float a, float b) {
  return std::fabs(a - b) / std::max(1.0f, std::fabs(b));
}

void ExpectNear(const Trajectory& gpu, const Trajectory& cpu,
                double loss_tolerance, double weight_tolerance,
                const std::string& what) {
  ASSERT_EQ(gpu.losses.size(), cpu.losses.size()) << what;
  ASSERT_EQ(gpu.weights.size(), cpu.weights.size()) << what;
  for (size_t i = 0; i < gpu.losses.size(); ++i) {
    EXPECT_LE(RelativeError(gpu.losses[i], cpu.losses[i]), loss_tolerance)
        << what << " loss at iteration " << i << ": " << gpu.losses[i]
        << " on the GPU, " << cpu.losses[i] << " on the CPU";
  }
  double worst = 0;
  for (size_t i = 0; i < gpu.weights.size(); ++i)
    worst = std::max(worst, RelativeError(gpu.weights[i], cpu.weights[i]));
  EXPECT_LE(worst, weight_tolerance) << what << ": weights depart by " << worst;
  std::cout << what << ": weights depart from the CPU's by " << worst
            << std::endl;
}

TEST(GpuMathOptionsTest, FindKeepsTheCpuToleranceAndTf32StaysClose) {
  SKIP_WITHOUT_GPU();
  const NetParameter net = ZooNet("cifar10_quick", 8);
  const Trajectory cpu = Train(Caffe::CPU, net, nullptr);
  {
    MathScope scope(false, ConvAlgoSearch::kFind);
    ExpectNear(Train(Caffe::GPU, net, nullptr), cpu, 1e-3, 1e-4,
               "cifar10_quick with find");
  }
  {
    MathScope scope(true, ConvAlgoSearch::kFind);
    ExpectNear(Train(Caffe::GPU, net, nullptr), cpu, 2e-2, 1e-2,
               "cifar10_quick with find+tf32");
  }
}

// Sets the nondeterministic permission for a scope.
class NondeterministicScope {
 public:
  NondeterministicScope() { SetAllowNondeterministic(true); }
  ~NondeterministicScope() { SetAllowNondeterministic(false); }
};

TEST(GpuMathOptionsTest, NondeterministicAlgorithmsKeepTheCpuTolerance) {
  SKIP_WITHOUT_GPU();
  const NetParameter net = ZooNet("cifar10_quick", 8);
  const Trajectory cpu = Train(Caffe::CPU, net, nullptr);
  NondeterministicScope scope;
  for (ConvAlgoSearch algo : {ConvAlgoSearch::kHeuristic,
                              ConvAlgoSearch::kFind}) {
    MathScope math(false, algo);
    const std::string what = std::string("cifar10_quick, ") +
                             ConvAlgoName(algo) +
                             ", nondeterministic algorithms allowed";
    ExpectNear(Train(Caffe::GPU, net, nullptr), cpu, 1e-3, 1e-4, what);
    MemoryOptimizationParameter level2;
    level2.set_optimize_train(true);
    ExpectNear(Train(Caffe::GPU, net, &level2), cpu, 1e-3, 1e-4,
               what + ", mem_param");
  }
}

}  // namespace
}  // namespace caffe
