// Element ops run ahead (util/elementwise.hpp): the order a GPU runs them
// in, run here on the CPU.  ForEachGpu runs an element body with Load and
// Store as RunElementsAhead(body, thread, n, threads), and a plane body's
// element ops run in a warp as RunElementsAhead(ops, off + lane, off + n,
// 32): groups of kLoadAhead indices are loaded before any is stored.
// Each body here is run that way for every lane (in lane order, and in
// reverse: threads run in any order) and must leave the bits of its plain
// operator() loop, in place too: a store lands only on an index whose
// values its group has already loaded.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <vector>

#include "../fused_sum_relu_compute.hpp"
#include "../layers/batch_norm_compute.hpp"
#include "../layers/relu_kernels.hpp"
#include "caffe/util/elementwise.hpp"

namespace caffe {
namespace {

std::vector<float> Random(size_t n, unsigned seed) {
  std::mt19937 gen(seed);
  std::normal_distribution<float> normal(0.f, 1.f);
  std::vector<float> v(n);
  for (float& x : v) x = normal(gen);
  return v;
}

void ExpectSameBits(const std::vector<float>& a, const std::vector<float>& b,
                    const char* what) {
  ASSERT_EQ(a.size(), b.size()) << what;
  EXPECT_EQ(0, std::memcmp(a.data(), b.data(), a.size() * sizeof(float)))
      << what;
}

// Runs `ops` over [begin, end) the way `threads` GPU threads would, each
// thread's share in load-ahead groups; lanes in order or reversed.
template <typename Ops>
void RunAsThreads(const Ops& ops, long begin, long end, int threads,
                  bool reversed) {
  for (int k = 0; k < threads; ++k) {
    const int t = reversed ? threads - 1 - k : k;
    RunElementsAhead(ops, begin + t, end, threads);
  }
}

// Element sizes that leave partial groups and idle lanes.
const long kSizes[] = {1, 31, 127, 128, 129, 1000, 4099};

// A body of one or two inputs and in-place outputs, built over buffers
// `make(buffers)`; the plain loop and each ahead order must agree on every
// buffer afterwards.
template <typename Make>
void ExpectAheadEqualsPlain(const char* what, int buffers, const Make& make) {
  for (long n : kSizes) {
    for (int threads : {1, 32, 256}) {
      for (bool reversed : {false, true}) {
        std::vector<std::vector<float> > plain, ahead;
        for (int b = 0; b < buffers; ++b) {
          plain.push_back(Random(n, 7 + b));
          ahead.push_back(plain.back());
        }
        const auto plain_body = make(&plain);
        for (long i = 0; i < n; ++i) plain_body(i);
        RunAsThreads(make(&ahead), 0, n, threads, reversed);
        for (int b = 0; b < buffers; ++b)
          ExpectSameBits(plain[b], ahead[b], what);
      }
    }
  }
}

using Buffers = std::vector<std::vector<float> >;

TEST(ElementsAheadTest, ElementBodiesInPlaceGiveThePlainLoopsBits) {
  // ReLU forward in place, leaky.
  ExpectAheadEqualsPlain("ReLUForward", 1, [](Buffers* b) {
    return ReLUForward<float>{(*b)[0].data(), (*b)[0].data(), 0.25f};
  });
  // ReLU backward in place on the gradient.
  ExpectAheadEqualsPlain("ReLUBackward", 2, [](Buffers* b) {
    return ReLUBackward<float>{(*b)[0].data(), (*b)[1].data(),
                               (*b)[1].data(), 0.f};
  });
  // The sum over its first bottom (in place by plan).
  ExpectAheadEqualsPlain("ScaledSumOfTwo", 2, [](Buffers* b) {
    return ScaledSumOfTwo<float>{(*b)[0].data(), (*b)[1].data(), 0.5f, -1.5f,
                                 (*b)[0].data()};
  });
  ExpectAheadEqualsPlain("SumThenReLU", 3, [](Buffers* b) {
    return SumThenReLU<float>{(*b)[0].data(), (*b)[1].data(), 1.f, 1.f,
                              (*b)[2].data(), 0.f};
  });
  ExpectAheadEqualsPlain("ReLUThenSumBackward", 4, [](Buffers* b) {
    return ReLUThenSumBackward<float, 2>{(*b)[0].data(), (*b)[1].data(),
                                         0.f,           2.f,
                                         -1.f,          (*b)[2].data(),
                                         (*b)[3].data()};
  });
}

// A plane body's element ops over one plane (offset 3, 1000 elements), as
// a warp runs them, against the plane body on the CPU.
template <typename Plane, typename MakeOps>
void ExpectPlaneOpsEqualBody(const char* what, int buffers,
                             const Plane& plane_of, const MakeOps& ops_of) {
  const long off = 3;
  const int n = 1000;
  for (bool reversed : {false, true}) {
    Buffers plain, ahead;
    for (int b = 0; b < buffers; ++b) {
      plain.push_back(Random(off + n, 11 + b));
      ahead.push_back(plain.back());
    }
    plane_of(&plain, off, n);
    RunAsThreads(ops_of(&ahead), off, off + n, 32, reversed);
    for (int b = 0; b < buffers; ++b) ExpectSameBits(plain[b], ahead[b], what);
  }
}

TEST(ElementsAheadTest, PlaneElementOpsGiveThePlaneBodysBits) {
  const float mean = 0.3f, sd = 1.7f;
  // BatchNorm's normalization in place, keeping a copy.
  ExpectPlaneOpsEqualBody(
      "BatchNormNormalize", 2,
      [&](Buffers* b, long off, int n) {
        for (int i = 0; i < n; ++i) {
          const float v = ((*b)[0][off + i] - mean) * (1.f / sd);
          (*b)[0][off + i] = v;
          (*b)[1][off + i] = v;
        }
      },
      [&](Buffers* b) {
        return BatchNormNormalize<float>::Elements{
            (*b)[0].data(), (*b)[0].data(), (*b)[1].data(), mean, 1.f / sd};
      });
  // BatchNorm's gradient with batch statistics, in place on dy.
  ExpectPlaneOpsEqualBody(
      "BatchNormBackward", 2,
      [&](Buffers* b, long off, int n) {
        for (int i = 0; i < n; ++i) {
          const long k = off + i;
          (*b)[0][k] = ((*b)[0][k] - 0.1f - 0.2f * (*b)[1][k]) * (1.f / sd);
        }
      },
      [&](Buffers* b) {
        return BatchNormBackward<float>::BatchElements<CopiedValues<float> >{
            (*b)[0].data(), {(*b)[1].data()}, (*b)[0].data(), 0.1f, 0.2f,
            1.f / sd};
      });
  // The same with y normalized again from the input in the second buffer.
  ExpectPlaneOpsEqualBody(
      "BatchNormBackward from the input", 2,
      [&](Buffers* b, long off, int n) {
        for (int i = 0; i < n; ++i) {
          const long k = off + i;
          const float y = ((*b)[1][k] - mean) * (1.f / sd);
          (*b)[0][k] = ((*b)[0][k] - 0.1f - 0.2f * y) * (1.f / sd);
        }
      },
      [&](Buffers* b) {
        return BatchNormBackward<float>::BatchElements<
            NormalizedValues<float> >{(*b)[0].data(),
                                      {(*b)[1].data(), mean, 1.f / sd},
                                      (*b)[0].data(), 0.1f, 0.2f, 1.f / sd};
      });
  // The Scale's product in place.
  ExpectPlaneOpsEqualBody(
      "ChannelPlanes", 1,
      [&](Buffers* b, long off, int n) {
        for (int i = 0; i < n; ++i) (*b)[0][off + i] *= 1.25f;
      },
      [&](Buffers* b) {
        return ChannelPlanes<float, MulOp<float> >::Elements{
            (*b)[0].data(), (*b)[0].data(), 1.25f, MulOp<float>()};
      });
}

}  // namespace
}  // namespace caffe
