// Net construction and execution: filtering by NetState, split insertion,
// in-place layers, backward-need analysis, loss weights, parameter sharing,
// and the errors users see for broken nets.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <functional>
#include <string>

#include "caffe/caffe.hpp"
#include "caffe/test/temp_dir.hpp"
#include "caffe/util/insert_splits.hpp"

namespace caffe {
namespace {

NetParameter ParseNet(const std::string& text) {
  NetParameter p;
  ReadProtoFromTextString(text, "test net", &p);
  return p;
}

// A small classifier: DummyData -> InnerProduct -> ReLU (in place) ->
// InnerProduct -> SoftmaxWithLoss, with an Accuracy in TEST.
const char* kTinyNet = R"(
name: "tiny"
layer { name: "data" type: "DummyData" top: "data" top: "label"
  dummy_data_param {
    shape { dim: 4 dim: 3 } shape { dim: 4 }
    data_filler { type: "gaussian" std: 1 }
    data_filler { type: "constant" value: 1 } } }
layer { name: "ip1" type: "InnerProduct" bottom: "data" top: "ip1"
  inner_product_param { num_output: 5 weight_filler { type: "gaussian" std: 0.5 }
    bias_filler { type: "constant" value: 0.1 } } }
layer { name: "relu1" type: "ReLU" bottom: "ip1" top: "ip1" }
layer { name: "ip2" type: "InnerProduct" bottom: "ip1" top: "ip2"
  inner_product_param { num_output: 2 weight_filler { type: "gaussian" std: 0.5 } } }
layer { name: "loss" type: "SoftmaxWithLoss" bottom: "ip2" bottom: "label" top: "loss" }
layer { name: "acc" type: "Accuracy" bottom: "ip2" bottom: "label" top: "acc"
  include { phase: TEST } }
)";

TEST(NetTest, BuildsAndFiltersByPhase) {
  NetParameter p = ParseNet(kTinyNet);
  p.mutable_state()->set_phase(TRAIN);
  Net<float> train(p);
  EXPECT_FALSE(train.has_layer("acc"));
  p.mutable_state()->set_phase(TEST);
  Net<float> test(p);
  EXPECT_TRUE(test.has_layer("acc"));
  // ip2 feeds both loss and accuracy: a split is inserted in TEST only.
  EXPECT_TRUE(test.has_layer(SplitLayerName("ip2", "ip2", 0)));
  EXPECT_FALSE(train.has_layer(SplitLayerName("ip2", "ip2", 0)));
  EXPECT_EQ(train.num_outputs(), 1);
  EXPECT_EQ(test.num_outputs(), 2);
}

TEST(NetTest, InPlaceLayerSharesBlob) {
  NetParameter p = ParseNet(kTinyNet);
  p.mutable_state()->set_phase(TRAIN);
  Net<float> net(p);
  const auto& tops = net.top_vecs();
  const auto& bottoms = net.bottom_vecs();
  const int relu = 2;
  EXPECT_EQ(net.layer_names()[relu], "relu1");
  EXPECT_EQ(tops[relu][0], bottoms[relu][0]);
}

TEST(NetTest, LossMatchesManualComputation) {
  NetParameter p = ParseNet(kTinyNet);
  p.mutable_state()->set_phase(TRAIN);
  Caffe::set_random_seed(3);
  Net<double> net(p);
  double loss = 0;
  net.Forward(&loss);
  const Blob<double>& ip2 = *net.blob_by_name("ip2");
  double expected = 0;
  for (int n = 0; n < 4; ++n) {
    const double a = ip2.cpu_data()[n * 2], b = ip2.cpu_data()[n * 2 + 1];
    const double m = std::max(a, b);
    const double lse = m + std::log(std::exp(a - m) + std::exp(b - m));
    expected += lse - b;  // label 1
  }
  EXPECT_NEAR(loss, expected / 4, 1e-10);
}

TEST(NetTest, LossWeightScalesGradients) {
  NetParameter p = ParseNet(kTinyNet);
  p.mutable_state()->set_phase(TRAIN);
  // Constant data: both nets must see the same batch.
  p.mutable_layer(0)->mutable_dummy_data_param()->mutable_data_filler(0)
      ->set_type("constant");
  Caffe::set_random_seed(5);
  Net<double> a(p);
  p.mutable_layer(4)->add_loss_weight(3.0);
  Caffe::set_random_seed(5);
  Net<double> b(p);
  double la, lb;
  a.Forward(&la);
  a.ClearParamDiffs();
  a.Backward();
  b.Forward(&lb);
  b.ClearParamDiffs();
  b.Backward();
  EXPECT_NEAR(lb, 3 * la, 1e-12);
  for (size_t i = 0; i < a.learnable_params().size(); ++i) {
    const Blob<double>* pa = a.learnable_params()[i];
    const Blob<double>* pb = b.learnable_params()[i];
    for (int k = 0; k < pa->count(); ++k)
      EXPECT_NEAR(pb->cpu_diff()[k], 3 * pa->cpu_diff()[k], 1e-12);
  }
}

TEST(NetTest, BackwardNeedAnalysis) {
  NetParameter p = ParseNet(kTinyNet);
  p.mutable_state()->set_phase(TRAIN);
  // Freeze ip1: it still needs backward for nothing, data needs none.
  ParamSpec* w = p.mutable_layer(1)->add_param();
  w->set_lr_mult(0);
  ParamSpec* bias = p.mutable_layer(1)->add_param();
  bias->set_lr_mult(0);
  Net<float> net(p);
  EXPECT_FALSE(net.layer_need_backward()[0]);  // data
  EXPECT_FALSE(net.layer_need_backward()[1]);  // frozen ip1
  EXPECT_TRUE(net.layer_need_backward()[3]);   // ip2
  EXPECT_FALSE(net.bottom_need_backward()[4][1]);  // label
  // force_backward turns it on where possible (never for labels).
  p.set_force_backward(true);
  Net<float> forced(p);
  EXPECT_TRUE(forced.layer_need_backward()[1]);
  EXPECT_FALSE(forced.bottom_need_backward()[4][1]);
}

TEST(NetTest, ParameterSharingByName) {
  const char* text = R"(
layer { name: "in" type: "Input" top: "a" top: "b"
  input_param { shape { dim: 2 dim: 3 } } }
layer { name: "ipa" type: "InnerProduct" bottom: "a" top: "fa"
  param { name: "shared_w" } param { name: "shared_b" }
  inner_product_param { num_output: 4 weight_filler { type: "gaussian" } } }
layer { name: "ipb" type: "InnerProduct" bottom: "b" top: "fb"
  param { name: "shared_w" } param { name: "shared_b" }
  inner_product_param { num_output: 4 weight_filler { type: "gaussian" } } }
)";
  Net<float> net(ParseNet(text));
  auto ipa = net.layer_by_name("ipa");
  auto ipb = net.layer_by_name("ipb");
  EXPECT_EQ(ipa->blobs()[0]->cpu_data(), ipb->blobs()[0]->cpu_data());
  EXPECT_EQ(net.learnable_params().size(), 2u);
  EXPECT_EQ(net.num_inputs(), 2);
}

TEST(NetTest, SharingWithMismatchedShapesNamesLayers) {
  const char* text = R"(
layer { name: "in" type: "Input" top: "a" input_param { shape { dim: 2 dim: 3 } } }
layer { name: "ipa" type: "InnerProduct" bottom: "a" top: "fa"
  param { name: "w" } inner_product_param { num_output: 4 } }
layer { name: "ipb" type: "InnerProduct" bottom: "a" top: "fb"
  param { name: "w" } inner_product_param { num_output: 5 } }
)";
  try {
    Net<float> net(ParseNet(text));
    FAIL() << "expected an error";
  } catch (const Error& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("ipb"), std::string::npos) << msg;
    EXPECT_NE(msg.find("ipa"), std::string::npos) << msg;
  }
}

TEST(NetTest, StateRules) {
  NetState state;
  state.set_phase(TRAIN);
  state.set_level(2);
  state.add_stage("fast");
  NetStateRule rule;
  EXPECT_TRUE(Net<float>::StateMeetsRule(state, rule, "x"));
  rule.set_min_level(3);
  EXPECT_FALSE(Net<float>::StateMeetsRule(state, rule, "x"));
  rule.Clear();
  rule.set_max_level(1);
  EXPECT_FALSE(Net<float>::StateMeetsRule(state, rule, "x"));
  rule.Clear();
  rule.add_stage("fast");
  EXPECT_TRUE(Net<float>::StateMeetsRule(state, rule, "x"));
  rule.add_stage("slow");
  EXPECT_FALSE(Net<float>::StateMeetsRule(state, rule, "x"));
  rule.Clear();
  rule.add_not_stage("fast");
  EXPECT_FALSE(Net<float>::StateMeetsRule(state, rule, "x"));
  rule.Clear();
  rule.set_phase(TEST);
  EXPECT_FALSE(Net<float>::StateMeetsRule(state, rule, "x"));
}

TEST(NetTest, ForwardFromToMatchesForward) {
  NetParameter p = ParseNet(kTinyNet);
  p.mutable_state()->set_phase(TRAIN);
  p.mutable_layer(0)->mutable_dummy_data_param()->mutable_data_filler(0)
      ->set_type("constant");
  Net<float> net(p);
  float full;
  net.Forward(&full);
  float part = net.ForwardFromTo(0, 2) + net.ForwardFrom(3);
  EXPECT_FLOAT_EQ(full, part);
}

TEST(NetTest, SplitSumsGradients) {
  // y = ip(x) used twice in two Euclidean losses; d/dy must be the sum.
  const char* text = R"(
force_backward: true
layer { name: "in" type: "Input" top: "x" top: "t1" top: "t2"
  input_param { shape { dim: 2 dim: 3 } } }
layer { name: "ip" type: "InnerProduct" bottom: "x" top: "y"
  inner_product_param { num_output: 3 weight_filler { type: "gaussian" } } }
layer { name: "l1" type: "EuclideanLoss" bottom: "y" bottom: "t1" top: "l1" }
layer { name: "l2" type: "EuclideanLoss" bottom: "y" bottom: "t2" top: "l2" }
)";
  Net<double> net(ParseNet(text));
  for (const char* n : {"x", "t1", "t2"}) {
    Blob<double>& b = *net.blob_by_name(n);
    for (int i = 0; i < b.count(); ++i) b.mutable_cpu_data()[i] = 0.1 * i - 0.2;
  }
  net.blob_by_name("t2")->mutable_cpu_data()[0] = 5;
  double loss;
  net.Forward(&loss);
  net.Backward();
  const Blob<double>& y = *net.blob_by_name("y");
  const Blob<double>& t1 = *net.blob_by_name("t1");
  const Blob<double>& t2 = *net.blob_by_name("t2");
  for (int i = 0; i < y.count(); ++i) {
    const double expected = (y.cpu_data()[i] - t1.cpu_data()[i]) / 2 +
                            (y.cpu_data()[i] - t2.cpu_data()[i]) / 2;
    EXPECT_NEAR(y.cpu_diff()[i], expected, 1e-12);
  }
}

TEST(NetTest, LegacyInputFieldsAreUpgraded) {
  const char* text = R"(
input: "data" input_dim: 1 input_dim: 2 input_dim: 3 input_dim: 4
layer { name: "r" type: "ReLU" bottom: "data" top: "r" }
)";
  NetParameter p = ParseNet(text);
  UpgradeNetAsNeeded("legacy", &p);
  Net<float> net(p);
  EXPECT_EQ(net.blob_by_name("data")->shape_string(), "1 2 3 4 (24)");
  EXPECT_EQ(net.num_inputs(), 1);
}

// --- Errors a user causes get a clear message. ---

std::string ErrorOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(NetErrorsTest, UnknownLayerTypeListsKnownTypes) {
  std::string msg = ErrorOf([] {
    Net<float> net(ParseNet("layer { name: \"x\" type: \"Bogus\" top: \"t\" }"));
  });
  EXPECT_NE(msg.find("Bogus"), std::string::npos) << msg;
  EXPECT_NE(msg.find("InnerProduct"), std::string::npos) << msg;
  EXPECT_NE(msg.find("Convolution"), std::string::npos) << msg;
}

TEST(NetErrorsTest, UnknownBottomNamesBlobAndLayer) {
  std::string msg = ErrorOf([] {
    Net<float> net(ParseNet(
        "layer { name: \"r\" type: \"ReLU\" bottom: \"nowhere\" top: \"t\" }"));
  });
  EXPECT_NE(msg.find("nowhere"), std::string::npos) << msg;
  EXPECT_NE(msg.find("'r'"), std::string::npos) << msg;
}

TEST(NetErrorsTest, MismatchedShapesNameLayerAndShapes) {
  const char* text = R"(
layer { name: "in" type: "Input" top: "a" top: "b"
  input_param { shape { dim: 2 dim: 3 } shape { dim: 2 dim: 4 } } }
layer { name: "sum" type: "Eltwise" bottom: "a" bottom: "b" top: "c" }
)";
  std::string msg = ErrorOf([&] { Net<float> net(ParseNet(text)); });
  EXPECT_NE(msg.find("sum"), std::string::npos) << msg;
  EXPECT_NE(msg.find("2 3"), std::string::npos) << msg;
  EXPECT_NE(msg.find("2 4"), std::string::npos) << msg;
}

TEST(NetErrorsTest, MalformedPrototxtGivesFileLineColumn) {
  TempDir dir;
  const std::string path = dir.file("broken.prototxt");
  std::ofstream(path) << "name: \"x\"\nlayer {\n  name: \"a\"\n  tpye: \"ReLU\"\n}\n";
  std::string msg =
      ErrorOf([&] { Net<float> net(path, TRAIN); });
  EXPECT_NE(msg.find(path + ":4:"), std::string::npos) << msg;
  EXPECT_NE(msg.find("tpye"), std::string::npos) << msg;
}

TEST(NetErrorsTest, MissingPrototxtNamesFile) {
  std::string msg =
      ErrorOf([] { Net<float> net("/nonexistent/net.prototxt", TRAIN); });
  EXPECT_NE(msg.find("/nonexistent/net.prototxt"), std::string::npos) << msg;
}

TEST(NetErrorsTest, TruncatedOrForeignCaffemodel) {
  TempDir dir;
  NetParameter p = ParseNet(kTinyNet);
  p.mutable_state()->set_phase(TRAIN);
  Net<float> net(p);
  NetParameter weights;
  net.ToProto(&weights);
  std::string bytes;
  weights.SerializeToString(&bytes);
  const std::string truncated = dir.file("truncated.caffemodel");
  std::ofstream(truncated, std::ios::binary)
      .write(bytes.data(), bytes.size() / 2);
  std::string msg = ErrorOf([&] { net.CopyTrainedLayersFrom(truncated); });
  EXPECT_NE(msg.find(truncated), std::string::npos) << msg;
  const std::string foreign = dir.file("foreign.caffemodel");
  std::ofstream(foreign) << "this is a text file, not a model\n";
  msg = ErrorOf([&] { net.CopyTrainedLayersFrom(foreign); });
  EXPECT_NE(msg.find(foreign), std::string::npos) << msg;
  // A model whose shapes do not fit names the layer and both shapes.
  NetParameter other = ParseNet(kTinyNet);
  other.mutable_state()->set_phase(TRAIN);
  other.mutable_layer(1)->mutable_inner_product_param()->set_num_output(6);
  Net<float> other_net(other);
  NetParameter other_weights;
  other_net.ToProto(&other_weights);
  const std::string mismatched = dir.file("mismatched.caffemodel");
  WriteProtoToBinaryFile(other_weights, mismatched);
  msg = ErrorOf([&] { net.CopyTrainedLayersFrom(mismatched); });
  EXPECT_NE(msg.find("ip1"), std::string::npos) << msg;
  EXPECT_NE(msg.find("6 3"), std::string::npos) << msg;
}

}  // namespace
}  // namespace caffe
