// Blob counts over INT_MAX (issue 13, item 5), without touching memory:
// Blob allocates lazily, so a shape of 2^31 elements costs nothing until
// its data is read.  The 32-bit API (count(), count(a, b)) refuses such a
// count with an Error naming the shape; count64() and offset() are 64-bit;
// a net refuses a large blob at a layer whose contract does not say it
// counts in 64 bits, naming layer and blob.  The runs that do touch 8 GiB
// are in test/large (their own binary, run alone).
#include <gtest/gtest.h>

#include <climits>
#include <string>
#include <vector>

#include "caffe/caffe.hpp"
#include "caffe/test/large_blob_net.hpp"
#include "caffe/util/int_pieces.hpp"
#include "caffe/util/io.hpp"

namespace caffe {
namespace {

const int64_t kTwo31 = int64_t{1} << 31;

TEST(BlobCount64Test, CountsPastInt32) {
  Blob<float> blob(vector<int>{2, 1024, 1024, 1024});
  EXPECT_EQ(kTwo31, blob.count64());
  EXPECT_EQ(kTwo31 / 2, blob.count64(1));
  EXPECT_EQ(1 << 30, blob.count(1));
  EXPECT_EQ(kTwo31 - 1, blob.offset(1, 1023, 1023, 1023));
  EXPECT_EQ(int64_t{1} << 30, blob.offset(vector<int>{1}));
}

TEST(BlobCount64Test, Int32CountRefusesNamingTheShape) {
  Blob<float> blob(vector<int>{3, 1024, 1024, 1024});
  try {
    (void)blob.count();
    FAIL() << "count() returned for " << blob.count64() << " elements";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(std::string::npos, what.find("3 1024 1024 1024"))
        << what;
    EXPECT_NE(std::string::npos, what.find("INT_MAX")) << what;
  }
  EXPECT_EQ(3 * 1024, blob.count(0, 2));
  EXPECT_THROW((void)blob.count(0), Error);
}

TEST(BlobCount64Test, CountsThatOverflow64BitsAreRefused) {
  Blob<double> blob;
  EXPECT_THROW(blob.Reshape(vector<int>{INT_MAX, INT_MAX, INT_MAX}), Error);
}

TEST(BlobCount64Test, IntPiecesCoverTheRangeInOrder) {
  std::vector<std::pair<int64_t, int> > pieces;
  ForIntPieces(2 * kTwo31 + 5, [&](int64_t start, int n) {
    pieces.emplace_back(start, n);
  });
  ASSERT_EQ(3u, pieces.size());
  EXPECT_EQ(0, pieces[0].first);
  EXPECT_EQ(INT_MAX, pieces[0].second);
  EXPECT_EQ(int64_t{INT_MAX}, pieces[1].first);
  EXPECT_EQ(2 * int64_t{INT_MAX}, pieces[2].first);
  EXPECT_EQ(2 * kTwo31 + 5 - 2 * int64_t{INT_MAX}, pieces[2].second);
  pieces.clear();
  ForIntPieces(7, [&](int64_t start, int n) { pieces.emplace_back(start, n); });
  ASSERT_EQ(1u, pieces.size());
  EXPECT_EQ(7, pieces[0].second);
  EXPECT_EQ(std::vector<int>{5}, ShapeHolding(5));
  const std::vector<int> big = ShapeHolding(kTwo31 + 1);
  ASSERT_EQ(2u, big.size());
  EXPECT_GE(int64_t{big[0]} * big[1], kTwo31 + 1);
  EXPECT_LT(int64_t{big[0] - 1} * big[1], kTwo31 + 1);
}

// A layer type that counts in 32 bits (Sigmoid) refuses a 2^31-element
// bottom when the net is built, naming the layer and the blob; the layers
// a ResNet runs at full resolution (BatchNorm, Scale with its bias, ReLU)
// take it.  Nothing is allocated: the nets are only set up, in place, so
// the host-memory fit check sees one 8 GiB blob.
TEST(BlobCount64Test, ANetRefusesALargeBlobAtA32BitLayer) {
  const std::string text = R"(
name: "large"
layer { name: "data" type: "Input" top: "data"
  input_param { shape { dim: 2 dim: 4 dim: 16384 dim: 16384 } } }
layer { name: "bn" type: "BatchNorm" bottom: "data" top: "data" }
layer { name: "scale" type: "Scale" bottom: "data" top: "data"
  scale_param { bias_term: true } }
layer { name: "relu" type: "ReLU" bottom: "data" top: "data" }
layer { name: "squash" type: "Sigmoid" bottom: "data" top: "data" }
)";
  NetParameter param;
  ReadProtoFromTextString(text, "large net", &param);
  param.mutable_state()->set_phase(TEST);
  try {
    Net<float> net(param);
    FAIL() << "a 2^31-element blob reached Sigmoid";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(std::string::npos, what.find("layer 'squash'")) << what;
    EXPECT_NE(std::string::npos, what.find("bottom 'data'")) << what;
    EXPECT_NE(std::string::npos, what.find("INT_MAX")) << what;
  }
  // The same net up to the ReLU builds.
  param.mutable_layer()->RemoveLast();
  Net<float> net(param);
  EXPECT_EQ(kTwo31, net.blob_by_name("data")->count64());
}

// The plain-loop values the past-2^31 tests compare with (test/large on
// the CPU, test/gpu on the device), checked on a batch of 3 of the same
// net on the CPU, forward and, in its training form, backward to "data",
// unplanned and planned: a wrong reference would fail here, not only
// where the 8 GiB runs are.
TEST(BlobCount64Test, TheLargeNetsReferenceHoldsOnASmallBatch) {
  Caffe::set_mode(Caffe::CPU);
  for (bool planned : {false, true}) {
    for (bool train : {false, true}) {
      Net<float> net(large_blob::LargeNet(planned, train, 3));
      large_blob::SetWeights(&net);
      large_blob::FillInput(net.blob_by_name("data").get());
      if (train) {
        net.ForwardBackward();
      } else {
        net.Forward();
      }
      for (int n = 0; n < 3; ++n) {
        std::string first;
        EXPECT_EQ(0, large_blob::Mismatches(net, n, &first))
            << "planned " << planned << ", train " << train << ", image "
            << n << ": " << first;
        if (!train) continue;
        EXPECT_EQ(0, large_blob::DataGradientMismatches(net, n, &first))
            << "planned " << planned << ", image " << n << ": " << first;
      }
    }
  }
}

}  // namespace
}  // namespace caffe
