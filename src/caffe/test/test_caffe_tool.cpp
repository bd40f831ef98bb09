// The command-line tools as a user runs them: exit codes, the errors they
// print for bad input, and the files they write.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "caffe/caffe.hpp"
#include "caffe/util/layer_costs.hpp"
#include "caffe/test/run_command.hpp"
#include "caffe/test/temp_dir.hpp"

// AddressSanitizer (clang or gcc) is on.
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#endif

namespace caffe {
namespace {

// Runs a tool from the build's tools/ directory, capturing stdout+stderr.
// `shell_prefix` runs first in the same shell (e.g. "ulimit -v N && ").
RunResult RunTool(const std::string& args, const std::string& cwd = "",
                  const std::string& shell_prefix = "") {
  std::string cmd = shell_prefix;
  if (!cwd.empty()) cmd += "cd '" + cwd + "' && ";
  return RunShell(cmd + std::string(CAFFE_TOOLS_DIR) + "/" + args);
}

void WriteFile(const std::string& path, const std::string& text) {
  std::ofstream(path) << text;
}

const char* kTinyNet = R"(
name: "tiny"
layer { name: "data" type: "DummyData" top: "data" top: "label"
  dummy_data_param { shape { dim: 4 dim: 1 dim: 6 dim: 6 } shape { dim: 4 }
    data_filler { type: "gaussian" std: 1 } data_filler { type: "constant" value: 1 } } }
layer { name: "conv" type: "Convolution" bottom: "data" top: "conv"
  convolution_param { num_output: 3 kernel_size: 3 weight_filler { type: "xavier" } } }
layer { name: "relu" type: "ReLU" bottom: "conv" top: "conv" }
layer { name: "ip" type: "InnerProduct" bottom: "conv" top: "ip"
  inner_product_param { num_output: 2 weight_filler { type: "xavier" } } }
layer { name: "loss" type: "SoftmaxWithLoss" bottom: "ip" bottom: "label" top: "loss" }
layer { name: "acc" type: "Accuracy" bottom: "ip" bottom: "label" top: "acc"
  include { phase: TEST } }
)";

const char* kTinySolver = R"(
net: "net.prototxt"
base_lr: 0.01 momentum: 0.9 lr_policy: "fixed"
max_iter: 6 display: 2 snapshot: 3 snapshot_prefix: "tiny"
test_iter: 2 test_interval: 3
random_seed: 7 solver_mode: CPU
)";

class CaffeToolTest : public ::testing::Test {
 protected:
  void SetUp() override {
    WriteFile(dir_.file("net.prototxt"), kTinyNet);
    WriteFile(dir_.file("solver.prototxt"), kTinySolver);
  }
  TempDir dir_;
};

TEST_F(CaffeToolTest, TrainWritesSnapshotsAndResumes) {
  RunResult r = RunTool("caffe train --solver=solver.prototxt", dir_.path());
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("Test net output #0: acc"), std::string::npos);
  EXPECT_NE(r.output.find("Optimization Done."), std::string::npos);
  for (const char* f : {"tiny_iter_3.caffemodel", "tiny_iter_3.solverstate",
                        "tiny_iter_6.caffemodel", "tiny_iter_6.solverstate"})
    EXPECT_TRUE(FileExists(dir_.file(f))) << f;
  r = RunTool("caffe train --solver=solver.prototxt "
              "--snapshot=tiny_iter_3.solverstate",
              dir_.path());
  EXPECT_EQ(r.status, 0) << r.output;
  r = RunTool("caffe test --model=net.prototxt "
              "--weights=tiny_iter_6.caffemodel --iterations=2",
              dir_.path());
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("acc = "), std::string::npos) << r.output;
}

TEST_F(CaffeToolTest, TimePrintsPerLayerAndTotals) {
  RunResult r = RunTool("caffe time --model=net.prototxt --iterations=2",
                        dir_.path());
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("conv\tforward:"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("Average Forward-Backward:"), std::string::npos);
  // Each iteration logs its forward on a line of its own, before Caffe's
  // forward-backward line, and the forward is part of the whole.
  for (int it = 1; it <= 2; ++it) {
    const std::string head = "Iteration: " + std::to_string(it) + " ";
    const size_t f = r.output.find(head + "forward time: ");
    const size_t fb = r.output.find(head + "forward-backward time: ");
    ASSERT_NE(f, std::string::npos) << r.output;
    ASSERT_NE(fb, std::string::npos) << r.output;
    EXPECT_LT(f, fb);
    const size_t f_at = f + head.size() + std::strlen("forward time: ");
    const size_t fb_at =
        fb + head.size() + std::strlen("forward-backward time: ");
    const double forward = std::stod(r.output.substr(f_at));
    const double whole = std::stod(r.output.substr(fb_at));
    EXPECT_GE(forward, 0);
    EXPECT_LE(forward, whole);
  }
}

TEST_F(CaffeToolTest, TimeWritesLayerCostsThePlannerReads) {
  RunResult r = RunTool(
      "caffe time --model=net.prototxt --iterations=1 "
      "--layer_costs=costs.txt",
      dir_.path());
  ASSERT_EQ(r.status, 0) << r.output;
  const LayerCosts c = ReadLayerCosts(dir_.file("costs.txt"));
  EXPECT_EQ(c.net, "tiny");
  EXPECT_EQ(c.batch, 4);
  // Every TRAIN layer, with a time.
  for (const char* layer : {"data", "conv", "relu", "ip", "loss"})
    EXPECT_EQ(c.forward_ms.count(layer), 1u) << layer;
  EXPECT_EQ(c.forward_ms.size(), 5u);
  EXPECT_GT(c.forward_ms.at("conv"), 0.0);
}

TEST_F(CaffeToolTest, MemShowsPlanAndDrawsIt) {
  RunResult r = RunTool("caffe mem --model=net.prototxt --plot=plan.svg",
                        dir_.path());
  ASSERT_EQ(r.status, 0) << r.output;
  for (const char* s : {"conv forward", "conv backward", "Caffe 1.0",
                        "lower bound", "planned, level 0",
                        "planned, level 2", "measured peak"})
    EXPECT_NE(r.output.find(s), std::string::npos) << s << "\n" << r.output;
  // A data-parallel job's buckets: conv 27 + 3 and ip 96 + 2 floats.
  EXPECT_NE(r.output.find("gradient buckets 512 "), std::string::npos)
      << r.output;
  std::ifstream svg(dir_.file("plan.svg"));
  std::stringstream text;
  text << svg.rdbuf();
  EXPECT_NE(text.str().find("<svg"), std::string::npos);
  EXPECT_NE(text.str().find("lower bound"), std::string::npos);
  r = RunTool("caffe mem --model=net.prototxt --level=7", dir_.path());
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.output.find("0, 1 or 2"), std::string::npos) << r.output;
}

TEST_F(CaffeToolTest, BadInputGivesCleanErrors) {
  // Malformed prototxt: file:line:column, exit 1, no core dump.
  WriteFile(dir_.file("bad.prototxt"), "layer {\n  name: \"x\"\n  top: [\n}\n");
  RunResult r = RunTool("caffe time --model=bad.prototxt", dir_.path());
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("Error: bad.prototxt:4:1:"), std::string::npos)
      << r.output;
  // Unknown layer type lists the registered ones.
  WriteFile(dir_.file("unknown.prototxt"),
            "layer { name: \"x\" type: \"Convolutoin\" top: \"t\" }\n");
  r = RunTool("caffe time --model=unknown.prototxt", dir_.path());
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.output.find("Convolutoin"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("Pooling"), std::string::npos) << r.output;
  // Missing LMDB names the path.
  WriteFile(dir_.file("lmdb.prototxt"), R"(
layer { name: "d" type: "Data" top: "data" top: "label"
  data_param { source: "no_such_lmdb" batch_size: 2 backend: LMDB } }
)");
  r = RunTool("caffe time --model=lmdb.prototxt", dir_.path());
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.output.find("no_such_lmdb"), std::string::npos) << r.output;
  // Foreign weights file names the file.
  WriteFile(dir_.file("foreign.caffemodel"), "not a model");
  r = RunTool("caffe test --model=net.prototxt --weights=foreign.caffemodel",
              dir_.path());
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.output.find("foreign.caffemodel"), std::string::npos)
      << r.output;
  // Without a GPU, --gpu is refused saying why (a CPU-only build, or no
  // device), exit status 1.
  std::string why;
  if (Caffe::GpuCount(&why) == 0) {
    r = RunTool("caffe train --solver=solver.prototxt --gpu=0", dir_.path());
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.output.find("--gpu=0: " + why), std::string::npos)
        << r.output;
  }
  // Unknown action.
  r = RunTool("caffe frobnicate", dir_.path());
  EXPECT_EQ(r.status, 1);
  for (const auto& entry : std::filesystem::directory_iterator(dir_.path()))
    EXPECT_EQ(entry.path().filename().string().find("core"), std::string::npos);
}

TEST_F(CaffeToolTest, UpgradeToolsConvertLegacyFiles) {
  WriteFile(dir_.file("v1.prototxt"), R"(
name: "legacy"
input: "data" input_dim: 1 input_dim: 1 input_dim: 5 input_dim: 5
layers { name: "conv" type: CONVOLUTION bottom: "data" top: "conv"
  blobs_lr: 1 blobs_lr: 2 weight_decay: 1 weight_decay: 0
  convolution_param { num_output: 2 kernel_size: 3 } }
layers { name: "relu" type: RELU bottom: "conv" top: "conv" }
)");
  RunResult r = RunTool("upgrade_net_proto_text v1.prototxt v2.prototxt",
                        dir_.path());
  ASSERT_EQ(r.status, 0) << r.output;
  NetParameter up;
  ReadProtoFromTextFileOrDie(dir_.file("v2.prototxt"), &up);
  ASSERT_EQ(up.layer_size(), 3);
  EXPECT_EQ(up.layer(0).type(), "Input");
  EXPECT_EQ(up.layer(1).type(), "Convolution");
  EXPECT_EQ(up.layer(1).param(1).lr_mult(), 2);
  EXPECT_EQ(up.layer(1).param(1).decay_mult(), 0);
  EXPECT_EQ(up.layer(2).type(), "ReLU");
  EXPECT_EQ(up.layers_size(), 0);

  WriteFile(dir_.file("old_solver.prototxt"),
            "net: \"x\" base_lr: 0.1 solver_type: NESTEROV\n");
  r = RunTool("upgrade_solver_proto_text old_solver.prototxt new.prototxt",
              dir_.path());
  ASSERT_EQ(r.status, 0) << r.output;
  SolverParameter sp;
  ReadProtoFromTextFileOrDie(dir_.file("new.prototxt"), &sp);
  EXPECT_EQ(sp.type(), "Nesterov");

  // Binary: a V1 caffemodel with weights keeps them.
  NetParameter v1;
  V1LayerParameter* l = v1.add_layers();
  l->set_name("ip");
  l->set_type(V1LayerParameter_LayerType_INNER_PRODUCT);
  BlobProto* b = l->add_blobs();
  b->set_num(1); b->set_channels(1); b->set_height(2); b->set_width(3);
  for (int i = 0; i < 6; ++i) b->add_data(i * 0.5f);
  WriteProtoToBinaryFile(v1, dir_.file("v1.caffemodel"));
  r = RunTool("upgrade_net_proto_binary v1.caffemodel v2.caffemodel",
              dir_.path());
  ASSERT_EQ(r.status, 0) << r.output;
  NetParameter v2;
  ReadProtoFromBinaryFileOrDie(dir_.file("v2.caffemodel"), &v2);
  ASSERT_EQ(v2.layer_size(), 1);
  EXPECT_EQ(v2.layer(0).type(), "InnerProduct");
  ASSERT_EQ(v2.layer(0).blobs(0).data_size(), 6);
  EXPECT_EQ(v2.layer(0).blobs(0).data(5), 2.5f);
}

TEST(UpgradeProtoTest, V0NetFoldsPaddingLayers) {
  NetParameter v0;
  ReadProtoFromTextString(R"(
input: "data" input_dim: 1 input_dim: 3 input_dim: 8 input_dim: 8
layers { layer { name: "pad1" type: "padding" pad: 2 } bottom: "data" top: "pad1" }
layers { layer { name: "conv1" type: "conv" num_output: 4 kernelsize: 3 stride: 2
  biasterm: false } bottom: "pad1" top: "conv1" }
layers { layer { name: "pool1" type: "pool" pool: AVE kernelsize: 2 stride: 2 }
  bottom: "conv1" top: "pool1" }
layers { layer { name: "drop" type: "dropout" dropout_ratio: 0.3 }
  bottom: "pool1" top: "pool1" }
)", "v0", &v0);
  ASSERT_TRUE(NetNeedsUpgrade(v0));
  UpgradeNetAsNeeded("v0", &v0);
  ASSERT_EQ(v0.layer_size(), 4);  // Input, conv1, pool1, drop
  const LayerParameter& conv = v0.layer(1);
  EXPECT_EQ(conv.type(), "Convolution");
  EXPECT_EQ(conv.bottom(0), "data");
  EXPECT_EQ(conv.convolution_param().pad(0), 2u);
  EXPECT_EQ(conv.convolution_param().stride(0), 2u);
  EXPECT_FALSE(conv.convolution_param().bias_term());
  EXPECT_EQ(v0.layer(2).pooling_param().pool(), PoolingParameter_PoolMethod_AVE);
  EXPECT_FLOAT_EQ(v0.layer(3).dropout_param().dropout_ratio(), 0.3f);
  Net<float> net(v0);  // and the result builds
  // (8 + 2*2 - 3) / 2 + 1 = 5: the padding reached the convolution.
  EXPECT_EQ(net.blob_by_name("conv1")->shape_string(), "1 4 5 5 (100)");
}

TEST(UpgradeProtoTest, DataTransformFieldsMove) {
  NetParameter p;
  ReadProtoFromTextString(R"(
layer { name: "d" type: "Data" top: "data"
  data_param { source: "x" batch_size: 2 scale: 0.5 crop_size: 3 mirror: true } }
)", "data", &p);
  UpgradeNetAsNeeded("data", &p);
  EXPECT_FLOAT_EQ(p.layer(0).transform_param().scale(), 0.5f);
  EXPECT_EQ(p.layer(0).transform_param().crop_size(), 3u);
  EXPECT_TRUE(p.layer(0).transform_param().mirror());
  EXPECT_FALSE(p.layer(0).data_param().has_scale());
}

}  // namespace
}  // namespace caffe

namespace caffe {
namespace {

// Every deploy net of models/ runs under `caffe time` (batch cut to 1 and
// backward forced, so the whole forward-backward path is exercised).
class DeployTimeTest : public ::testing::TestWithParam<std::string> {};

TEST_P(DeployTimeTest, RunsUnderCaffeTime) {
  const std::string model = GetParam();
  NetParameter p;
  ReadNetParamsFromTextFileOrDie(
      std::string(CAFFE_SOURCE_DIR) + "/models/" + model + "/deploy.prototxt",
      &p);
  p.set_force_backward(true);
  bool found_input = false;
  for (LayerParameter& l : *p.mutable_layer()) {
    if (l.type() != "Input") continue;
    for (BlobShape& s : *l.mutable_input_param()->mutable_shape())
      s.set_dim(0, 1);
    found_input = true;
  }
  ASSERT_TRUE(found_input) << model;
  TempDir dir;
  WriteProtoToTextFile(p, dir.file("deploy.prototxt"));
  RunResult r = RunTool("caffe time --model=deploy.prototxt --iterations=1",
                        dir.path());
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("Average Forward-Backward:"), std::string::npos)
      << r.output;
  // And the output is a probability distribution.
  Net<float> net(p);
  net.Forward();
  const Blob<float>& prob = *net.blob_by_name("prob");
  double sum = 0;
  for (int i = 0; i < prob.count(); ++i) sum += prob.cpu_data()[i];
  EXPECT_NEAR(sum, 1.0, 1e-4) << model;
}

INSTANTIATE_TEST_SUITE_P(Models, DeployTimeTest,
                         ::testing::Values("lenet", "cifar10_quick",
                                           "caffenet", "alexnet", "googlenet",
                                           "vgg16", "resnet50"));

// Under an address-space limit (ulimit -v) a net that needs more is refused
// before its activations are allocated, naming the limit and what would
// fit, instead of dying of a failed allocation mid-iteration.
TEST_F(CaffeToolTest, NetOverTheAddressSpaceLimitIsRefusedWithWhatFits) {
#ifdef UNDER_ASAN
  GTEST_SKIP() << "AddressSanitizer reserves terabytes of address space, "
                  "so no ulimit -v can apply; the normal build runs this";
#endif
  std::string net = kTinyNet;
  net.replace(net.find("dim: 4 dim: 1 dim: 6 dim: 6"), 27,
              "dim: 256 dim: 3 dim: 128 dim: 128");
  net.replace(net.find("shape { dim: 4 }"), 16, "shape { dim: 256 }");
  net.replace(net.find("num_output: 3 kernel_size: 3"), 28,
              "num_output: 32 kernel_size: 3");
  WriteFile(dir_.file("net.prototxt"), net);
  // About 0.5 GB of address space is the tool's own (libraries, thread
  // stacks); the plain net needs several GB.  Which check refuses first
  // (the net's, or the training run's with the solver state) depends on
  // how much the tool's libraries map, so either message passes.
  const RunResult r = RunTool("caffe train --solver=solver.prototxt",
                              dir_.path(), "ulimit -v 1500000 && ");
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("'tiny'"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("does not fit in host memory"), std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("limited by the address-space limit (ulimit -v"),
            std::string::npos) << r.output;
  EXPECT_NE(r.output.find("What would fit:"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("Iteration 0"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace caffe
