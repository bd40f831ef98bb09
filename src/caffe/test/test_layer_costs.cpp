// The layer costs file (util/layer_costs.hpp): what `caffe time
// -layer_costs` writes and mem_param.recompute.layer_costs reads.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "caffe/common.hpp"
#include "caffe/test/temp_dir.hpp"
#include "caffe/util/layer_costs.hpp"

namespace caffe {
namespace {

TEST(LayerCostsTest, WrittenFilesReadBackTheSame) {
  TempDir dir;
  LayerCosts c;
  c.net = "Res Net 50";  // names of nets may hold spaces
  c.batch = 8;
  c.forward_ms["conv1"] = 8.8125;
  c.forward_ms["res2a_branch2a"] = 0.25;
  c.forward_ms["fc1000"] = 0;
  WriteLayerCosts(dir.file("costs.txt"), c);
  const LayerCosts back = ReadLayerCosts(dir.file("costs.txt"));
  EXPECT_EQ(back.net, c.net);
  EXPECT_EQ(back.batch, 8);
  EXPECT_EQ(back.forward_ms, c.forward_ms);
  EXPECT_EQ(back.source, dir.file("costs.txt"));
}

TEST(LayerCostsTest, CommentsAndBlankLinesAreSkipped) {
  const LayerCosts c = ParseLayerCosts(
      "# header\n\nnet lenet  \nlayer conv1 1.5  # measured\n", "t.txt");
  EXPECT_EQ(c.net, "lenet");
  EXPECT_EQ(c.batch, 0);
  ASSERT_EQ(c.forward_ms.size(), 1u);
  EXPECT_DOUBLE_EQ(c.forward_ms.at("conv1"), 1.5);
}

// The error names the file and line and says what was expected.
void ExpectError(const std::string& text, const std::string& where,
                 const std::string& what) {
  try {
    ParseLayerCosts(text, "costs.txt");
    FAIL() << "accepted: " << text;
  } catch (const Error& e) {
    const std::string msg = e.what();
    EXPECT_EQ(msg.find(where), 0u) << msg;
    EXPECT_NE(msg.find(what), std::string::npos) << msg;
  }
}

TEST(LayerCostsTest, BadLinesNameFileAndLine) {
  ExpectError("net a\nlayer x 1\nlayr y 2\n", "costs.txt:3:",
              "unknown record 'layr'");
  ExpectError("layer x -1\n", "costs.txt:1:", "time of 0 or more");
  ExpectError("layer x fast\n", "costs.txt:1:", "layer <name> <forward_ms>");
  ExpectError("layer x nan\n", "costs.txt:1:", "time of 0 or more");
  ExpectError("layer x 1\nlayer x 2\n", "costs.txt:2:", "listed twice");
  ExpectError("layer x 1 2\n", "costs.txt:1:", "unexpected '2'");
  ExpectError("batch 0\nlayer x 1\n", "costs.txt:1:", "positive");
  ExpectError("net\nlayer x 1\n", "costs.txt:1:", "needs a name");
  ExpectError("net a\n", "costs.txt:1:", "caffe time -layer_costs");
  try {
    ReadLayerCosts("/no/such/dir/costs.txt");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("/no/such/dir/costs.txt"),
              std::string::npos);
  }
}

TEST(LayerCostsTest, NamesThatCannotBeReadBackAreRefused) {
  TempDir dir;
  LayerCosts c;
  c.forward_ms["a layer"] = 1;
  EXPECT_THROW(WriteLayerCosts(dir.file("c.txt"), c), Error);
  EXPECT_FALSE(std::ifstream(dir.file("c.txt")).good());
}

}  // namespace
}  // namespace caffe
