// How the GPU's channel sums share a channel (util/elementwise.hpp), in
// the parts that are host code too:
//  * ChannelTermWalk: each thread steps its term position (n, r) along by
//    the stride of its block, or of its cluster of blocks, instead of
//    dividing at every term; its positions are checked against the
//    divisions it replaces, for strides below, at and above the plane
//    size and for every first term a thread of one to eight blocks has.
//  * ChannelBlocksByShape: the blocks per channel chosen for a device.
#include <gtest/gtest.h>

#include "caffe/util/channel_sums.hpp"

namespace caffe {
namespace {

// Walks from `first` by `stride` below outer * inner and returns how many
// terms it visited; every offset is checked against k / inner, k % inner.
long CheckWalk(long first, long stride, int outer, int channels, int inner,
               long d) {
  const long count = static_cast<long>(outer) * inner;
  ChannelTermWalk walk(first, stride, inner);
  long visited = 0;
  for (long k = first; k < count; k += stride) {
    const long expected = (k / inner * channels + d) * inner + k % inner;
    EXPECT_EQ(walk.Offset(d, channels), expected)
        << "term " << k << " of first " << first << ", stride " << stride
        << ", inner " << inner;
    if (walk.Offset(d, channels) != expected) return -1;
    walk.Step();
    ++visited;
  }
  return visited;
}

TEST(ChannelTermWalkTest, VisitsEveryTermOnceAtItsOffset) {
  const int inners[] = {1, 3, 7, 49, 255, 256, 257, 784, 3136};
  const int outers[] = {1, 2, 5};
  for (int blocks = 1; blocks <= kMaxChannelBlocks; ++blocks) {
    const long stride = static_cast<long>(blocks) * kChannelThreads;
    for (int inner : inners) {
      for (int outer : outers) {
        const long count = static_cast<long>(outer) * inner;
        long visited = 0;
        // Every thread of every block: together they visit each term once.
        for (long first = 0; first < stride; ++first) {
          const long v = CheckWalk(first, stride, outer, 4, inner, 2);
          ASSERT_GE(v, 0);
          visited += v;
        }
        EXPECT_EQ(visited, count) << "blocks " << blocks << ", inner "
                                  << inner << ", outer " << outer;
      }
    }
  }
}

// Planes of 2^30 elements in 3 channels: offsets past 2^32 stay exact.
TEST(ChannelTermWalkTest, OffsetsPast2To32) {
  const int inner = 1 << 30;
  ChannelTermWalk walk(kChannelThreads - 1, 2L * inner + 5, inner);
  EXPECT_EQ(walk.Offset(2, 3), 2L * inner + kChannelThreads - 1);
  walk.Step();
  // term 2 * inner + 260: n = 2, r = 260.
  EXPECT_EQ(walk.Offset(2, 3), (2L * 3 + 2) * inner + 260);
}

// ResNet-50's BatchNorm layers on an H200 (132 SMs) at batch 64, and at
// the batch of 2 the GPU zoo tests train.
TEST(ChannelBlocksByShapeTest, FillsTheDeviceOnceWithinBounds) {
  const long sms = 132;
  EXPECT_EQ(ChannelBlocksByShape(sms, 64, 64L * 56 * 56), 5);    // res2
  EXPECT_EQ(ChannelBlocksByShape(sms, 256, 64L * 56 * 56), 2);   // res2
  EXPECT_EQ(ChannelBlocksByShape(sms, 128, 64L * 28 * 28), 3);   // res3
  EXPECT_EQ(ChannelBlocksByShape(sms, 1024, 64L * 14 * 14), 1);  // res4
  EXPECT_EQ(ChannelBlocksByShape(sms, 2048, 64L * 7 * 7), 1);    // res5
  EXPECT_EQ(ChannelBlocksByShape(sms, 64, 2L * 56 * 56), 3);  // by terms
  EXPECT_EQ(ChannelBlocksByShape(sms, 256, 2L * 56 * 56), 2);
  // At most 8, at least 1; one block per 2,048 terms at most.
  EXPECT_EQ(ChannelBlocksByShape(sms, 1, 1L << 30), kMaxChannelBlocks);
  EXPECT_EQ(ChannelBlocksByShape(sms, 3, 4L * 64 * 64), 8);
  EXPECT_EQ(ChannelBlocksByShape(sms, 3, 2047), 1);
  EXPECT_EQ(ChannelBlocksByShape(sms, 3, 3 * 2048 + 5), 3);
  EXPECT_EQ(ChannelBlocksByShape(sms, 100000, 1L << 20), 1);
}

}  // namespace
}  // namespace caffe
