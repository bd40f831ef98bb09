// Reading blobs under mem_param.  For every net in models/ and the layer
// nets, at every level, STATIC and DYNAMIC, with and without recomputation:
// each read of a blob's data (after forward and after backward) and diff
// (after backward) through the C++ API either returns the unoptimized net's
// bytes exactly or throws BlobNotReadable.  Blobs asked for (RequestBlobs,
// KeepBlobs) always read equal.  A binder that reuses memory without marking
// it (the test double) makes the same check find differences, so the check
// cannot pass by luck.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "caffe/caffe.hpp"
#include "caffe/test/mem_layer_nets.hpp"
#include "caffe/test/model_zoo_util.hpp"
#include "caffe/test/temp_dir.hpp"
#include "caffe/util/dataset_tools.hpp"
#include "caffe/util/db.hpp"

namespace caffe {
namespace {

struct ReadTally {
  int equal = 0, refused = 0, differ = 0;
  std::vector<std::string> refused_names, differing_names;
};

void Read(const Blob<float>& expected, const Blob<float>& got, bool diff,
          const std::string& name, ReadTally* t) {
  if (expected.count() == 0) return;
  const float* want = diff ? expected.cpu_diff() : expected.cpu_data();
  const float* have = nullptr;
  try {
    have = diff ? got.cpu_diff() : got.cpu_data();
  } catch (const BlobNotReadable& e) {
    ++t->refused;
    t->refused_names.push_back(name);
    // The error names the blob and the fix.
    EXPECT_NE(std::string(e.what()).find("exclude_blob"), std::string::npos)
        << e.what();
    return;
  }
  if (std::memcmp(want, have, expected.count() * sizeof(float)) == 0) {
    ++t->equal;
  } else {
    ++t->differ;
    t->differing_names.push_back(name + (diff ? " diff" : " data"));
  }
}

void ReadAll(const Net<float>& plain, const Net<float>& opt, bool diffs,
             ReadTally* t) {
  ASSERT_EQ(plain.blobs().size(), opt.blobs().size());
  for (size_t i = 0; i < plain.blobs().size(); ++i) {
    const std::string& name = plain.blob_names()[i];
    Read(*plain.blobs()[i], *opt.blobs()[i], false, name, t);
    if (diffs) Read(*plain.blobs()[i], *opt.blobs()[i], true, name, t);
  }
}

// Builds `param` with `mp`, runs two forward and backward passes with the
// random seeds the plain net used, and reads every blob after the second
// forward and backward.
// `before_forward` and `before_backward` may ask for blobs.
ReadTally ReadEveryBlob(
    NetParameter param, const MemoryOptimizationParameter& mp,
    const Net<float>& plain,
    const std::function<void(Net<float>*)>& before_forward = nullptr,
    const std::function<void(Net<float>*)>& before_backward = nullptr) {
  param.mutable_mem_param()->CopyFrom(mp);
  Caffe::set_random_seed(1);
  Net<float> opt(param);
  EXPECT_TRUE(opt.memory() != nullptr);
  if (before_forward) before_forward(&opt);
  // A first pass, so the reads below see a steady state: memory reused
  // across iterations (a pool block's previous holder) is checked too.
  Caffe::set_random_seed(2);
  opt.Forward();
  opt.Backward();
  ReadTally t;
  Caffe::set_random_seed(2);
  opt.Forward();
  ReadAll(plain, opt, false, &t);
  if (before_backward) before_backward(&opt);
  opt.Backward();
  ReadAll(plain, opt, true, &t);
  return t;
}

// The same two passes as ReadEveryBlob (recurrent layers carry their
// hidden state from one pass to the next).
void RunPlain(Net<float>* plain) {
  for (int pass = 0; pass < 2; ++pass) {
    Caffe::set_random_seed(2);
    plain->Forward();
    plain->Backward();
  }
}

MemoryOptimizationParameter Setting(int level, bool dynamic, bool sqrt) {
  MemoryOptimizationParameter mp;
  mp.set_optimize_train(true);
  mp.set_optimize_test(true);
  mp.set_level(level);
  mp.set_check(level == 2);  // poisoned buffers are refused too
  if (dynamic)
    mp.set_release(MemoryOptimizationParameter_Release_DYNAMIC);
  if (sqrt) mp.mutable_recompute()->set_auto_(RecomputeParameter_Auto_SQRT);
  return mp;
}

std::string Describe(const std::string& net, int level, bool dynamic,
                     bool sqrt) {
  return net + " level " + std::to_string(level) +
         (dynamic ? " DYNAMIC" : " STATIC") + (sqrt ? " SQRT" : "");
}

// The whole check on one net: every setting reads equal or refuses; asking
// for every blob reads every blob equal; keeping the refused blobs makes
// them readable; the broken binder is caught.
void CheckNet(const NetParameter& param, const std::string& name) {
  Caffe::set_random_seed(1);
  Net<float> plain(param);
  RunPlain(&plain);
  ReadTally level2;
  for (int level = 0; level <= 2; ++level)
    for (bool dynamic : {false, true})
      for (bool sqrt : {false, true}) {
        const std::string what = Describe(name, level, dynamic, sqrt);
        const ReadTally t =
            ReadEveryBlob(param, Setting(level, dynamic, sqrt), plain);
        EXPECT_EQ(0, t.differ)
            << what << ": " << t.differing_names.size() << " reads differ, "
            << "first " << t.differing_names[0];
        EXPECT_GT(t.equal, 0) << what;
        EXPECT_GT(t.refused, 0) << what << ": the plan reused nothing";
        if (level == 2 && !dynamic && !sqrt) level2 = t;
      }
  // Asked for: every blob's data before forward, every diff mid-pass.
  std::vector<std::string> all = plain.blob_names();
  for (bool dynamic : {false, true}) {
    const ReadTally t = ReadEveryBlob(
        param, Setting(2, dynamic, true), plain,
        [&](Net<float>* n) { n->RequestBlobs(all, false); },
        [&](Net<float>* n) { n->RequestBlobs(all, true); });
    EXPECT_EQ(0, t.differ) << name << " requested";
    EXPECT_EQ(0, t.refused) << name << " requested: refused "
                            << t.refused_names[0];
  }
  // Kept (for all later passes): the blobs level 2 refused.
  {
    const ReadTally t = ReadEveryBlob(
        param, Setting(2, false, false), plain,
        [&](Net<float>* n) { n->KeepBlobs(level2.refused_names); });
    EXPECT_EQ(0, t.differ) << name << " kept";
    EXPECT_EQ(0, t.refused) << name << " kept: refused "
                            << t.refused_names[0];
  }
  // The test double: a binder that reuses memory without marking it.
  for (bool dynamic : {false, true}) {
    const ReadTally t = ReadEveryBlob(
        param, Setting(2, dynamic, false), plain, [](Net<float>* n) {
          n->mutable_memory()->set_marks_not_readable(false);
        });
    EXPECT_GT(t.differ, 0) << name << (dynamic ? " DYNAMIC" : " STATIC")
                           << ": the broken binder went unnoticed";
  }
}

class MemReadableZooTest : public ::testing::TestWithParam<ZooModel> {};

TEST_P(MemReadableZooTest, EveryReadEqualsOrRefuses) {
  const ZooModel m = GetParam();
  NetParameter param = ZooTrainVal(m, m.size <= 32 ? 4 : 1);
  param.mutable_state()->set_phase(TRAIN);
  CheckNet(param, m.name);
}

INSTANTIATE_TEST_SUITE_P(Models, MemReadableZooTest,
                         ::testing::ValuesIn(ZooModels()),
                         [](const ::testing::TestParamInfo<ZooModel>& info) {
                           return info.param.name;
                         });

class MemReadableLayersTest : public ::testing::TestWithParam<int> {};

TEST_P(MemReadableLayersTest, EveryReadEqualsOrRefuses) {
  const NetParameter param = MemLayerNet(GetParam());
  CheckNet(param, param.name());
}

INSTANTIATE_TEST_SUITE_P(Nets, MemReadableLayersTest,
                         ::testing::Range(0, kNumMemLayerNets));

const char* kDeploy = R"(
name: "deploy"
force_backward: true
layer { name: "in" type: "Input" top: "x"
  input_param { shape { dim: 2 dim: 3 dim: 6 dim: 6 } } }
layer { name: "c1" type: "Convolution" bottom: "x" top: "c1"
  convolution_param { num_output: 4 kernel_size: 3 pad: 1
    weight_filler { type: "gaussian" std: 0.3 } } }
layer { name: "r1" type: "ReLU" bottom: "c1" top: "c1" }
layer { name: "c2" type: "Convolution" bottom: "c1" top: "c2"
  convolution_param { num_output: 4 kernel_size: 3 pad: 1
    weight_filler { type: "gaussian" std: 0.3 } } }
layer { name: "t2" type: "TanH" bottom: "c2" top: "t2" }
layer { name: "c3" type: "Convolution" bottom: "t2" top: "c3"
  convolution_param { num_output: 4 kernel_size: 3 pad: 1
    weight_filler { type: "gaussian" std: 0.3 } } }
layer { name: "ip" type: "InnerProduct" bottom: "c3" top: "score"
  inner_product_param { num_output: 5 weight_filler { type: "gaussian" } } }
)";

TEST(MemReadableTest, ForceBackwardTestNetIsPlannedForBackward) {
  // Saliency maps: a TEST net with force_backward runs backward under
  // mem_param; its plan still shares memory.
  NetParameter param;
  ReadProtoFromTextString(kDeploy, "deploy", &param);
  param.mutable_state()->set_phase(TEST);
  auto fill = [](Net<float>* n) {
    Blob<float>& x = *n->blob_by_name("x");
    for (int i = 0; i < x.count(); ++i) x.mutable_cpu_data()[i] = 0.01f * i;
  };
  Caffe::set_random_seed(1);
  Net<float> plain(param);
  fill(&plain);
  RunPlain(&plain);
  MemoryOptimizationParameter mp;
  mp.set_optimize_test(true);
  const ReadTally t = ReadEveryBlob(param, mp, plain, fill);
  EXPECT_EQ(0, t.differ);
  EXPECT_GT(t.refused, 0) << "the TEST plan shares nothing";
  // Asking for t2's diff mid-pass (pycaffe backward(diffs=['t2'])).
  const ReadTally asked = ReadEveryBlob(param, mp, plain, fill, [](Net<float>* n) {
    n->RequestBlobs({"t2"}, true);
  });
  EXPECT_EQ(0, asked.differ);
  EXPECT_EQ(asked.refused_names.end(),
            std::find(asked.refused_names.begin(), asked.refused_names.end(),
                      "t2"));
  // Without force_backward the TEST plan stays forward-only.
  param.set_force_backward(false);
  param.mutable_mem_param()->CopyFrom(mp);
  Net<float> forward_only(param);
  EXPECT_TRUE(forward_only.memory()->forward_only());
  forward_only.Forward();
  EXPECT_THROW(forward_only.Backward(), Error);
}

TEST(MemReadableTest, UnknownBlobNamesAreErrors) {
  NetParameter param;
  ReadProtoFromTextString(kDeploy, "deploy", &param);
  param.mutable_state()->set_phase(TEST);
  param.mutable_mem_param()->set_optimize_test(true);
  Net<float> net(param);
  EXPECT_THROW(net.KeepBlobs({"nope"}), Error);
  EXPECT_THROW(net.RequestBlobs({"nope"}, false), Error);
  net.KeepBlobs({"c2"});
  EXPECT_EQ(std::vector<std::string>{"c2"}, net.kept_blobs());
}

TEST(MemReadableTest, ReadingBeforeAnyPassIsRefusedNotGarbage) {
  // Arena bytes nothing has written hold no value Caffe would show (it
  // shows zeros): refused until a pass computes them.
  NetParameter param;
  ReadProtoFromTextString(kDeploy, "deploy", &param);
  param.mutable_state()->set_phase(TEST);
  param.mutable_mem_param()->set_optimize_test(true);
  Net<float> net(param);
  const std::string err = net.BlobReadableError("c2");
  EXPECT_NE(err.find("nothing has computed it"), std::string::npos) << err;
  EXPECT_THROW(net.blob_by_name("c2")->cpu_data(), BlobNotReadable);
  net.Forward();
  EXPECT_TRUE(net.blob_readable("score"));
  EXPECT_TRUE(net.blob_readable("x"));
}

// Every record of an LMDB, as Datum bytes in key order.
std::vector<std::string> Records(const std::string& path) {
  std::unique_ptr<db::DB> d(db::GetDB("lmdb"));
  d->Open(path, db::READ);
  std::unique_ptr<db::Cursor> c(d->NewCursor());
  std::vector<std::string> out;
  for (c->SeekToFirst(); c->valid(); c->Next()) out.push_back(c->value());
  return out;
}

TEST(MemReadableTest, ExtractFeaturesWritesTheUnoptimizedFeatures) {
  // A deploy net fed by constant DummyData; c2's memory is reused by a
  // later layer, so reading it after the pass needs the tool to keep it.
  TempDir tmp;
  NetParameter param;
  ReadProtoFromTextString(kDeploy, "deploy", &param);
  param.clear_force_backward();
  LayerParameter* in = param.mutable_layer(0);
  in->set_type("DummyData");
  in->clear_input_param();
  DummyDataParameter* d = in->mutable_dummy_data_param();
  BlobShape* shape = d->add_shape();
  for (int dim : {2, 3, 6, 6}) shape->add_dim(dim);
  d->add_data_filler()->set_type("constant");
  d->mutable_data_filler(0)->set_value(0.5f);
  Caffe::set_random_seed(1);
  Net<float> trained(param);
  NetParameter weights;
  trained.ToProto(&weights);
  const std::string model = tmp.file("w.caffemodel");
  WriteProtoToBinaryFile(weights, model);
  const std::string plain_proto = tmp.file("plain.prototxt");
  WriteProtoToTextFile(param, plain_proto);
  param.mutable_mem_param()->set_optimize_test(true);
  const std::string opt_proto = tmp.file("opt.prototxt");
  WriteProtoToTextFile(param, opt_proto);
  {
    // Without being asked for, c2 is not readable after a pass.
    Net<float> opt(opt_proto, TEST);
    opt.Forward();
    ASSERT_FALSE(opt.blob_readable("c2"));
  }
  const std::string a = tmp.file("plain_c2"), b = tmp.file("opt_c2");
  EXPECT_EQ(4, ExtractFeatures(model, plain_proto, {"c2", "c1"},
                               {a, a + "1"}, 2, "lmdb"));
  EXPECT_EQ(4, ExtractFeatures(model, opt_proto, {"c2", "c1"}, {b, b + "1"},
                               2, "lmdb"));
  EXPECT_EQ(Records(a), Records(b));
  EXPECT_EQ(Records(a + "1"), Records(b + "1"));
  EXPECT_EQ(4u, Records(b).size());
}

}  // namespace
}  // namespace caffe
