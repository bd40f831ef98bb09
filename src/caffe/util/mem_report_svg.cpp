// RenderMemorySvg (mem_report.hpp): the plan as an SVG drawing.
//
// Layout, top to bottom: title, one line of figures, the legend, the plot
// (x: one column per step, y: bytes), the step labels turned a quarter
// turn so they run down the page.  The margins are computed from what is
// drawn in them (the longest label, the legend's width), so nothing
// overlaps or runs off the canvas at any net size; a label longer than
// kMaxLabelChars is shortened (the full text stays in the text report and
// in each buffer's tooltip).  Text widths are estimated from character
// counts: SVG has no way to measure text before a viewer renders it.
#include <algorithm>
#include <cstdio>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "caffe/util/mem_report.hpp"

namespace caffe {

namespace {

const size_t kMaxLabelChars = 34;
const double kLabelFont = 9, kLabelCharWidth = 5.6;  // sans-serif, 9 px
const double kTextCharWidth = 6.3;                   // sans-serif, 11 px

std::string Mib(double bytes) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.2f MiB", bytes / 1048576.0);
  return buf;
}

std::string Shorten(const std::string& s) {
  if (s.size() <= kMaxLabelChars) return s;
  return s.substr(0, kMaxLabelChars - 3) + "...";
}

// Escapes the characters XML gives meaning to (layer names are free text).
std::string Xml(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '&': out += "&amp;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

// One legend entry: a swatch drawn by `swatch` at (x, y) and its text.
struct LegendEntry {
  std::string text;
  std::function<void(std::ostream&, double, double)> swatch;
};

}  // namespace

std::string RenderMemorySvg(const MemoryReport& r) {
  const int steps = static_cast<int>(r.step_labels.size());
  // Pinned buffers are drawn above the arena, stacked.
  const size_t arena = r.plan.slot_bytes.empty() ? 0 : r.plan.slot_bytes[0];
  size_t stacked = arena;
  std::vector<size_t> y0(r.requests.size(), 0);
  for (size_t i = 0; i < r.requests.size(); ++i) {
    if (r.requests[i].shareable) {
      y0[i] = r.plan.placements[i].offset;
    } else if (r.requests[i].bytes) {
      y0[i] = stacked;
      stacked += mem::AlignUp(r.requests[i].bytes);
    }
  }
  double ymax = static_cast<double>(std::max<size_t>(stacked, 1));
  for (size_t b : r.live_bytes) ymax = std::max(ymax, static_cast<double>(b));
  ymax *= 1.06;  // headroom for the checkpoint names and the peak's label

  const bool recomputes = !r.checkpoints.empty();
  std::vector<LegendEntry> legend;
  legend.push_back({"bytes live at each step", [](std::ostream& s, double x,
                                                  double y) {
    s << "<line x1=\"" << x << "\" x2=\"" << x + 16 << "\" y1=\"" << y
      << "\" y2=\"" << y << "\" stroke=\"black\" stroke-width=\"1.5\"/>\n";
  }});
  legend.push_back({"buffer at its planned place (pale: never shared)",
                    [](std::ostream& s, double x, double y) {
    s << "<rect x=\"" << x << "\" y=\"" << y - 5 << "\" width=\"16\" "
      << "height=\"10\" fill=\"hsl(210,65%,55%)\"/>\n";
  }});
  legend.push_back({"lower bound", [](std::ostream& s, double x, double y) {
    s << "<line x1=\"" << x << "\" x2=\"" << x + 16 << "\" y1=\"" << y
      << "\" y2=\"" << y << "\" stroke=\"red\" stroke-dasharray=\"4,3\"/>\n";
  }});
  legend.push_back({"peak step", [](std::ostream& s, double x, double y) {
    s << "<line x1=\"" << x + 8 << "\" x2=\"" << x + 8 << "\" y1=\"" << y - 6
      << "\" y2=\"" << y + 6 << "\" stroke=\"#d9480f\" stroke-width=\"1.5\" "
      << "stroke-dasharray=\"3,2\"/>\n";
  }});
  if (recomputes) {
    legend.push_back({"refilled by recomputation",
                      [](std::ostream& s, double x, double y) {
      s << "<rect x=\"" << x << "\" y=\"" << y - 5 << "\" width=\"16\" "
        << "height=\"10\" fill=\"hsl(210,65%,55%)\"/><rect x=\"" << x
        << "\" y=\"" << y - 5 << "\" width=\"16\" height=\"10\" "
        << "fill=\"url(#refilled)\" stroke=\"black\" stroke-width=\"0.6\"/>\n";
    }});
    legend.push_back({"recompute steps", [](std::ostream& s, double x,
                                            double y) {
      s << "<rect x=\"" << x << "\" y=\"" << y - 5 << "\" width=\"16\" "
        << "height=\"10\" fill=\"#fff1bf\" stroke=\"#e0c060\"/>\n";
    }});
    legend.push_back({"checkpoint", [](std::ostream& s, double x, double y) {
      s << "<line x1=\"" << x + 8 << "\" x2=\"" << x + 8 << "\" y1=\""
        << y - 6 << "\" y2=\"" << y + 6 << "\" stroke=\"#1a7f37\" "
        << "stroke-width=\"1.2\"/>\n";
    }});
  }

  // The legend flows in rows across the canvas width.
  const double W = 1000, left = 90, right = 30;
  const double pw = W - left - right;
  std::vector<std::pair<double, double> > legend_at;  // x, row
  {
    double x = left;
    int row = 0;
    for (const LegendEntry& e : legend) {
      const double width = 22 + kTextCharWidth * e.text.size() + 16;
      if (x + width > W - right && x > left) {
        x = left;
        ++row;
      }
      legend_at.push_back({x, row});
      x += width;
    }
  }
  const int legend_rows =
      legend_at.empty() ? 0 : static_cast<int>(legend_at.back().second) + 1;
  const double legend_top = 56;
  const double top_margin = legend_top + 16 * legend_rows + 8;
  const double ph = 330;
  size_t longest = 0;
  for (const std::string& l : r.step_labels)
    longest = std::max(longest, Shorten(l).size());
  const double label_top = top_margin + ph + 6;
  const double H = label_top + kLabelCharWidth * longest + 12;

  auto X = [&](double step) { return left + pw * step / std::max(steps, 1); };
  auto Y = [&](double bytes) { return top_margin + ph * (1 - bytes / ymax); };
  std::ostringstream s;
  s << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << W
    << "\" height=\"" << H << "\" font-family=\"sans-serif\" "
    << "font-size=\"11\">\n<defs><pattern id=\"refilled\" width=\"5\" "
    << "height=\"5\" patternUnits=\"userSpaceOnUse\" "
    << "patternTransform=\"rotate(45)\"><line x1=\"0\" y1=\"0\" x2=\"0\" "
    << "y2=\"5\" stroke=\"black\" stroke-width=\"1.4\" "
    << "stroke-opacity=\"0.55\"/></pattern></defs>\n"
    << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  s << "<text x=\"" << left << "\" y=\"20\" font-size=\"15\">Memory plan: "
    << Xml(r.net_name) << " (" << (r.phase == TRAIN ? "TRAIN" : "TEST")
    << ", level " << r.level << ")</text>\n";
  s << "<text x=\"" << left << "\" y=\"38\">planned "
    << Mib(r.plan.total_bytes()) << " of activations vs "
    << Mib(r.activation_bytes) << " unoptimized; lower bound "
    << Mib(r.lower_bound + r.pinned_bytes);
  if (recomputes)
    s << "; " << r.checkpoints.size() << " checkpoints, "
      << Mib(r.bytes_without_recompute) << " without recomputation";
  s << "</text>\n";
  for (size_t k = 0; k < legend.size(); ++k) {
    const double x = legend_at[k].first;
    const double y = legend_top + 16 * legend_at[k].second;
    s << "<g class=\"legend\">";
    legend[k].swatch(s, x, y);
    s << "<text x=\"" << x + 22 << "\" y=\"" << y + 4 << "\">"
      << Xml(legend[k].text) << "</text></g>\n";
  }

  // Recompute steps: a band behind everything, one per run of them.
  for (int i = 0; i < steps; ++i) {
    if (i >= static_cast<int>(r.recompute_step.size()) ||
        !r.recompute_step[i])
      continue;
    int j = i;
    while (j + 1 < steps && r.recompute_step[j + 1]) ++j;
    s << "<rect class=\"recompute-steps\" x=\"" << X(i) << "\" y=\""
      << top_margin << "\" width=\"" << X(j + 1) - X(i) << "\" height=\""
      << ph << "\" fill=\"#fff1bf\"/>\n";
    i = j;
  }
  std::hash<std::string> hasher;
  for (size_t i = 0; i < r.requests.size(); ++i) {
    const mem::BufferRequest& q = r.requests[i];
    if (!q.bytes) continue;
    const int first = q.shareable ? q.first_step : 0;
    const int last = std::min(q.shareable ? q.last_step : steps - 1,
                              steps - 1);
    if (first >= steps) continue;
    const int hue = static_cast<int>(hasher(q.name) % 360);
    const bool diff = q.name.find("(diff)") != std::string::npos;
    const bool refilled = i < r.recomputed_request.size() &&
                          r.recomputed_request[i];
    const double x = X(first), w = X(last + 1) - X(first);
    const double y = Y(y0[i] + q.bytes), h = Y(y0[i]) - y;
    s << "<rect x=\"" << x << "\" y=\"" << y << "\" width=\"" << w
      << "\" height=\"" << h << "\" fill=\"hsl(" << hue << ","
      << (q.shareable ? 65 : 10) << "%," << (diff ? 72 : 55)
      << "%)\" stroke=\"white\" stroke-width=\"0.3\"><title>" << Xml(q.name)
      << ": " << q.bytes << " bytes, steps " << first << "-" << last
      << (q.shareable ? "" : " (never shared)")
      << (refilled ? " (refilled by recomputation)" : "")
      << "</title></rect>\n";
    if (refilled)
      s << "<rect class=\"refilled\" x=\"" << x << "\" y=\"" << y
        << "\" width=\"" << w << "\" height=\"" << h
        << "\" fill=\"url(#refilled)\" stroke=\"black\" "
        << "stroke-width=\"0.5\"/>\n";
  }
  // Live bytes per step and the lower bound.
  s << "<polyline fill=\"none\" stroke=\"black\" stroke-width=\"1.5\" "
       "points=\"";
  for (int i = 0; i < steps; ++i)
    s << X(i) << "," << Y(r.live_bytes[i]) << " " << X(i + 1) << ","
      << Y(r.live_bytes[i]) << " ";
  s << "\"/>\n";
  const double lb = Y(r.lower_bound + r.pinned_bytes);
  s << "<line x1=\"" << left << "\" x2=\"" << left + pw << "\" y1=\"" << lb
    << "\" y2=\"" << lb << "\" stroke=\"red\" stroke-dasharray=\"6,4\"/>\n";
  // Checkpoints: where each recomputed segment ends in the forward pass.
  // Names go in up to four rows near the top; one that would overlap the
  // names already there is left to the line's tooltip.
  std::vector<double> row_end(4, 0);
  for (size_t k = 0; k < r.checkpoint_steps.size(); ++k) {
    const double x = X(r.checkpoint_steps[k] + 1);
    s << "<line class=\"checkpoint\" x1=\"" << x << "\" x2=\"" << x
      << "\" y1=\"" << top_margin << "\" y2=\"" << top_margin + ph
      << "\" stroke=\"#1a7f37\" stroke-width=\"1.2\"><title>checkpoint "
      << Xml(r.checkpoints[k]) << "</title></line>\n";
    const std::string name = Shorten(r.checkpoints[k]);
    const double width = kTextCharWidth * name.size();
    for (size_t row = 0; row < row_end.size(); ++row) {
      if (x + 3 < row_end[row] || x + 3 + width > W - 2) continue;
      s << "<text x=\"" << x + 3 << "\" y=\"" << top_margin + 11 + 12 * row
        << "\" fill=\"#1a7f37\">" << Xml(name) << "</text>\n";
      row_end[row] = x + 3 + width + 6;
      break;
    }
  }
  // The peak step, labelled on the side with room.
  if (r.peak_step >= 0 && r.peak_step < steps) {
    const double x = X(r.peak_step + 0.5);
    s << "<line class=\"peak\" x1=\"" << x << "\" x2=\"" << x << "\" y1=\""
      << top_margin << "\" y2=\"" << top_margin + ph << "\" stroke=\"#d9480f\" "
      << "stroke-width=\"1.5\" stroke-dasharray=\"3,2\"/>\n";
    const bool on_left = x > left + pw / 2;
    s << "<text x=\"" << (on_left ? x - 4 : x + 4) << "\" y=\""
      << Y(r.live_bytes[r.peak_step]) - 4 << "\" fill=\"#d9480f\" "
      << "text-anchor=\"" << (on_left ? "end" : "start") << "\">peak "
      << Mib(r.live_bytes[r.peak_step]) << "</text>\n";
  }
  // Axes.
  s << "<line x1=\"" << left << "\" y1=\"" << top_margin << "\" x2=\"" << left
    << "\" y2=\"" << top_margin + ph << "\" stroke=\"black\"/>\n";
  s << "<line x1=\"" << left << "\" y1=\"" << top_margin + ph << "\" x2=\""
    << left + pw << "\" y2=\"" << top_margin + ph << "\" stroke=\"black\"/>\n";
  for (int t = 0; t <= 4; ++t) {
    const double b = ymax * t / 4.0;
    s << "<text x=\"" << left - 6 << "\" y=\"" << Y(b) + 4
      << "\" text-anchor=\"end\">" << Mib(b) << "</text>\n";
  }
  // Step labels a quarter turn down, at most one per label height.
  const double column = pw / std::max(steps, 1);
  const int label_every =
      std::max(1, static_cast<int>((kLabelFont + 2) / column + 0.999));
  for (int i = 0; i < steps; i += label_every) {
    s << "<text class=\"step\" transform=\"translate("
      << X(i + 0.5) - kLabelFont / 3 << "," << label_top
      << ") rotate(90)\" font-size=\"" << kLabelFont << "\">"
      << Xml(Shorten(r.step_labels[i])) << "</text>\n";
  }
  s << "</svg>\n";
  return s.str();
}

}  // namespace caffe
