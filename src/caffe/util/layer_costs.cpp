#include "caffe/util/layer_costs.hpp"

#include <cctype>
#include <cmath>
#include <fstream>
#include <sstream>

#include "caffe/common.hpp"
#include "caffe/util/io.hpp"

namespace caffe {

namespace {

[[noreturn]] void Fail(const std::string& source, int line,
                       const std::string& what) {
  throw Error(source + ":" + std::to_string(line) + ": " + what);
}

}  // namespace

LayerCosts ParseLayerCosts(const std::string& text,
                           const std::string& source) {
  LayerCosts c;
  c.source = source;
  std::istringstream in(text);
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    const size_t hash = line.find('#');
    if (hash != std::string::npos) line.resize(hash);
    std::istringstream fields(line);
    std::string record;
    if (!(fields >> record)) continue;
    std::string name, extra;
    if (record == "net") {
      // The rest of the line: net names may hold spaces.
      std::getline(fields >> std::ws, c.net);
      while (!c.net.empty() && std::isspace(
                                   static_cast<unsigned char>(c.net.back())))
        c.net.pop_back();
      if (c.net.empty()) Fail(source, number, "'net' needs a name");
      continue;
    } else if (record == "batch") {
      if (!(fields >> c.batch) || c.batch <= 0)
        Fail(source, number, "'batch' needs a positive whole number");
    } else if (record == "layer") {
      double ms = -1;
      if (!(fields >> name >> ms) || !std::isfinite(ms) || ms < 0)
        Fail(source, number,
             "expected 'layer <name> <forward_ms>' with a time of 0 or more");
      if (!c.forward_ms.emplace(name, ms).second)
        Fail(source, number, "layer '" + name + "' is listed twice");
    } else {
      Fail(source, number, "unknown record '" + record +
                               "' (expected net, batch or layer)");
    }
    if (fields >> extra)
      Fail(source, number, "unexpected '" + extra + "' after the record");
  }
  if (c.forward_ms.empty())
    Fail(source, 1, "no 'layer <name> <forward_ms>' records: write the file "
                    "with `caffe time -layer_costs=FILE`");
  return c;
}

LayerCosts ReadLayerCosts(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(path + ": cannot open the layer costs file");
  std::ostringstream text;
  text << in.rdbuf();
  return ParseLayerCosts(text.str(), path);
}

std::string FormatLayerCosts(const LayerCosts& c) {
  std::ostringstream s;
  s << "# Forward time per layer, written by `caffe time -layer_costs`;\n"
    << "# read by mem_param { recompute { layer_costs: ... } }.\n";
  if (!c.net.empty()) s << "net " << c.net << "\n";
  if (c.batch > 0) s << "batch " << c.batch << "\n";
  s.precision(6);
  for (const auto& e : c.forward_ms) {
    if (e.first.find_first_of(" \t\n#") != std::string::npos)
      throw Error("layer '" + e.first + "': a name with white space or '#' "
                  "cannot be written to a layer costs file");
    s << "layer " << e.first << " " << std::fixed << e.second << "\n";
  }
  return s.str();
}

void WriteLayerCosts(const std::string& path, const LayerCosts& c) {
  WriteFileAtomically(path, FormatLayerCosts(c));
}

}  // namespace caffe
