// A blob just over 2^31 elements (8 GiB of float) through Convolution,
// ReLU, Pooling and a mem_param plan, on the CPU (issue 13, item 5).
//
// The net (TEST phase, forward only):
//   data (513 x 1 x 1024 x 1024) -> widen: 1x1 convolution to 4 channels
//   -> "wide", 513 x 4 x 1024 x 1024 = 2,151,677,952 elements, past 2^31
//   -> ReLU in place -> MAX pooling 2x2/2 -> mix: 1x1 convolution -> out
//   (ReLU, not in place); and squeeze: a 2x2/2 convolution of "wide".
// So "wide" is a top (widen), in place (ReLU) and a bottom (pool, squeeze),
// and the last images lie wholly beyond element 2^31.  Inputs and weights
// are small integers, so every sum is exact in float whatever order an
// engine adds in: the outputs are compared bit for bit with values computed
// here by plain loops, for the first, a middle and the last two images.
// Under mem_param "mix" takes memory "wide" held, so the planned run also
// proves the plan's 64-bit placements.  About 15 GiB: this binary's tests
// run alone (ctest RUN_SERIAL) and skip, saying so, where less is free.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

#include "caffe/caffe.hpp"
#include "caffe/mem/net_memory.hpp"
#include "caffe/util/io.hpp"

namespace caffe {
namespace {

const int kNum = 513, kSide = 1024, kHalf = kSide / 2;
const float kWidenW[4] = {1, -1, 2, -3}, kWidenB[4] = {0, 1, -2, 3};
const float kSqueezeBias = 0.5f;

float Input(int n, int h, int w) {
  return static_cast<float>((n * 131 + h * 7 + w * 3) % 23 - 11);
}
float Wide(int n, int c, int h, int w) {
  return std::max(0.0f, kWidenW[c] * Input(n, h, w) + kWidenB[c]);
}
float SqueezeWeight(int c, int kh, int kw) {
  return static_cast<float>((c + 2 * kh + kw) % 3 - 1);
}
float MixWeight(int o, int c) { return o == 0 ? 1.0f : (c % 2 ? -1.0f : 2.0f); }

int64_t AvailableBytes() {
  std::ifstream meminfo("/proc/meminfo");
  std::string key;
  int64_t kb = 0;
  std::string unit;
  while (meminfo >> key >> kb >> unit)
    if (key == "MemAvailable:") return kb * 1024;
  return 0;
}

NetParameter LargeNet(bool planned) {
  std::string text = R"(
name: "past_2_31"
layer { name: "data" type: "Input" top: "data"
  input_param { shape { dim: 513 dim: 1 dim: 1024 dim: 1024 } } }
layer { name: "widen" type: "Convolution" bottom: "data" top: "wide"
  convolution_param { num_output: 4 kernel_size: 1 } }
layer { name: "relu" type: "ReLU" bottom: "wide" top: "wide" }
layer { name: "pool" type: "Pooling" bottom: "wide" top: "pool"
  pooling_param { pool: MAX kernel_size: 2 stride: 2 } }
layer { name: "squeeze" type: "Convolution" bottom: "wide" top: "squeeze"
  convolution_param { num_output: 1 kernel_size: 2 stride: 2 } }
layer { name: "mix" type: "Convolution" bottom: "pool" top: "mix"
  convolution_param { num_output: 2 kernel_size: 1 bias_term: false } }
layer { name: "out_relu" type: "ReLU" bottom: "mix" top: "out" }
)";
  if (planned) text += "mem_param { optimize_test: true }\n";
  NetParameter param;
  ReadProtoFromTextString(text, "past_2_31", &param);
  param.mutable_state()->set_phase(TEST);
  return param;
}

void SetWeights(Net<float>* net) {
  auto widen = net->layer_by_name("widen");
  for (int c = 0; c < 4; ++c) {
    widen->blobs()[0]->mutable_cpu_data()[c] = kWidenW[c];
    widen->blobs()[1]->mutable_cpu_data()[c] = kWidenB[c];
  }
  auto squeeze = net->layer_by_name("squeeze");
  float* w = squeeze->blobs()[0]->mutable_cpu_data();  // 1 x 4 x 2 x 2
  for (int c = 0; c < 4; ++c)
    for (int kh = 0; kh < 2; ++kh)
      for (int kw = 0; kw < 2; ++kw)
        w[(c * 2 + kh) * 2 + kw] = SqueezeWeight(c, kh, kw);
  squeeze->blobs()[1]->mutable_cpu_data()[0] = kSqueezeBias;
  float* m = net->layer_by_name("mix")->blobs()[0]->mutable_cpu_data();
  for (int o = 0; o < 2; ++o)
    for (int c = 0; c < 4; ++c) m[o * 4 + c] = MixWeight(o, c);
}

void FillInput(Blob<float>* data) {
  ASSERT_EQ(int64_t{kNum} * kSide * kSide, data->count64());
  float* x = data->mutable_cpu_data();
  for (int n = 0; n < kNum; ++n)
    for (int h = 0; h < kSide; ++h) {
      float* row = x + data->offset(n, 0, h);
      for (int w = 0; w < kSide; ++w) row[w] = Input(n, h, w);
    }
}

// Compares image n of squeeze and out with the plain-loop values; returns
// the number of elements that differ and describes the first.
int64_t Mismatches(const Net<float>& net, int n, std::string* first) {
  const Blob<float>& squeeze = *net.blob_by_name("squeeze");
  const Blob<float>& out = *net.blob_by_name("out");
  const float* s = squeeze.cpu_data();
  const float* o = out.cpu_data();
  int64_t bad = 0;
  auto note = [&](const char* blob, int c, int i, int j, float got,
                  float want) {
    if (bad++ == 0)
      *first = std::string(blob) + " at (" + std::to_string(n) + ", " +
               std::to_string(c) + ", " + std::to_string(i) + ", " +
               std::to_string(j) + "): " + std::to_string(got) + " want " +
               std::to_string(want);
  };
  for (int i = 0; i < kHalf; ++i) {
    for (int j = 0; j < kHalf; ++j) {
      float sq = kSqueezeBias, pooled[4];
      for (int c = 0; c < 4; ++c) {
        pooled[c] = Wide(n, c, 2 * i, 2 * j);
        for (int kh = 0; kh < 2; ++kh)
          for (int kw = 0; kw < 2; ++kw) {
            const float v = Wide(n, c, 2 * i + kh, 2 * j + kw);
            sq += SqueezeWeight(c, kh, kw) * v;
            pooled[c] = std::max(pooled[c], v);
          }
      }
      const float got_sq = s[squeeze.offset(n, 0, i, j)];
      if (got_sq != sq) note("squeeze", 0, i, j, got_sq, sq);
      for (int k = 0; k < 2; ++k) {
        float mix = 0;
        for (int c = 0; c < 4; ++c) mix += MixWeight(k, c) * pooled[c];
        const float want = std::max(0.0f, mix);
        const float got = o[out.offset(n, k, i, j)];
        if (got != want) note("out", k, i, j, got, want);
      }
    }
  }
  return bad;
}

void RunPast2To31(bool planned) {
  const int64_t need = int64_t{16} << 30;
  if (AvailableBytes() < need) {
    GTEST_SKIP() << "needs about 16 GiB free, /proc/meminfo has "
                 << (AvailableBytes() >> 20) << " MiB available";
  }
  Caffe::set_mode(Caffe::CPU);
  Net<float> net(LargeNet(planned));
  const Blob<float>& wide = *net.blob_by_name("wide");
  ASSERT_GT(wide.count64(), int64_t{1} << 31);
  ASSERT_THROW((void)wide.count(), Error);
  SetWeights(&net);
  FillInput(net.blob_by_name("data").get());
  net.Forward();
  for (int n : {0, kNum / 2, kNum - 2, kNum - 1}) {
    std::string first;
    EXPECT_EQ(0, Mismatches(net, n, &first)) << "image " << n << ": "
                                             << first;
  }
  if (!planned) return;
  // The plan counted "wide" in 64 bits and put "mix" in memory "wide" had.
  ASSERT_TRUE(net.memory() != nullptr);
  const mem::Plan& plan = net.memory()->plan();
  const size_t wide_bytes = static_cast<size_t>(wide.count64()) * 4;
  const size_t mix_bytes =
      static_cast<size_t>(net.blob_by_name("mix")->count64()) * 4;
  EXPECT_GE(plan.shared_bytes, wide_bytes);
  EXPECT_LE(plan.total_bytes() + mix_bytes, plan.unshared_bytes)
      << "shared " << plan.shared_bytes << ", pinned " << plan.pinned_bytes
      << ", unshared " << plan.unshared_bytes;
}

TEST(LargeBlobTest, PastTwoTo31ElementsUnplanned) { RunPast2To31(false); }

TEST(LargeBlobTest, PastTwoTo31ElementsUnderAPlan) { RunPast2To31(true); }

}  // namespace
}  // namespace caffe
