// The net whose blob passes 2^31 elements (caffe/test/large_blob_net.hpp)
// in GPU mode, unplanned and under mem_param (issue 13, item 5): ReLU,
// MAX pooling and the convolutions index past element 2^31 on the device,
// where cuDNN's convolution steps aside for im2col + cuBLAS one image at a
// time.  Outputs are compared bit for bit with plain-loop values (small
// integers: every sum is exact); so is, after a backward pass of the
// training form of the net, the gradient of its input.  Skips without a
// GPU, or with less free device memory than a test needs (20 GiB
// forward, 64 GiB with backward), saying which.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "caffe/caffe.hpp"
#include "caffe/test/gpu_test_util.hpp"
#include "caffe/test/large_blob_net.hpp"
#ifdef USE_CUDA
#include "caffe/util/cuda.hpp"
#endif

namespace caffe {
namespace {

using namespace large_blob;  // NOLINT(build/namespaces)

// Free device memory in GiB (0 in a CPU-only build, where the tests have
// skipped already).
size_t FreeDeviceGiB() {
  size_t free_bytes = 0;
#ifdef USE_CUDA
  size_t total_bytes = 0;
  CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
#endif
  return free_bytes >> 30;
}

// Runs the 513-image net in GPU mode, unplanned then planned, and checks
// the first, a middle and the last two images: the outputs after a
// forward pass, or with `train` the gradient of "data" after forward and
// backward.  Skips without a GPU or below `need_gib` of free memory.
void RunOnTheDevice(bool train, size_t need_gib) {
  SKIP_WITHOUT_GPU();
  if (FreeDeviceGiB() < need_gib)
    GTEST_SKIP() << "needs about " << need_gib << " GiB of free device "
                 << "memory, the GPU has " << FreeDeviceGiB() << " GiB free";
  ModeScope gpu(Caffe::GPU);
  for (bool planned : {false, true}) {
    Net<float> net(LargeNet(planned, train));
    ASSERT_GT(net.blob_by_name("wide")->count64(), int64_t{1} << 31);
    SetWeights(&net);
    FillInput(net.blob_by_name("data").get());
    if (train) {
      net.ForwardBackward();
    } else {
      net.Forward();
    }
    for (int n : {0, kNum / 2, kNum - 2, kNum - 1}) {
      std::string first;
      EXPECT_EQ(0, train ? DataGradientMismatches(net, n, &first)
                         : Mismatches(net, n, &first))
          << (planned ? "planned" : "unplanned") << ", image " << n << ": "
          << first;
    }
  }
}

TEST(GpuLargeBlobTest, PastTwoTo31ElementsOnTheDevice) {
  RunOnTheDevice(false, 20);
}

// Backward past 2^31 elements: the pooling's and the squeeze's gradients
// meet in the Split of "wide" (8 GiB of diff), go through ReLU in place
// and the chunked cuDNN convolution down to "data".
TEST(GpuLargeBlobTest, BackwardPastTwoTo31ElementsOnTheDevice) {
  RunOnTheDevice(true, 64);
}

}  // namespace
}  // namespace caffe
