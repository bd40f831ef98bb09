// Convolution algorithm choice (util/conv_algorithm.hpp) on made-up
// candidate lists, the GPU arithmetic settings (util/gpu_math_options.hpp),
// and the cuDNN engine's descriptor code, which needs no
// GPU: cuDNN's output shape for each geometry must be the layer's own.
#include <gtest/gtest.h>

#include <google/protobuf/text_format.h>

#include <climits>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "caffe/common.hpp"
#include "caffe/net.hpp"
#include "caffe/util/conv_algorithm.hpp"
#include "caffe/util/gpu_math_options.hpp"
#include "caffe/util/cudnn_conv.hpp"
#include "caffe/util/cudnn_conv_batch.hpp"

namespace caffe {
namespace {

ConvAlgorithmCandidate Candidate(int algo, size_t bytes, bool deterministic = true,
                                 bool ok = true) {
  ConvAlgorithmCandidate c;
  c.algo = algo;
  c.workspace_bytes = bytes;
  c.deterministic = deterministic;
  c.ok = ok;
  return c;
}

TEST(ConvAlgorithmTest, TakesTheBestCandidateThatFits) {
  const std::vector<ConvAlgorithmCandidate> ranked = {
      Candidate(6, 1 << 30), Candidate(1, 1 << 20), Candidate(0, 0)};
  EXPECT_EQ(ChooseAlgorithm(ranked, size_t(2) << 30, true), 0);
  EXPECT_EQ(ChooseAlgorithm(ranked, size_t(64) << 20, true), 1);
  // No workspace at all: the best algorithm that needs none.
  EXPECT_EQ(ChooseAlgorithm(ranked, 0, true), 2);
}

TEST(ConvAlgorithmTest, SkipsFailedAndNondeterministicCandidates) {
  const std::vector<ConvAlgorithmCandidate> ranked = {
      Candidate(3, 0, false), Candidate(4, 0, true, false),
      Candidate(5, 100, true)};
  EXPECT_EQ(ChooseAlgorithm(ranked, 1000, true), 2);
  EXPECT_EQ(ChooseAlgorithm(ranked, 1000, false), 0);
  EXPECT_EQ(ChooseAlgorithm(ranked, 10, true), -1);  // the im2col path
  EXPECT_EQ(ChooseAlgorithm({}, 1000, true), -1);
}

TEST(ConvAlgorithmTest, TensorCoreCandidatesOnlyWhenAllowed) {
  std::vector<ConvAlgorithmCandidate> ranked = {Candidate(7, 0),
                                                Candidate(2, 4096)};
  ranked[0].tensor_core = true;  // the fastest uses TF32
  EXPECT_EQ(ChooseAlgorithm(ranked, 1 << 20, true), 1);
  EXPECT_EQ(ChooseAlgorithm(ranked, 1 << 20, true, false), 1);
  EXPECT_EQ(ChooseAlgorithm(ranked, 1 << 20, true, true), 0);
  // The other conditions still hold for a tensor-core candidate.
  ranked[0].workspace_bytes = size_t(1) << 30;
  EXPECT_EQ(ChooseAlgorithm(ranked, 1 << 20, true, true), 1);
  ranked[1].tensor_core = true;
  EXPECT_EQ(ChooseAlgorithm(ranked, 1 << 20, true, false), -1);
}

// What the log reports when nothing fits: the least workspace among the
// candidates ChooseAlgorithm would take under a large enough limit.
TEST(ConvAlgorithmTest, LeastEligibleWorkspaceFollowsTheSameRule) {
  std::vector<ConvAlgorithmCandidate> ranked = {
      Candidate(1, 10, false), Candidate(2, 20, true, false),
      Candidate(3, 300), Candidate(4, 40)};
  ranked[3].tensor_core = true;
  EXPECT_EQ(300u, LeastEligibleWorkspace(ranked, true));
  EXPECT_EQ(40u, LeastEligibleWorkspace(ranked, true, true));
  EXPECT_EQ(10u, LeastEligibleWorkspace(ranked, false, true));
  // Each least workspace is a limit under which ChooseAlgorithm succeeds,
  // and one byte less is not.
  for (bool det : {true, false}) {
    for (bool tc : {true, false}) {
      const size_t least = LeastEligibleWorkspace(ranked, det, tc);
      EXPECT_GE(ChooseAlgorithm(ranked, least, det, tc), 0);
      EXPECT_EQ(-1, ChooseAlgorithm(ranked, least - 1, det, tc));
    }
  }
  ranked[2].ok = false;
  EXPECT_EQ(SIZE_MAX, LeastEligibleWorkspace(ranked, true));
  EXPECT_EQ(SIZE_MAX, LeastEligibleWorkspace({}, false, true));
}

// The log's list of what cuDNN offered: every candidate in ranked order
// with what rules it out or marks it.
TEST(ConvAlgorithmTest, DescribeCandidatesListsEveryCandidateInOrder) {
  std::vector<ConvAlgorithmCandidate> ranked = {
      Candidate(6, 134217728), Candidate(0, 0, false),
      Candidate(2, 64, true, false)};
  ranked[0].tensor_core = true;
  EXPECT_EQ("6: 134217728 B TF32; 0: 0 B nondeterministic; 2: 64 B failed",
            DescribeCandidates(ranked));
  EXPECT_EQ("none offered", DescribeCandidates({}));
}

// A direction whose workspace grows with the images per call: the largest
// halving of the batch that fits, the shorter last call checked too.
TEST(ConvAlgorithmTest, LargestFittingChunkHalvesUntilTheWorkspaceFits) {
  const size_t per_image = 3 << 20;  // bytes of workspace per image
  auto within = [&](size_t limit) {
    return [=](int images) { return images * per_image <= limit; };
  };
  EXPECT_EQ(64, LargestFittingChunk(64, 64, within(size_t(192) << 20)));
  EXPECT_EQ(32, LargestFittingChunk(64, 64, within(size_t(191) << 20)));
  EXPECT_EQ(16, LargestFittingChunk(64, 64, within(size_t(64) << 20)));
  EXPECT_EQ(1, LargestFittingChunk(64, 64, within(per_image)));
  EXPECT_EQ(0, LargestFittingChunk(64, 64, within(per_image - 1)));
  // Halvings round up, and `first` caps the chunk (the int limit).
  std::vector<int> asked;
  auto record = [&](int images) {
    asked.push_back(images);
    return false;
  };
  EXPECT_EQ(0, LargestFittingChunk(100, 100, record));
  EXPECT_EQ((std::vector<int>{100, 50, 25, 13, 7, 4, 2, 1}), asked);
  asked.clear();
  EXPECT_EQ(0, LargestFittingChunk(513, 511, record));
  EXPECT_EQ(511, asked.front());
  EXPECT_EQ(1, asked.back());
  EXPECT_EQ(5, LargestFittingChunk(5, 9, [](int) { return true; }));
}

// The last, shorter call must fit too: a workspace need not grow with the
// batch (cuDNN may rank other algorithms for other sizes).
TEST(ConvAlgorithmTest, LargestFittingChunkChecksTheShorterLastCall) {
  // 100 images: 50 fits and divides; 100 does not fit.
  EXPECT_EQ(50, LargestFittingChunk(100, 100,
                                    [](int images) { return images <= 50; }));
  // 13 fits but its last call of 100 % 13 = 9 does not; 7 fits, and so
  // does its last call of 2.
  auto odd = [](int images) { return images == 13 || images <= 7; };
  EXPECT_EQ(7, LargestFittingChunk(100, 100, odd));
  // Nothing fits at all.
  EXPECT_EQ(0, LargestFittingChunk(64, 64, [](int) { return false; }));
  // Only one image per call.
  EXPECT_EQ(1, LargestFittingChunk(3, 3, [](int images) {
    return images == 1;
  }));
}

TEST(ConvAlgorithmTest, DirectionsHaveNames) {
  EXPECT_STREQ("forward", ConvDirectionName(ConvDirection::kForward));
  EXPECT_STREQ("backward to the data", ConvDirectionName(ConvDirection::kData));
  EXPECT_STREQ("backward to the filter",
               ConvDirectionName(ConvDirection::kFilter));
}

TEST(GpuMathOptionsTest, DefaultsSettingsAndNames) {
  EXPECT_FALSE(AllowTf32());
  EXPECT_FALSE(AllowNondeterministic());
  EXPECT_EQ(ConvAlgo(), ConvAlgoSearch::kHeuristic);
  SetAllowTf32(true);
  SetAllowNondeterministic(true);
  SetConvAlgo(ParseConvAlgo("find"));
  EXPECT_TRUE(AllowTf32());
  EXPECT_TRUE(AllowNondeterministic());
  EXPECT_EQ(ConvAlgo(), ConvAlgoSearch::kFind);
  EXPECT_STREQ(ConvAlgoName(ConvAlgo()), "find");
  SetAllowTf32(false);
  SetAllowNondeterministic(false);
  EXPECT_FALSE(AllowNondeterministic());
  SetConvAlgo(ParseConvAlgo("heuristic"));
  EXPECT_STREQ(ConvAlgoName(ConvAlgo()), "heuristic");
  try {
    ParseConvAlgo("fastest");
    FAIL() << "an unknown conv_algo was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("'fastest'"), std::string::npos)
        << e.what();
  }
}

// On the CPU the options change nothing: a convolution net's outputs are
// the same bits with and without them.
TEST(GpuMathOptionsTest, CpuResultsIgnoreTheGpuOptions) {
  NetParameter p;
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(R"(
    layer { name: "x" type: "DummyData" top: "x"
      dummy_data_param { shape { dim: 2 dim: 3 dim: 9 dim: 9 }
        data_filler { type: "gaussian" std: 1 } } }
    layer { name: "c" type: "Convolution" bottom: "x" top: "c"
      convolution_param { num_output: 4 kernel_size: 3 stride: 2
        weight_filler { type: "gaussian" std: 0.1 } } })", &p));
  Caffe::set_random_seed(5);
  Net<float> plain(p);
  plain.Forward();
  SetAllowTf32(true);
  SetAllowNondeterministic(true);
  SetConvAlgo(ConvAlgoSearch::kFind);
  Caffe::set_random_seed(5);
  Net<float> opted(p);
  opted.Forward();
  SetAllowTf32(false);
  SetAllowNondeterministic(false);
  SetConvAlgo(ConvAlgoSearch::kHeuristic);
  const Blob<float>& a = *plain.blob_by_name("c");
  const Blob<float>& b = *opted.blob_by_name("c");
  ASSERT_EQ(a.count(), b.count());
  EXPECT_EQ(0, memcmp(a.cpu_data(), b.cpu_data(), a.count() * sizeof(float)));
}

#ifdef USE_CUDA
int OutDim(int in, int k, int p, int s, int d) {
  return (in + 2 * p - (d * (k - 1) + 1)) / s + 1;
}

TEST(CudnnConvTest, DescriptorsGiveTheLayersOutputShape) {
  // num, C, H, W, out C, kh, kw, ph, pw, sh, sw, dh, dw, group
  const int cases[][14] = {
      {2, 3, 7, 6, 4, 3, 3, 1, 1, 2, 2, 1, 1, 1},
      {2, 3, 8, 7, 6, 3, 2, 1, 1, 1, 1, 2, 2, 3},
      {2, 4, 3, 3, 5, 1, 1, 0, 0, 1, 1, 1, 1, 1},
      {64, 3, 227, 227, 96, 11, 11, 0, 0, 4, 4, 1, 1, 1},
      {8, 256, 13, 13, 384, 3, 3, 1, 1, 1, 1, 1, 1, 2},
      {1, 2, 9, 8, 2, 3, 3, 2, 1, 1, 2, 2, 3, 2},
  };
  for (const auto& c : cases) {
    CudnnConvShape s;
    s.num = c[0];
    s.channels = c[1];
    s.height = c[2];
    s.width = c[3];
    s.out_channels = c[4];
    s.kernel_h = c[5];
    s.kernel_w = c[6];
    s.pad_h = c[7];
    s.pad_w = c[8];
    s.stride_h = c[9];
    s.stride_w = c[10];
    s.dilation_h = c[11];
    s.dilation_w = c[12];
    s.group = c[13];
    s.out_height = OutDim(s.height, s.kernel_h, s.pad_h, s.stride_h,
                          s.dilation_h);
    s.out_width = OutDim(s.width, s.kernel_w, s.pad_w, s.stride_w,
                         s.dilation_w);
    for (int dtype = 0; dtype < 2; ++dtype) {
      int n = 0, ch = 0, h = 0, w = 0;
      if (dtype == 0) {
        CudnnConv<float>(s).OutputDim(&n, &ch, &h, &w);
      } else {
        CudnnConv<double>(s).OutputDim(&n, &ch, &h, &w);
      }
      EXPECT_EQ(n, s.num);
      EXPECT_EQ(ch, s.out_channels);
      EXPECT_EQ(h, s.out_height) << "kernel " << s.kernel_h;
      EXPECT_EQ(w, s.out_width) << "kernel " << s.kernel_w;
    }
  }
}

TEST(CudnnConvTest, WithoutAGpuChoosingAlgorithmsIsAClearError) {
  std::string why;
  if (Caffe::GpuCount(&why) > 0)
    GTEST_SKIP() << "a GPU is present: test_gpu covers the engine";
  CudnnConvShape s{2, 3, 7, 6, 4, 5, 4, 3, 3, 0, 0, 1, 1, 1, 1, 1};
  CudnnConv<float> engine(s);
  try {
    engine.ChooseAlgorithms(1 << 20);
    ADD_FAILURE() << "cuDNN algorithms chosen without a GPU";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("cuDNN needs a GPU: " + why),
              std::string::npos)
        << e.what();
  }
}
// A batch past INT_MAX elements runs in int-sized chunks of images: the
// large-blob net's squeeze (513 x 4 x 1024 x 1024 in, 2x2/2 to one
// channel) takes chunks of 511 images and a last one of 2; a batch that
// fits is one chunk, one engine.  Descriptors only: no GPU needed.
TEST(CudnnConvTest, BatchesPastInt32RunInChunksOfImages) {
  // num, channels, height, width, out: channels, height, width; kernel,
  // pad, stride, dilation (h, w); group.
  CudnnConvShape big{513, 4, 1024, 1024, 1, 512, 512, 2, 2,
                     0,   0, 2,    2,    1, 1,   1};
  ASSERT_TRUE(CudnnConvBatch<float>::FitsOneImage(big));
  CudnnConvBatch<float> batch(big);
  EXPECT_EQ(511, batch.int_chunk());
  EXPECT_LE(int64_t{511} * 4 * 1024 * 1024, int64_t{INT_MAX});
  EXPECT_GT(int64_t{512} * 4 * 1024 * 1024, int64_t{INT_MAX});
  int n = 0, c = 0, h = 0, w = 0;
  batch.EngineFor(511).OutputDim(&n, &c, &h, &w);
  EXPECT_EQ(511, n);
  EXPECT_EQ(512, h);
  batch.EngineFor(2).OutputDim(&n, &c, &h, &w);
  EXPECT_EQ(2, n);
  EXPECT_EQ(&batch.EngineFor(511), &batch.EngineFor(511));
  EXPECT_NE(&batch.EngineFor(511), &batch.EngineFor(2));
  // No call may pass the int limit.
  EXPECT_THROW(batch.EngineFor(512), InternalError);

  CudnnConvShape small = big;
  small.num = 8;
  CudnnConvBatch<double> one(small);
  EXPECT_EQ(8, one.int_chunk());
  one.EngineFor(8).OutputDim(&n, &c, &h, &w);
  EXPECT_EQ(8, n);

  CudnnConvShape huge_image = big;
  huge_image.num = 1;
  huge_image.channels = 3000;  // 3000 x 1024 x 1024 in one image
  EXPECT_FALSE(CudnnConvBatch<float>::FitsOneImage(huge_image));
}

#endif  // USE_CUDA

}  // namespace
}  // namespace caffe
