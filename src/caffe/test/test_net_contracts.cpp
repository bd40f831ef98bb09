// The net enforces each layer's memory contract (layer.hpp) and runs its
// iteration as steps with hooks (step_hook.hpp):
//  * an in-place top on a layer whose contract forbids it is a caffe::Error
//    naming the layer and the blob;
//  * a layer whose top views its bottom without declaring it is a bug the
//    graph builder reports as InternalError naming the layer;
//  * hooks see every step, in the plan's order, before and after; the
//    memory plan is one of them;
//  * callbacks (Net::Callback) run around every layer's forward and
//    backward, skipped backwards included, while the layer's memory is
//    bound.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "caffe/layer.hpp"
#include "caffe/layer_factory.hpp"
#include "caffe/net.hpp"
#include "caffe/step_hook.hpp"
#include "caffe/util/io.hpp"
#include "caffe/util/math_functions.hpp"

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

TEST(NetContractsTest, GpuModeIsRefusedWithoutAGpu) {
  // Without a CUDA build or a usable device the mode cannot be chosen at
  // all (layers would otherwise fall back to CPU code silently); the
  // error says why.
  std::string why;
  if (Caffe::GpuCount(&why) > 0) {
    Caffe::set_mode(Caffe::GPU);
    EXPECT_EQ(Caffe::mode(), Caffe::GPU);
    Caffe::set_mode(Caffe::CPU);
    return;
  }
  EXPECT_FALSE(why.empty());
  try {
    Caffe::set_mode(Caffe::GPU);
    ADD_FAILURE() << "GPU mode accepted without a GPU";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(why), std::string::npos) << e.what();
  }
  EXPECT_EQ(Caffe::mode(), Caffe::CPU);
}

// Records what the net calls.
class Recorder : public StepHook {
 public:
  void BeforeStep(int step) override { log.push_back("+" + std::to_string(step)); }
  void AfterStep(int step) override { log.push_back("-" + std::to_string(step)); }
  std::vector<std::string> log;
};

// Logs "<tag><layer>" into a shared log.
class TagCallback : public Net<float>::Callback {
 public:
  TagCallback(const std::string& tag, std::vector<std::string>* log)
      : tag_(tag), log_(log) {}
  void run(int layer) override { log_->push_back(tag_ + std::to_string(layer)); }

 private:
  std::string tag_;
  std::vector<std::string>* log_;
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
        "+4", "-4", "+5", "-5", "+6", "-6"};
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

TEST(NetContractsTest, CallbacksRunAroundEveryLayerInsideItsStep) {
  for (bool optimized : {false, true}) {
    Net<float> net(Parse(std::string(kTail) +
                         (optimized ? "mem_param { optimize_train: true }"
                                    : "")));
    Recorder recorder;  // shares its log with the callbacks
    net.AddStepHook(&recorder);
    TagCallback bf("bf", &recorder.log), af("af", &recorder.log);
    TagCallback bb("bb", &recorder.log), ab("ab", &recorder.log);
    net.add_before_forward(&bf);
    net.add_after_forward(&af);
    net.add_before_backward(&bb);
    net.add_after_backward(&ab);
    net.ForwardBackward();
    // Inside each step; the input layer's backward is skipped (no step)
    // but its callbacks still run, as in Caffe.
    const std::vector<std::string> expected = {
        "+0", "bf0", "af0", "-0", "+1", "bf1", "af1", "-1",
        "+2", "bf2", "af2", "-2", "+3", "bf3", "af3", "-3",
        "+4", "bb3", "ab3", "-4", "+5", "bb2", "ab2", "-5",
        "+6", "bb1", "ab1", "-6", "bb0", "ab0"};
    EXPECT_EQ(recorder.log, expected) << "optimized " << optimized;
    net.RemoveStepHook(&recorder);
    net.RemoveCallback(&bf);
    net.RemoveCallback(&ab);
    recorder.log.clear();
    net.Forward();
    EXPECT_EQ(recorder.log, (std::vector<std::string>{"af0", "af1", "af2",
                                                        "af3"}));
  }
}

// Reads the sum of the layer's first top after its forward.
class TopSum : public Net<float>::Callback {
 public:
  explicit TopSum(Net<float>* net) : net_(net) {}
  void run(int layer) override {
    const Blob<float>* top = net_->top_vecs()[layer][0];
    sums.push_back(caffe_cpu_asum(top->count(), top->cpu_data()));
  }
  std::vector<float> sums;

 private:
  Net<float>* net_;
};

TEST(NetContractsTest, CallbacksReadTopsTheMemoryPlanReusesAndNetsOwnThem) {
  // Under mem_param tops share memory with later blobs; an after_forward
  // callback reads each while its layer's step holds it, and sees what an
  // unoptimized net computes.
  std::vector<float> sums[2];
  for (bool optimized : {false, true}) {
    Caffe::set_random_seed(1701);
    Net<float> net(Parse(std::string(kTail) +
                         "layer { name: \"tail\" type: \"Power\" "
                         "bottom: \"x\" top: \"y\" }\n" +
                         (optimized ? "mem_param { optimize_train: true }"
                                    : "")));
    caffe_set(net.blob_by_name("x")->count(), 0.5f,
              net.blob_by_name("x")->mutable_cpu_data());
    auto reader = std::make_shared<TopSum>(&net);
    net.add_after_forward(reader);  // owned by the net from here
    net.Forward();
    sums[optimized] = reader->sums;
    EXPECT_EQ(reader.use_count(), 2);
  }
  EXPECT_EQ(sums[0], sums[1]);
  // x, its split, fc, ReLU, the loss and the tail layer.
  ASSERT_EQ(sums[0].size(), 6u);
  EXPECT_GT(sums[0][2], 0.0f);
}

}  // namespace
}  // namespace caffe
