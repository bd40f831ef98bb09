// mem_param is checked once, where the net is built (mem_param_check.hpp):
// bad values are caffe::Error naming the file and the field, unknown blob
// names list the nearest ones, names of the other phase only are warnings.
// Also: internal invariants raise InternalError, apart from user errors.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "caffe/common.hpp"
#include "caffe/mem/mem_param_check.hpp"
#include "caffe/net.hpp"
#include "caffe/solver_factory.hpp"
#include "caffe/test/temp_dir.hpp"
#include "caffe/util/io.hpp"

namespace caffe {
namespace {

const char* kNet = R"(
name: "checked"
layer { name: "data" type: "Input" top: "data"
        input_param { shape { dim: 2 dim: 3 } } }
layer { name: "fc1" type: "InnerProduct" bottom: "data" top: "fc1"
        inner_product_param { num_output: 4
          weight_filler { type: "gaussian" std: 0.1 } } }
layer { name: "relu1" type: "ReLU" bottom: "fc1" top: "relu1" }
layer { name: "fc2" type: "InnerProduct" bottom: "relu1" top: "fc2"
        inner_product_param { num_output: 2
          weight_filler { type: "gaussian" std: 0.1 } } }
layer { name: "extra" type: "ReLU" bottom: "fc2" top: "train_only"
        include { phase: TRAIN } }
)";

mem::NetNames Names() {
  mem::NetNames n;
  n.net = "checked";
  n.phase = "TEST";
  n.blobs = {"data", "fc1", "relu1", "fc2"};
  n.other_phase_blobs = {"data", "fc1", "relu1", "fc2", "train_only"};
  return n;
}

std::string ErrorOf(const MemoryOptimizationParameter& p) {
  try {
    mem::CheckMemParam(p, Names());
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(MemParamCheckTest, LevelOutsideZeroToTwoIsAnError) {
  MemoryOptimizationParameter p;
  for (int level : {0, 1, 2}) {
    p.set_level(level);
    EXPECT_EQ(ErrorOf(p), "");
  }
  for (int level : {-1, 3}) {
    p.set_level(level);
    const std::string e = ErrorOf(p);
    EXPECT_NE(e.find("mem_param.level"), std::string::npos) << e;
    EXPECT_NE(e.find(std::to_string(level)), std::string::npos) << e;
  }
}

TEST(MemParamCheckTest, NonPositiveBudgetIsAnError) {
  MemoryOptimizationParameter p;
  p.mutable_recompute()->set_memory_budget_mb(0);
  EXPECT_NE(ErrorOf(p).find("memory_budget_mb"), std::string::npos);
  p.mutable_recompute()->set_memory_budget_mb(-5);
  EXPECT_NE(ErrorOf(p).find("positive"), std::string::npos);
  p.mutable_recompute()->clear_memory_budget_mb();
  p.mutable_recompute()->set_auto_(RecomputeParameter_Auto_BUDGET);
  EXPECT_NE(ErrorOf(p).find("BUDGET needs memory_budget_mb"),
            std::string::npos);
  p.mutable_recompute()->set_memory_budget_mb(1.5);
  EXPECT_EQ(ErrorOf(p), "");
}

TEST(MemParamCheckTest, UnknownNamesListTheNearestOnes) {
  MemoryOptimizationParameter p;
  p.add_exclude_blob("fc3");
  const std::string e = ErrorOf(p);
  EXPECT_NE(e.find("mem_param.exclude_blob 'fc3'"), std::string::npos) << e;
  EXPECT_NE(e.find("nearest: 'fc1', 'fc2'"), std::string::npos) << e;
  p.clear_exclude_blob();
  p.mutable_recompute()->add_checkpoint("relu");
  const std::string c = ErrorOf(p);
  EXPECT_NE(c.find("mem_param.recompute.checkpoint 'relu'"),
            std::string::npos) << c;
  EXPECT_NE(c.find("nearest: 'relu1'"), std::string::npos) << c;
}

TEST(MemParamCheckTest, OtherPhaseNamesAreWarnings) {
  MemoryOptimizationParameter p;
  p.add_exclude_blob("train_only");
  p.add_exclude_blob("fc1");
  std::vector<std::string> warnings;
  ASSERT_NO_THROW(warnings = mem::CheckMemParam(p, Names()));
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("only in the TRAIN phase"), std::string::npos);
}

TEST(MemParamCheckTest, NearestNamesOrdersByEditDistance) {
  const std::vector<std::string> names{"conv1", "pool1", "conv2", "relu1"};
  const std::vector<std::string> near = mem::NearestNames("conv3", names, 2);
  ASSERT_EQ(near.size(), 2u);
  EXPECT_EQ(near[0], "conv1");
  EXPECT_EQ(near[1], "conv2");
}

// Through the net: the prototxt's file name is in the message, and the type
// is caffe::Error (it was std::invalid_argument without the file before).
std::string NetErrorFor(const std::string& mem_param, Phase phase) {
  TempDir tmp;
  const std::string file = tmp.file("net.prototxt");
  std::ofstream(file) << kNet << mem_param;
  try {
    Net<float> net(file, phase);
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(file), std::string::npos) << what;
    return what;
  }
  return "";
}

TEST(MemParamCheckTest, NetFromAFileNamesTheFile) {
  EXPECT_NE(NetErrorFor("mem_param { level: 3 }", TRAIN).find("level"),
            std::string::npos);
  EXPECT_NE(NetErrorFor("mem_param { exclude_blob: \"fc9\" }", TRAIN)
                .find("nearest"),
            std::string::npos);
  // TEST net: train_only is a warning; the net builds and runs.
  EXPECT_EQ(NetErrorFor("mem_param { optimize_test: true "
                        "exclude_blob: \"train_only\" }",
                        TEST),
            "");
}

TEST(MemParamCheckTest, SolverNamesTheNetFile) {
  TempDir tmp;
  const std::string net_file = tmp.file("net.prototxt");
  std::ofstream(net_file) << kNet << "mem_param { level: 7 }";
  SolverParameter solver;
  solver.set_net(net_file);
  solver.set_base_lr(0.1f);
  solver.set_lr_policy("fixed");
  try {
    SolverRegistry<float>::CreateSolver(solver);
    FAIL() << "level 7 was accepted";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(net_file), std::string::npos) << what;
    EXPECT_NE(what.find("mem_param.level"), std::string::npos) << what;
  }
}

TEST(InternalErrorTest, NamesTheSourceLineAndIsNotAUserError) {
  bool internal = false;
  try {
    CAFFE_INTERNAL_CHECK(1 + 1 == 3) << "arithmetic broke";
  } catch (const Error&) {
    ADD_FAILURE() << "an internal error was raised as a user error";
  } catch (const InternalError& e) {
    internal = true;
    const std::string what = e.what();
    EXPECT_NE(what.find("internal error at"), std::string::npos) << what;
    EXPECT_NE(what.find("test_mem_param_check.cpp:"), std::string::npos)
        << what;
    EXPECT_NE(what.find("arithmetic broke"), std::string::npos) << what;
  }
  EXPECT_TRUE(internal);
}

}  // namespace
}  // namespace caffe
