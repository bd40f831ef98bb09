// The plan's picture (RenderMemorySvg) stays legible at any net size: no
// step label runs off the canvas or into the legend, labels never overlap,
// long names are shortened, and the peak step, the recompute steps and the
// buffers recomputation fills again are marked.
#include <gtest/gtest.h>

#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "caffe/util/io.hpp"
#include "caffe/util/mem_report.hpp"

namespace caffe {
namespace {

// x -> (InnerProduct, ReLU) x n -> loss, with a very long layer name
// halfway and a checkpoint a third of the way when `checkpoint`.
std::string Chain(int n, bool checkpoint) {
  std::ostringstream s;
  s << "name: \"chain\"\n"
    << "layer { name: \"x\" type: \"DummyData\" top: \"r0\" dummy_data_param"
       " { shape { dim: 2 dim: 16 } data_filler { type: \"gaussian\" } } }\n";
  for (int i = 0; i < n; ++i) {
    const std::string ip =
        i == n / 2 ? "a_layer_name_far_longer_than_any_label_should_be"
                   : "ip" + std::to_string(i);
    s << "layer { name: \"" << ip << "\" type: \"InnerProduct\" bottom: \"r"
      << i << "\" top: \"h" << i << "\" inner_product_param { num_output: 16"
      << " weight_filler { type: \"gaussian\" std: 0.2 } } }\n"
      << "layer { name: \"relu" << i << "\" type: \"ReLU\" bottom: \"h" << i
      << "\" top: \"r" << i + 1 << "\" }\n";
  }
  s << "layer { name: \"loss\" type: \"Reduction\" bottom: \"r" << n
    << "\" top: \"loss\" loss_weight: 1 }\n";
  if (checkpoint)
    s << "mem_param { recompute { checkpoint: \"r" << n / 3 << "\" } }\n";
  return s.str();
}

double Attribute(const std::string& svg, const std::string& name) {
  std::smatch m;
  const std::regex re(name + "=\"([0-9.]+)\"");
  EXPECT_TRUE(std::regex_search(svg, m, re)) << name;
  return std::stod(m[1]);
}

struct Label {
  double x, y;
  std::string text;
};

std::vector<Label> StepLabels(const std::string& svg) {
  std::vector<Label> out;
  const std::regex re(
      "<text class=\"step\" transform=\"translate\\(([0-9.]+),([0-9.]+)\\) "
      "rotate\\(90\\)\"[^>]*>([^<]*)</text>");
  for (std::sregex_iterator it(svg.begin(), svg.end(), re), end; it != end;
       ++it)
    out.push_back({std::stod((*it)[1]), std::stod((*it)[2]), (*it)[3]});
  return out;
}

MemoryReport Report(int n, bool checkpoint) {
  NetParameter param;
  ReadProtoFromTextString(Chain(n, checkpoint), "chain", &param);
  return BuildMemoryReport(param, TRAIN, 2);
}

TEST(MemReportSvgTest, LabelsStayOnTheCanvasAndApartAtAnySize) {
  for (int n : {3, 40, 400}) {
    const MemoryReport r = Report(n, false);
    const std::string svg = RenderMemorySvg(r);
    const double width = Attribute(svg, "width");
    const double height = Attribute(svg, "height");
    const std::vector<Label> labels = StepLabels(svg);
    ASSERT_FALSE(labels.empty()) << n;
    // The legend's last row sits above the plot, which sits above every
    // label; labels run down a quarter turn at about 5.6 px a character
    // (9 px sans-serif) and end above the bottom edge.
    double legend_bottom = 0;
    const std::regex legend_text("<g class=\"legend\">[\\s\\S]*?<text x=\"[0-9.]+\" "
                                 "y=\"([0-9.]+)\"");
    for (std::sregex_iterator it(svg.begin(), svg.end(), legend_text), end;
         it != end; ++it)
      legend_bottom = std::max(legend_bottom, std::stod((*it)[1]));
    ASSERT_GT(legend_bottom, 0);
    for (size_t i = 0; i < labels.size(); ++i) {
      const Label& l = labels[i];
      EXPECT_LE(l.text.size(), 34u) << l.text;
      EXPECT_GT(l.y, legend_bottom + 300) << "label over the plot";
      EXPECT_LE(l.y + 5.6 * l.text.size(), height) << l.text << " at " << n;
      EXPECT_GE(l.x, 0);
      EXPECT_LE(l.x + 9, width) << l.text;
      if (i) EXPECT_GE(l.x - labels[i - 1].x, 10.0) << "labels overlap";
    }
    // The peak is marked.
    EXPECT_NE(svg.find("class=\"peak\""), std::string::npos) << n;
  }
  // The long name is shortened with an ellipsis, once seen.
  const std::string svg = RenderMemorySvg(Report(12, false));
  EXPECT_EQ(svg.find("a_layer_name_far_longer_than_any_label_should_be "
                     "forward</text>"),
            std::string::npos);
  EXPECT_NE(svg.find("a_layer_name_far_longer_than_an...</text>"),
            std::string::npos);
}

TEST(MemReportSvgTest, RecomputationIsMarked) {
  const MemoryReport plain = Report(12, false);
  const std::string plain_svg = RenderMemorySvg(plain);
  EXPECT_EQ(plain_svg.find("class=\"refilled\""), std::string::npos);
  EXPECT_EQ(plain_svg.find("class=\"recompute-steps\""), std::string::npos);
  EXPECT_EQ(plain_svg.find("class=\"checkpoint\""), std::string::npos);

  const MemoryReport r = Report(12, true);
  ASSERT_EQ(r.checkpoints.size(), 1u);
  int refilled = 0, recompute_steps = 0;
  for (bool b : r.recomputed_request) refilled += b;
  for (bool b : r.recompute_step) recompute_steps += b;
  EXPECT_GT(refilled, 0);
  EXPECT_GT(recompute_steps, 0);
  const std::string svg = RenderMemorySvg(r);
  // One hatched overlay per refilled buffer with bytes, one band for the
  // one run of recompute steps, one checkpoint line with its name.
  int overlays = 0;
  for (size_t at = svg.find("class=\"refilled\""); at != std::string::npos;
       at = svg.find("class=\"refilled\"", at + 1))
    ++overlays;
  int with_bytes = 0;
  for (size_t i = 0; i < r.requests.size(); ++i)
    with_bytes += r.recomputed_request[i] && r.requests[i].bytes > 0;
  EXPECT_EQ(overlays, with_bytes);
  EXPECT_NE(svg.find("class=\"recompute-steps\""), std::string::npos);
  EXPECT_NE(svg.find("<title>checkpoint r4</title>"), std::string::npos);
  EXPECT_NE(svg.find("refilled by recomputation"), std::string::npos);
}

}  // namespace
}  // namespace caffe
