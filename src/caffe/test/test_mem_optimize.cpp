// mem_param on real nets: training with the memory optimizer gives
// bit-identical losses and weights to training without it, for every net in
// models/, at every level, also in check mode (dead buffers filled with NaN,
// which would surface in the loss if any layer read one).
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "caffe/caffe.hpp"
#include "caffe/layers/conv_layer.hpp"
#include "caffe/test/mem_layer_nets.hpp"
#include "caffe/test/mem_trajectory_util.hpp"
#include "caffe/test/model_zoo_util.hpp"

namespace caffe {
namespace {

Trajectory Train(const NetParameter& net,
                 const MemoryOptimizationParameter* mp, int iters) {
  return TrainTrajectory(net, mp, iters);
}

class MemOptimizeZooTest : public ::testing::TestWithParam<ZooModel> {};

TEST_P(MemOptimizeZooTest, TrainingIsBitIdentical) {
  const ZooModel m = GetParam();
  const bool small = m.size <= 32;
  NetParameter net = ZooTrainVal(m, small ? 8 : 1);
  net.mutable_state()->set_phase(TRAIN);
  const int iters = 2;
  const Trajectory base = Train(net, nullptr, iters);
  for (float l : base.losses) ASSERT_TRUE(std::isfinite(l)) << m.name;
  for (int level = 0; level <= 2; ++level) {
    MemoryOptimizationParameter mp;
    mp.set_optimize_train(true);
    mp.set_level(level);
    mp.set_check(true);  // NaN-fill each buffer after its last use
    const Trajectory opt = Train(net, &mp, iters);
    ExpectBitIdentical(base, opt,
                       m.name + " level " + std::to_string(level));
    EXPECT_LT(opt.planned_bytes, opt.unshared_bytes) << m.name;
    if (level == 1) {
      // The same with blocks taken from a pool at first use.
      mp.set_release(MemoryOptimizationParameter_Release_DYNAMIC);
      ExpectBitIdentical(base, Train(net, &mp, iters), m.name + " DYNAMIC");
    }
    if (level == 2) {
      // The arena must actually save memory: at most 75% of unshared.
      EXPECT_LT(opt.planned_bytes, opt.unshared_bytes * 3 / 4) << m.name;
    }
  }
}

TEST_P(MemOptimizeZooTest, TestPhaseForwardIsBitIdentical) {
  const ZooModel m = GetParam();
  NetParameter net = ZooTrainVal(m, m.size <= 32 ? 8 : 1);
  net.mutable_state()->set_phase(TEST);
  Caffe::set_random_seed(3);
  Net<float> plain(net);
  net.mutable_mem_param()->set_optimize_test(true);
  net.mutable_mem_param()->set_check(true);
  Caffe::set_random_seed(3);
  Net<float> opt(net);
  opt.ShareTrainedLayersWith(&plain);
  Caffe::set_random_seed(11);
  const vector<Blob<float>*>& a = plain.Forward();
  std::vector<std::vector<float> > out;
  for (Blob<float>* b : a) out.emplace_back(b->cpu_data(), b->cpu_data() + b->count());
  Caffe::set_random_seed(11);
  const vector<Blob<float>*>& b = opt.Forward();
  ASSERT_EQ(out.size(), b.size());
  for (size_t i = 0; i < b.size(); ++i)
    EXPECT_EQ(0, std::memcmp(out[i].data(), b[i]->cpu_data(),
                             out[i].size() * sizeof(float)))
        << m.name << " output " << i;
  ASSERT_TRUE(opt.memory() != nullptr);
  EXPECT_LT(opt.memory()->plan().total_bytes(),
            opt.memory()->plan().unshared_bytes);
  // Backward on a forward-only plan is refused, not computed from garbage.
  EXPECT_THROW(opt.Backward(), Error);
}

INSTANTIATE_TEST_SUITE_P(Models, MemOptimizeZooTest,
                         ::testing::ValuesIn(ZooModels()),
                         [](const ::testing::TestParamInfo<ZooModel>& info) {
                           return info.param.name;
                         });

const char* kChain = R"(
name: "chain"
layer { name: "in" type: "Input" top: "x" input_param { shape { dim: 2 dim: 8 } } }
layer { name: "ip1" type: "InnerProduct" bottom: "x" top: "h1"
  inner_product_param { num_output: 8 weight_filler { type: "gaussian" } } }
layer { name: "t1" type: "TanH" bottom: "h1" top: "a1" }
layer { name: "ip2" type: "InnerProduct" bottom: "a1" top: "h2"
  inner_product_param { num_output: 8 weight_filler { type: "gaussian" } } }
layer { name: "t2" type: "TanH" bottom: "h2" top: "a2" }
layer { name: "ip3" type: "InnerProduct" bottom: "a2" top: "out"
  inner_product_param { num_output: 3 weight_filler { type: "gaussian" } } }
)";

const char* kSideBranch = R"(
name: "side"
layer { name: "in" type: "Input" top: "x" top: "t"
  input_param { shape { dim: 2 dim: 8 } shape { dim: 2 dim: 4 } } }
layer { name: "ip1" type: "InnerProduct" bottom: "x" top: "h1"
  inner_product_param { num_output: 8 weight_filler { type: "gaussian" } } }
layer { name: "slice" type: "Slice" bottom: "h1" top: "s1" top: "s2"
  slice_param { axis: 1 slice_point: 4 } }
layer { name: "ip2" type: "InnerProduct" bottom: "s1" top: "p"
  inner_product_param { num_output: 4 weight_filler { type: "gaussian" } } }
layer { name: "loss" type: "EuclideanLoss" bottom: "p" bottom: "t" top: "loss" }
layer { name: "side" type: "TanH" bottom: "s2" top: "side" }
)";

TEST(MemOptimizeTest, ReadingAReusedBlobIsRefusedWithTheFix) {
  NetParameter p;
  ReadProtoFromTextString(kChain, "chain", &p);
  p.mutable_state()->set_phase(TEST);
  p.mutable_mem_param()->set_optimize_test(true);
  Net<float> net(p);
  net.Forward();
  // Inputs and outputs stay readable.
  EXPECT_TRUE(net.blob_readable("x"));
  EXPECT_TRUE(net.blob_readable("out"));
  // h1 dies at t1; a later blob takes its memory.
  const std::string err = net.BlobReadableError("h1");
  EXPECT_NE(err.find("'h1'"), std::string::npos) << err;
  EXPECT_NE(err.find("reused by"), std::string::npos) << err;
  EXPECT_NE(err.find("exclude_blob: \"h1\""), std::string::npos) << err;
  // exclude_blob keeps it.
  p.mutable_mem_param()->add_exclude_blob("h1");
  Net<float> kept(p);
  kept.Forward();
  EXPECT_TRUE(kept.blob_readable("h1"));
  // Without mem_param everything is readable.
  p.clear_mem_param();
  Net<float> plain(p);
  EXPECT_TRUE(plain.blob_readable("h1"));
}

TEST(MemOptimizeTest, DebugInfoAndPrintLogKeepWorking) {
  // The fork that introduced mem_param turned it off under debug_info;
  // here both work together and change nothing.
  NetParameter p;
  ReadProtoFromTextString(kSideBranch, "side", &p);
  p.mutable_state()->set_phase(TRAIN);
  const Trajectory base = Train(p, nullptr, 3);
  p.set_debug_info(true);
  MemoryOptimizationParameter mp;
  mp.set_print_log(true);
  mp.set_check(true);
  const Trajectory opt = Train(p, &mp, 3);
  ExpectBitIdentical(base, opt, "debug_info");
  EXPECT_LT(opt.planned_bytes, opt.unshared_bytes);
}

TEST(MemOptimizeTest, DynamicReleaseReusesPoolBlocks) {
  NetParameter p;
  ReadProtoFromTextString(kChain, "chain", &p);
  p.mutable_state()->set_phase(TEST);
  p.mutable_mem_param()->set_optimize_test(true);
  p.mutable_mem_param()->set_release(MemoryOptimizationParameter_Release_DYNAMIC);
  Net<float> net(p);
  net.Forward();
  const size_t pool = net.memory()->pool_bytes();
  EXPECT_GT(pool, 0u);
  EXPECT_LT(pool, net.memory()->plan().unshared_bytes);
  net.Forward();  // steady state: nothing new allocated
  EXPECT_EQ(net.memory()->pool_bytes(), pool);
  const std::string err = net.BlobReadableError("h1");
  EXPECT_NE(err.find("reused by"), std::string::npos) << err;
  EXPECT_TRUE(net.blob_readable("out"));
}

TEST(MemOptimizeTest, OptimizeTrainOffLeavesTheNetAlone) {
  NetParameter p;
  ReadProtoFromTextString(kChain, "chain", &p);
  p.mutable_state()->set_phase(TRAIN);
  p.mutable_mem_param()->set_optimize_train(false);
  Net<float> net(p);
  EXPECT_EQ(net.memory(), nullptr);
  p.mutable_state()->set_phase(TEST);  // optimize_test defaults to false
  p.clear_mem_param();
  p.mutable_mem_param();
  Net<float> test_net(p);
  EXPECT_EQ(test_net.memory(), nullptr);
}


TEST(MemOptimizeTest, DiffReadBeforeWrittenIsPinned) {
  // Slice's backward reads the diff of s2, whose consumer (TanH) is not
  // under the loss and never writes it: it must keep Caffe's zero fill
  // rather than hold another blob's bytes.
  NetParameter p;
  ReadProtoFromTextString(kSideBranch, "side", &p);
  p.mutable_state()->set_phase(TRAIN);
  NetParameter q = p;
  q.mutable_mem_param()->set_optimize_train(true);
  q.mutable_mem_param()->set_check(true);
  Caffe::set_random_seed(2);
  Net<double> plain(p);
  Caffe::set_random_seed(2);
  Net<double> opt(q);
  for (int rep = 0; rep < 2; ++rep) {
    for (Net<double>* n : {&plain, &opt}) {
      Blob<double>& x = *n->blob_by_name("x");
      for (int i = 0; i < x.count(); ++i) x.mutable_cpu_data()[i] = 0.1 * i;
      Blob<double>& t = *n->blob_by_name("t");
      for (int i = 0; i < t.count(); ++i) t.mutable_cpu_data()[i] = -0.2 * i;
      n->ClearParamDiffs();
      n->ForwardBackward();
    }
  }
  std::string reason;
  for (const auto& b : opt.memory()->buffers())
    if (b.name == "s2(diff)") reason = b.pin_reason;
  EXPECT_EQ(reason, "read before written");
  for (size_t i = 0; i < plain.learnable_params().size(); ++i) {
    const Blob<double>* a = plain.learnable_params()[i];
    const Blob<double>* b = opt.learnable_params()[i];
    EXPECT_EQ(0, std::memcmp(a->cpu_diff(), b->cpu_diff(),
                             a->count() * sizeof(double)))
        << "param " << i;
  }
}

TEST(MemOptimizeTest, MeasuredPeakDropsWithOptimization) {
  const ZooModel lenet = ZooModels()[0];
  NetParameter net = ZooTrainVal(lenet, 64);
  net.mutable_state()->set_phase(TRAIN);
  size_t peaks[2];
  for (int opt = 0; opt < 2; ++opt) {
    NetParameter p = net;
    if (opt) p.mutable_mem_param()->set_optimize_train(true);
    // Each run grows the shared workspace (plain) or plans its scratch
    // (optimized) from nothing: both count it.
    ConvolutionLayer<float>::ReleaseColBuffer();
    const size_t before = HostBytesInUse();
    ResetHostBytesPeak();
    {
      Net<float> n(p);
      n.ForwardBackward();
      peaks[opt] = HostBytesPeak() - before;
    }
  }
  EXPECT_LT(peaks[1], peaks[0] * 3 / 4)
      << "optimized " << peaks[1] << " vs " << peaks[0];
}

}  // namespace
}  // namespace caffe

namespace caffe {
namespace {

class MemOptimizeLayersTest : public ::testing::TestWithParam<int> {};

TEST_P(MemOptimizeLayersTest, TrainingIsBitIdentical) {
  NetParameter net = MemLayerNet(GetParam());
  const std::string name = net.name();
  const Trajectory base = Train(net, nullptr, 3);
  for (float l : base.losses) ASSERT_TRUE(std::isfinite(l)) << name;
  for (int level = 0; level <= 2; ++level) {
    MemoryOptimizationParameter mp;
    mp.set_level(level);
    mp.set_check(true);
    const Trajectory opt = Train(net, &mp, 3);
    ExpectBitIdentical(base, opt,
                       name + " level " + std::to_string(level));
    EXPECT_GT(opt.planned_bytes, 0u) << name;
    EXPECT_LT(opt.planned_bytes, opt.unshared_bytes) << name;
  }
}

INSTANTIATE_TEST_SUITE_P(Nets, MemOptimizeLayersTest,
                         ::testing::Range(0, kNumMemLayerNets));

}  // namespace
}  // namespace caffe

namespace caffe {
namespace {

const char* kKeptNet = R"(
layer { name: "d" type: "DummyData" top: "x" top: "label"
  dummy_data_param { shape { dim: 2 dim: 3 dim: 8 dim: 8 } shape { dim: 2 }
    data_filler { type: "gaussian" std: 1 } data_filler { type: "constant" value: 1 } } }
layer { name: "conv" type: "Convolution" bottom: "x" top: "c"
  convolution_param { num_output: 4 kernel_size: 3 weight_filler { type: "gaussian" std: 0.3 } } }
layer { name: "pool" type: "Pooling" bottom: "c" top: "p"
  pooling_param { pool: MAX kernel_size: 2 stride: 2 } }
layer { name: "drop" type: "Dropout" bottom: "p" top: "p" dropout_param { dropout_ratio: 0.5 } }
layer { name: "ip" type: "InnerProduct" bottom: "p" top: "y"
  inner_product_param { num_output: 3 weight_filler { type: "gaussian" std: 0.3 } } }
layer { name: "loss" type: "SoftmaxWithLoss" bottom: "y" bottom: "label" top: "loss" }
)";

// Finds the plan's request for `name`, or fails the test.
const mem::BufferRequest* FindRequest(const NetMemory& m,
                                      const std::string& name) {
  for (const mem::BufferRequest& r : m.requests())
    if (r.name == name) return &r;
  ADD_FAILURE() << "no buffer named " << name;
  return nullptr;
}

TEST(MemOptimizeTest, LayersKeptMemoryIsPlannedFromForwardToBackward) {
  NetParameter p;
  ReadProtoFromTextString(kKeptNet, "kept", &p);
  p.mutable_state()->set_phase(TRAIN);
  p.mutable_mem_param()->set_check(true);
  Net<float> net(p);
  const NetMemory& m = *net.memory();
  // Layer 2 is the pooling (argmax mask), layer 3 the dropout (its mask).
  for (int layer : {2, 3}) {
    const std::string name = net.layer_names()[layer] + "/kept0";
    const mem::BufferRequest* r = FindRequest(m, name);
    ASSERT_TRUE(r != nullptr);
    EXPECT_TRUE(r->shareable) << name;
    EXPECT_EQ(m.ForwardStep(layer), r->first_step) << name;
    EXPECT_EQ(m.BackwardStep(layer), r->last_step) << name;
    EXPECT_GT(r->bytes, 0u) << name;
  }
  // The softmax inside the loss keeps its probabilities for backward.
  ASSERT_TRUE(FindRequest(m, "loss/kept0") != nullptr);
  // A bigger batch grows the masks: the next forward re-plans for them.
  const size_t mask_bytes = FindRequest(m, "pool/kept0")->bytes;
  net.blob_by_name("x")->Reshape(4, 3, 8, 8);
  net.blob_by_name("label")->Reshape(vector<int>{4});
  net.Reshape();
  net.Forward();
  EXPECT_EQ(2 * mask_bytes, FindRequest(*net.memory(), "pool/kept0")->bytes);
  EXPECT_TRUE(net.memory()->StillApplied());
}

TEST(MemOptimizeTest, KeptMemoryOfATestNetLivesOneStep) {
  NetParameter p;
  ReadProtoFromTextString(kKeptNet, "kept", &p);
  p.mutable_state()->set_phase(TEST);
  p.mutable_mem_param()->set_optimize_test(true);
  Net<float> net(p);
  // What is still kept (the loss's probabilities) lives one step.
  const mem::BufferRequest* r = FindRequest(*net.memory(), "loss/kept0");
  ASSERT_TRUE(r != nullptr);
  EXPECT_EQ(r->first_step, r->last_step);
  // MAX pooling keeps no argmax where no backward runs.
  for (const mem::BufferRequest& q : net.memory()->requests())
    EXPECT_NE(q.name, "pool/kept0");
}

}  // namespace
}  // namespace caffe
