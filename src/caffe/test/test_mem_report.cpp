// The peak breakdown of `caffe mem` (util/mem_report.hpp): the bytes live
// at the plan's peak, by what they hold, on a net small enough to count
// by hand.
#include <gtest/gtest.h>

#include <string>

#include "caffe/net.hpp"
#include "caffe/util/io.hpp"
#include "caffe/mem/planner.hpp"
#include "caffe/util/mem_report.hpp"

namespace caffe {
namespace {

// x (4 x 64) -> fc1 (256) -> ReLU in place -> split -> a, b (512 each)
// -> Eltwise SUM -> loss.  Floats: x 1024 bytes, h 4096, a, b, s 8192.
const char* kNet = R"(
name: "peak"
layer { name: "x" type: "DummyData" top: "x"
  dummy_data_param { shape { dim: 4 dim: 64 } data_filler { type: "gaussian" } } }
layer { name: "fc1" type: "InnerProduct" bottom: "x" top: "h"
  inner_product_param { num_output: 256 weight_filler { type: "gaussian" std: 0.1 } } }
layer { name: "relu" type: "ReLU" bottom: "h" top: "h" }
layer { name: "a" type: "InnerProduct" bottom: "h" top: "a"
  inner_product_param { num_output: 512 weight_filler { type: "gaussian" std: 0.1 } } }
layer { name: "b" type: "InnerProduct" bottom: "h" top: "b"
  inner_product_param { num_output: 512 weight_filler { type: "gaussian" std: 0.1 } } }
layer { name: "sum" type: "Eltwise" bottom: "a" bottom: "b" top: "s" }
layer { name: "loss" type: "Reduction" bottom: "s" top: "loss" loss_weight: 1 }
)";

size_t Share(const MemoryReport& r, const std::string& kind) {
  for (const PeakShare& s : r.peak_breakdown)
    if (s.kind.find(kind) == 0) return s.bytes;
  ADD_FAILURE() << "no share " << kind;
  return 0;
}

TEST(MemReportTest, PeakBytesAreSplitByWhatTheyHold) {
  NetParameter param;
  ReadProtoFromTextString(kNet, "peak", &param);
  const MemoryReport r = BuildMemoryReport(param, TRAIN, 2);
  ASSERT_GE(r.peak_step, 0);
  // sum's top s lies over a (in place by plan: sum reads a's data last),
  // so sum's forward step holds s, b, x and h, as b's does.
  EXPECT_EQ(r.step_labels[6], "sum forward");
  EXPECT_EQ(r.live_bytes[6], 2u * 8192 + 4096 + 1024);
  EXPECT_EQ(r.live_bytes[5], r.live_bytes[6]);
  // The peak is b's backward: x and h kept for backward (fc1's and b's),
  // the loss's data in flight, the gradients of s (a's too: gradient
  // aliasing), h and the loss, and b's gradient, a copy of s's.
  EXPECT_EQ(r.step_labels[r.peak_step], "b backward");
  size_t total = 0;
  for (const PeakShare& s : r.peak_breakdown) total += s.bytes;
  EXPECT_EQ(total, r.live_bytes[r.peak_step]);
  EXPECT_EQ(Share(r, "forward values in flight"), 64u);
  EXPECT_EQ(Share(r, "forward values kept"), 4096u + 1024);
  EXPECT_EQ(Share(r, "gradients"), 8192u + 4096 + 64);
  EXPECT_EQ(Share(r, "gradient copies"), 8192u);
  EXPECT_EQ(r.batch, 4);
  // Sum's backward: a's diff is s's memory (gradient aliasing), b's a
  // copy, besides the loss and x and h: one 8192-byte copy less
  // than Caffe's layout.
  int sum_backward = -1;
  for (size_t i = 0; i < r.step_labels.size(); ++i)
    if (r.step_labels[i] == "sum backward") sum_backward = static_cast<int>(i);
  ASSERT_GE(sum_backward, 0);
  EXPECT_EQ(r.live_bytes[sum_backward],
            2u * 8192 + 2 * 64 + 4096 + 1024);  // loss data and diff
  const std::string text = FormatMemoryReport(r);
  EXPECT_NE(text.find("At the peak (step 10, b backward)"),
            std::string::npos) << text;
}

TEST(MemReportTest, ForwardOnlyPlansHoldNoGradients) {
  NetParameter param;
  ReadProtoFromTextString(kNet, "peak", &param);
  const MemoryReport r = BuildMemoryReport(param, TEST, 2);
  EXPECT_EQ(r.step_labels[r.peak_step], "b forward");
  EXPECT_EQ(Share(r, "gradients"), 0u);
  EXPECT_EQ(Share(r, "gradient copies"), 0u);
  EXPECT_EQ(Share(r, "forward values kept"), 0u);
  EXPECT_EQ(Share(r, "forward values in flight"), r.live_bytes[r.peak_step]);
}

TEST(MemReportTest, KeptMemoryAtThePeakIsNamedByLayerType) {
  // Conv -> BatchNorm (in place, so it keeps a copy for its backward) ->
  // ReLU -> loss: BatchNorm's kept memory is live when backward starts.
  // A 1x1 im2col convolution multiplies its input directly: no scratch.
  NetParameter param;
  ReadProtoFromTextString(R"(
name: "bn"
layer { name: "x" type: "DummyData" top: "x"
  dummy_data_param { shape { dim: 2 dim: 3 dim: 8 dim: 8 }
                     data_filler { type: "gaussian" } } }
layer { name: "conv" type: "Convolution" bottom: "x" top: "c"
  convolution_param { num_output: 4 kernel_size: 1 engine: CAFFE
                      weight_filler { type: "gaussian" std: 0.1 } } }
layer { name: "bn" type: "BatchNorm" bottom: "c" top: "c" }
layer { name: "relu" type: "ReLU" bottom: "c" top: "c" }
layer { name: "loss" type: "Reduction" bottom: "c" top: "loss"
        loss_weight: 1 }
)", "bn", &param);
  const MemoryReport r = BuildMemoryReport(param, TRAIN, 2);
  const size_t kept = Share(r, "layers' kept memory");
  ASSERT_GT(kept, 0u);
  size_t by_type = 0;
  for (const PeakShare& t : r.peak_kept_by_type) by_type += t.bytes;
  EXPECT_EQ(by_type, kept);
  ASSERT_FALSE(r.peak_kept_by_type.empty());
  EXPECT_EQ(r.peak_kept_by_type[0].kind, "BatchNorm");
  EXPECT_NE(FormatMemoryReport(r).find("    BatchNorm"), std::string::npos);
}


TEST(MemReportTest, ScratchAtThePeakIsItsOwnKind) {
  // A 3x3 im2col convolution's column buffer (27 x 64 floats per image)
  // outweighs this small net's activations: the peak is one of its steps.
  NetParameter param;
  ReadProtoFromTextString(R"(
name: "scratch"
layer { name: "x" type: "DummyData" top: "x"
  dummy_data_param { shape { dim: 1 dim: 3 dim: 8 dim: 8 }
                     data_filler { type: "gaussian" } } }
layer { name: "conv" type: "Convolution" bottom: "x" top: "c"
  convolution_param { num_output: 2 kernel_size: 3 pad: 1 engine: CAFFE
                      weight_filler { type: "gaussian" std: 0.1 } } }
layer { name: "loss" type: "Reduction" bottom: "c" top: "loss"
        loss_weight: 1 }
)", "scratch", &param);
  const MemoryReport r = BuildMemoryReport(param, TRAIN, 2);
  ASSERT_GE(r.peak_step, 0);
  EXPECT_EQ(r.step_labels[r.peak_step].find("conv"), 0u)
      << r.step_labels[r.peak_step];
  EXPECT_EQ(Share(r, "layers' scratch"), mem::AlignUp(27 * 64 * 4));
  size_t total = 0;
  for (const PeakShare& s : r.peak_breakdown) total += s.bytes;
  EXPECT_EQ(total, r.live_bytes[r.peak_step]);
  // The report names the largest workspace and the limit beside it.
  EXPECT_EQ(r.largest_scratch, mem::AlignUp(27 * 64 * 4));
  EXPECT_EQ(r.largest_scratch_layer, "conv");
  EXPECT_EQ(r.workspace_limit, size_t(64) << 20);
  EXPECT_NE(FormatMemoryReport(r).find(
                "layer workspaces: largest planned 0.01 MiB (conv); limit "
                "per library call 64.00 MiB (mem_param.workspace_limit_mb)"),
            std::string::npos)
      << FormatMemoryReport(r);
}

// mem_param.workspace_limit_mb reaches every layer before its setup (the
// cuDNN convolution keeps to it), with or without optimization, and a
// limit that is not a positive number is refused naming the net.
TEST(MemReportTest, WorkspaceLimitReachesTheLayersAndIsChecked) {
  NetParameter param;
  ReadProtoFromTextString(kNet, "peak", &param);
  param.mutable_state()->set_phase(TRAIN);
  {
    Net<float> net(param);
    for (const auto& layer : net.layers())
      EXPECT_EQ(layer->workspace_limit(), size_t(64) << 20);
  }
  param.mutable_mem_param()->set_optimize_train(false);
  param.mutable_mem_param()->set_workspace_limit_mb(8.5);
  {
    Net<float> net(param);
    for (const auto& layer : net.layers())
      EXPECT_EQ(layer->workspace_limit(), size_t(8.5 * 1048576));
    const MemoryReport r = BuildMemoryReport(param, TRAIN, 2);
    EXPECT_EQ(r.workspace_limit, size_t(8.5 * 1048576));
  }
  for (double bad : {0.0, -4.0}) {
    param.mutable_mem_param()->set_workspace_limit_mb(bad);
    try {
      Net<float> net(param);
      ADD_FAILURE() << bad << " accepted";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(
                    "mem_param.workspace_limit_mb of net 'peak' is"),
                std::string::npos)
          << e.what();
    }
  }
}

}  // namespace
}  // namespace caffe
