// The net enforces each layer's memory contract (layer.hpp) and runs its
// iteration as steps with hooks (step_hook.hpp):
//  * an in-place top on a layer whose contract forbids it is a caffe::Error
//    naming the layer and the blob;
//  * a layer whose top views its bottom without declaring it is a bug the
//    graph builder reports as InternalError naming the layer;
//  * hooks see every step, in the plan's order, before and after, and
//    every layer's backward; the memory plan is one of them.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "caffe/layer.hpp"
#include "caffe/layer_factory.hpp"
#include "caffe/net.hpp"
#include "caffe/step_hook.hpp"
#include "caffe/util/io.hpp"

namespace caffe {

// Shares its bottom's data as its top without declaring it.
template <typename Dtype>
class UndeclaredViewLayer : public Layer<Dtype> {
 public:
  explicit UndeclaredViewLayer(const LayerParameter& p) : Layer<Dtype>(p) {}
  const char* type() const override { return "UndeclaredView"; }
  void Reshape(const vector<Blob<Dtype>*>& bottom,
               const vector<Blob<Dtype>*>& top) override {
    top[0]->ReshapeLike(*bottom[0]);
    top[0]->ShareData(*bottom[0]);
  }

 protected:
  void Forward_cpu(const vector<Blob<Dtype>*>&,
                   const vector<Blob<Dtype>*>&) override {}
  void Backward_cpu(const vector<Blob<Dtype>*>&, const vector<bool>&,
                    const vector<Blob<Dtype>*>&) override {}
};
REGISTER_LAYER_CLASS(UndeclaredView);

namespace {

const char* kHead = R"(
name: "contracts"
layer { name: "x" type: "Input" top: "x"
        input_param { shape { dim: 2 dim: 3 } } }
layer { name: "fc" type: "InnerProduct" bottom: "x" top: "fc"
        inner_product_param { num_output: 4
          weight_filler { type: "gaussian" std: 0.1 } } }
)";

NetParameter Parse(const std::string& rest) {
  NetParameter param;
  ReadProtoFromTextString(std::string(kHead) + rest, "contracts", &param);
  param.mutable_state()->set_phase(TRAIN);
  return param;
}

TEST(NetContractsTest, InPlaceOnALayerThatForbidsItIsAUserError) {
  // Log's backward reads its input: in place it would read its output.
  const NetParameter param = Parse(
      "layer { name: \"norm\" type: \"Log\" bottom: \"fc\" top: \"fc\" }");
  try {
    Net<float> net(param);
    FAIL() << "in-place Log was accepted";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("layer 'norm'"), std::string::npos) << what;
    EXPECT_NE(what.find("cannot run in place"), std::string::npos) << what;
    EXPECT_NE(what.find("'fc'"), std::string::npos) << what;
  }
  // Allowed in place (ReLU) builds.
  EXPECT_NO_THROW(Net<float>(Parse(
      "layer { name: \"r\" type: \"ReLU\" bottom: \"fc\" top: \"fc\" }")));
}

TEST(NetContractsTest, AnUndeclaredViewIsAnInternalError) {
  NetParameter param = Parse(
      "layer { name: \"v\" type: \"UndeclaredView\" bottom: \"fc\" "
      "top: \"v\" }\n"
      "layer { name: \"loss\" type: \"Reduction\" bottom: \"v\" "
      "top: \"loss\" loss_weight: 1 }\n"
      "mem_param { optimize_train: true }");
  try {
    Net<float> net(param);
    FAIL() << "an undeclared view was planned";
  } catch (const Error& e) {
    FAIL() << "raised as a user error: " << e.what();
  } catch (const InternalError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("layer 'v'"), std::string::npos) << what;
    EXPECT_NE(what.find("top_views_bottom"), std::string::npos) << what;
  }
}

TEST(NetContractsTest, GpuModeIsRefusedWithoutAGpuBackEnd) {
  // Layers fall back to CPU code only as a planned step of a GPU build;
  // this build has none, so the mode cannot be chosen at all.
  EXPECT_THROW(Caffe::set_mode(Caffe::GPU), Error);
  EXPECT_EQ(Caffe::mode(), Caffe::CPU);
}

// Records what the net calls.
class Recorder : public StepHook {
 public:
  void BeforeStep(int step) override { log.push_back("+" + std::to_string(step)); }
  void AfterStep(int step) override { log.push_back("-" + std::to_string(step)); }
  void AfterBackward(int layer) override {
    log.push_back("b" + std::to_string(layer));
  }
  std::vector<std::string> log;
};

const char* kTail =
    "layer { name: \"r\" type: \"ReLU\" bottom: \"fc\" top: \"fc\" }\n"
    "layer { name: \"loss\" type: \"Reduction\" bottom: \"fc\" "
    "top: \"loss\" loss_weight: 1 }\n";

TEST(NetContractsTest, HooksSeeEveryStepInOrder) {
  for (bool optimized : {false, true}) {
    Net<float> net(Parse(std::string(kTail) +
                         (optimized ? "mem_param { optimize_train: true }"
                                    : "")));
    EXPECT_EQ(net.memory() != nullptr, optimized);
    Recorder recorder;
    net.AddStepHook(&recorder);
    net.ForwardBackward();
    // 4 layers: forward steps 0-3; backward of layer i is step 7 - i; the
    // input layer needs no backward.
    const std::vector<std::string> expected = {
        "+0", "-0", "+1", "-1", "+2", "-2", "+3", "-3",
        "+4", "-4", "b3", "+5", "-5", "b2", "+6", "-6", "b1"};
    EXPECT_EQ(recorder.log, expected) << "optimized " << optimized;
    net.RemoveStepHook(&recorder);
    recorder.log.clear();
    net.ForwardBackward();
    EXPECT_TRUE(recorder.log.empty());
    if (optimized) {
      EXPECT_THROW(net.RemoveStepHook(net.mutable_memory()), Error);
    }
  }
}

}  // namespace
}  // namespace caffe
