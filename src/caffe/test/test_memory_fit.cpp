// Memory refused before it runs out (util/memory_fit.hpp,
// util/host_memory_room.hpp): under a lowered limit a net that cannot fit
// is refused when it is built, with what it needs and what would fit; and
// each suggestion, applied, builds and trains under the same limit, where
// every allocation is checked against that limit.
#include <gtest/gtest.h>

#include <regex>
#include <string>

#include "caffe/net.hpp"
#include "caffe/sgd_solvers.hpp"
#include "caffe/solver_factory.hpp"
#include "caffe/syncedmem.hpp"
#include "caffe/util/host_memory_room.hpp"
#include "caffe/util/io.hpp"
#include "caffe/util/memory_fit.hpp"

namespace caffe {
namespace {

// A chain of 3x3 convolutions on 64x64 maps: activations dominate, so
// sharing and recomputation both pay.
std::string ChainNet(int batch, int convs, const std::string& mem_param) {
  std::string s = "name: \"chain\"\n" + mem_param + R"(
layer { name: "data" type: "DummyData" top: "data" top: "label"
  dummy_data_param { shape { dim: )" + std::to_string(batch) +
                  R"( dim: 8 dim: 64 dim: 64 } shape { dim: )" +
                  std::to_string(batch) + R"( }
    data_filler { type: "gaussian" std: 1 }
    data_filler { type: "constant" value: 1 } } }
)";
  std::string bottom = "data";
  for (int i = 0; i < convs; ++i) {
    const std::string name = "conv" + std::to_string(i);
    s += "layer { name: '" + name + "' type: 'Convolution' bottom: '" +
         bottom + "' top: '" + name +
         "' convolution_param { num_output: 8 kernel_size: 3 pad: 1 "
         "weight_filler { type: 'gaussian' std: 0.05 } } }\n"
         "layer { name: 'relu" + std::to_string(i) + "' type: 'ReLU' bottom: '" +
         name + "' top: '" + name + "' }\n";
    bottom = name;
  }
  s += "layer { name: 'pool' type: 'Pooling' bottom: '" + bottom +
       "' top: 'pool' pooling_param { pool: AVE global_pooling: true } }\n"
       "layer { name: 'fc' type: 'InnerProduct' bottom: 'pool' top: 'fc' "
       "inner_product_param { num_output: 10 "
       "weight_filler { type: 'gaussian' std: 0.1 } } }\n"
       "layer { name: 'loss' type: 'SoftmaxWithLoss' bottom: 'fc' "
       "bottom: 'label' top: 'loss' }\n";
  return s;
}

NetParameter Parse(const std::string& text) {
  NetParameter p;
  ReadProtoFromTextString(text, "chain", &p);
  p.mutable_state()->set_phase(TRAIN);
  return p;
}

// What a net built from `text` needs in all (built without a limit).
size_t NeedOf(const std::string& text) {
  Net<float> net(Parse(text));
  return NetMemoryNeed(net).total();
}

// Builds and trains one iteration; every allocation is checked against
// the limit in force, so this fails if the estimate was too low.
void BuildAndTrain(const std::string& text) {
  Net<float> net(Parse(text));
  net.ForwardBackward();
}

std::string RefusalOf(const std::string& text) {
  try {
    Net<float> net(Parse(text));
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

class MemoryFitTest : public ::testing::Test {
 protected:
  void TearDown() override { SetHostMemoryLimit(0); }
  // A limit leaving `bytes` above what this process holds now.
  void LimitTo(size_t bytes) { SetHostMemoryLimit(HostBytesInUse() + bytes); }
};

TEST(ByteSizeTest, ParsesSuffixes) {
  EXPECT_EQ(ParseByteSize("100"), 100u);
  EXPECT_EQ(ParseByteSize("1.5K"), 1536u);
  EXPECT_EQ(ParseByteSize("512M"), size_t(512) << 20);
  EXPECT_EQ(ParseByteSize("2GiB"), size_t(2) << 30);
  EXPECT_EQ(ParseByteSize("1t"), size_t(1) << 40);
  for (const char* bad : {"", "abc", "12X", "-1", "5 MB extra", "1e30"})
    EXPECT_THROW(ParseByteSize(bad), Error) << bad;
}

TEST_F(MemoryFitTest, AllocationOverTheLimitIsRefusedWithTheFigures) {
  LimitTo(size_t(1) << 20);
  void* p = nullptr;
  try {
    CaffeMallocHost(&p, size_t(8) << 20);
    FAIL() << "an allocation over the limit was handed out";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("cannot allocate 8.0 MiB"), std::string::npos) << what;
    EXPECT_NE(what.find("memory limit"), std::string::npos) << what;
  }
  EXPECT_EQ(p, nullptr);
  CaffeMallocHost(&p, 4096);  // within the limit
  EXPECT_NE(p, nullptr);
  CaffeFreeHost(p);
}

TEST_F(MemoryFitTest, RoomNamesTheLimitThatBinds) {
  LimitTo(size_t(3) << 20);
  const HostRoom room = HostMemoryRoom();
  EXPECT_LE(room.bytes, size_t(3) << 20);
  EXPECT_NE(room.limited_by.find("CAFFE_MEMORY_LIMIT"), std::string::npos);
  SetHostMemoryLimit(0);
  EXPECT_GT(HostMemoryRoom().bytes, size_t(3) << 20);
}

TEST_F(MemoryFitTest, PlainNetRefusedAndMemParamSuggestedThatFits) {
  const std::string plain = ChainNet(8, 6, "");
  const std::string planned =
      ChainNet(8, 6, "mem_param { optimize_train: true }");
  const size_t need_plain = NeedOf(plain), need_planned = NeedOf(planned);
  // Training keeps every forward output for backward: sharing saves the
  // gradients' memory, not the outputs'.
  ASSERT_LT(need_planned, need_plain * 3 / 4);
  LimitTo((need_plain + need_planned) / 2);
  const std::string what = RefusalOf(plain);
  ASSERT_FALSE(what.empty()) << "a net over the limit was built";
  EXPECT_NE(what.find("net 'chain' (TRAIN) does not fit in host memory"),
            std::string::npos) << what;
  EXPECT_NE(what.find("limited by LeanCaffe's memory limit"),
            std::string::npos) << what;
  EXPECT_NE(what.find("What would fit: mem_param { optimize_train: true }"),
            std::string::npos) << what;
  EXPECT_NO_THROW(BuildAndTrain(planned));
}

TEST_F(MemoryFitTest, LargestBatchSuggestedIsTheLargestThatFits) {
  const std::string plain = ChainNet(16, 4, "");
  LimitTo(NeedOf(plain) / 2);
  const std::string what = RefusalOf(plain);
  std::smatch m;
  ASSERT_TRUE(std::regex_search(what, m,
                                std::regex("a batch of (\\d+) instead of 16")))
      << what;
  const int batch = std::stoi(m[1]);
  ASSERT_GE(batch, 2);
  ASSERT_LT(batch, 16);
  EXPECT_NO_THROW(BuildAndTrain(ChainNet(batch, 4, "")));
  EXPECT_NE(RefusalOf(ChainNet(batch + 1, 4, "")), "");
}

TEST_F(MemoryFitTest, RecomputeBudgetSuggestedWhenSharingIsNotEnough) {
  const std::string shared =
      ChainNet(8, 12, "mem_param { optimize_train: true }");
  const std::string sqrt = ChainNet(
      8, 12, "mem_param { optimize_train: true recompute { auto: SQRT } }");
  const size_t need_shared = NeedOf(shared), need_sqrt = NeedOf(sqrt);
  ASSERT_LT(need_sqrt + (size_t(4) << 20), need_shared);
  LimitTo((need_sqrt + need_shared) / 2);
  const std::string what = RefusalOf(ChainNet(8, 12, ""));
  std::smatch m;
  ASSERT_TRUE(std::regex_search(
      what, m, std::regex("recompute \\{ auto: BUDGET memory_budget_mb: (\\d+)")))
      << what;
  EXPECT_EQ(what.find("What would fit: mem_param { optimize_train: true } ("),
            std::string::npos) << "sharing alone does not fit: " << what;
  EXPECT_NO_THROW(BuildAndTrain(
      ChainNet(8, 12, "mem_param { optimize_train: true recompute { auto: "
                      "BUDGET memory_budget_mb: " + std::string(m[1]) + " } }")));
}

TEST_F(MemoryFitTest, SolverStateCountsAndIsNamed) {
  // An Adam solver keeps three blobs per parameter: with a big fc, the
  // net fits alone and not with its solver.
  const std::string text = R"(
name: "wide"
layer { name: "x" type: "DummyData" top: "x" top: "label"
  dummy_data_param { shape { dim: 2 dim: 2048 } shape { dim: 2 }
    data_filler { type: "gaussian" std: 1 }
    data_filler { type: "constant" value: 1 } } }
layer { name: "fc" type: "InnerProduct" bottom: "x" top: "fc"
  inner_product_param { num_output: 1024
    weight_filler { type: "gaussian" std: 0.01 } } }
layer { name: "loss" type: "SoftmaxWithLoss" bottom: "fc" bottom: "label"
  top: "loss" }
)";
  const size_t params = 2048 * 1024 * sizeof(float);
  const size_t alone = NeedOf(text);
  SolverParameter s;
  ReadProtoFromTextString(text, "wide", s.mutable_net_param());
  s.set_type("Adam");
  s.set_base_lr(0.001f);
  s.set_lr_policy("fixed");
  s.set_snapshot_after_train(false);
  LimitTo(alone + params + params / 2);  // 1 copy fits, 3 do not
  try {
    shared_ptr<caffe::Solver<float> > solver(
        SolverRegistry<float>::CreateSolver(s));
    FAIL() << "Adam's state was not counted";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("solver state 24.0 MiB"), std::string::npos) << what;
  }
  s.set_type("SGD");  // one copy fits
  shared_ptr<caffe::Solver<float> > solver(
      SolverRegistry<float>::CreateSolver(s));
  EXPECT_NO_THROW(solver->Step(2));
}

TEST_F(MemoryFitTest, ParametersOverTheLimitNameTheLayer) {
  LimitTo(size_t(1) << 20);
  std::string text = ChainNet(2, 1, "");
  text.replace(text.find("num_output: 10 "), 14, "num_output: 100000");
  const std::string what = RefusalOf(text);
  EXPECT_NE(what.find("layer 'fc' (type InnerProduct)"), std::string::npos)
      << what;
  EXPECT_NE(what.find("cannot allocate"), std::string::npos) << what;
}

TEST_F(MemoryFitTest, NetThatFitsBuildsAsBefore) {
  const std::string plain = ChainNet(2, 2, "");
  LimitTo(NeedOf(plain) + (size_t(1) << 20));
  EXPECT_NO_THROW(BuildAndTrain(plain));
}

}  // namespace
}  // namespace caffe
