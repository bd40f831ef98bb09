// A blob just over 2^31 elements (8 GiB of float) through Convolution,
// ReLU, Pooling and a mem_param plan, on the CPU (issue 13, item 5); the
// net and its plain-loop values are in caffe/test/large_blob_net.hpp.
// About 15 GiB: this binary's tests run alone (ctest RUN_SERIAL) and skip,
// saying so, where less is free.
#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <string>

#include "caffe/caffe.hpp"
#include "caffe/mem/net_memory.hpp"
#include "caffe/test/large_blob_net.hpp"

namespace caffe {
namespace {

using namespace large_blob;  // NOLINT(build/namespaces)

int64_t AvailableBytes() {
  std::ifstream meminfo("/proc/meminfo");
  std::string key;
  int64_t kb = 0;
  std::string unit;
  while (meminfo >> key >> kb >> unit)
    if (key == "MemAvailable:") return kb * 1024;
  return 0;
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
  ASSERT_EQ(int64_t{kNum} * kSide * kSide, net.blob_by_name("data")->count64());
  FillInput(net.blob_by_name("data").get());
  net.Forward();
  for (int n : {0, kNum / 2, kNum - 2, kNum - 1}) {
    std::string first;
    EXPECT_EQ(0, Mismatches(net, n, &first)) << "image " << n << ": " << first;
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
