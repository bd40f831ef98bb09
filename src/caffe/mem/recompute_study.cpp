#include "caffe/mem/recompute_study.hpp"

#include <map>
#include <set>

namespace caffe {
namespace mem {

std::vector<bool> ExpensiveLayers(const NetGraph& graph,
                                  double cheap_multiply_adds) {
  std::vector<bool> keep;
  for (const GraphLayer& l : graph.layers)
    keep.push_back(l.expensive &&
                   l.multiply_adds_per_output > cheap_multiply_adds);
  return keep;
}

RecomputeFacts StudyRecompute(const NetGraph& graph,
                              const std::vector<bool>& keep) {
  const int num_layers = graph.num_layers();
  RecomputeFacts f;
  f.recomputable.assign(num_layers, false);
  f.layer_bytes.assign(num_layers, 0.0);
  f.layer_cost.assign(num_layers, 0.0);
  std::map<int, int> first, last;  // memory -> layer writing it
  std::set<int> kept_as_is;        // written by a layer run once
  for (int i = 0; i < num_layers; ++i) {
    const GraphLayer& layer = graph.layers[i];
    bool again = !layer.bottoms.empty() && layer.may_run_twice &&
                 !(i < static_cast<int>(keep.size()) && keep[i]);
    for (size_t k = 0; k < layer.tops.size(); ++k)
      if (layer.top_in_place[k] &&
          kept_as_is.count(graph.blobs[layer.tops[k]].data))
        again = false;
    f.recomputable[i] = again;
    for (size_t k = 0; k < layer.tops.size(); ++k) {
      if (layer.top_is_view[k]) continue;
      const GraphBlob& top = graph.blobs[layer.tops[k]];
      if (!again) kept_as_is.insert(top.data);
      if (!first.count(top.data)) first[top.data] = i;
      last[top.data] = i;
      if (!layer.top_in_place[k]) f.layer_bytes[i] += top.count_bytes;
    }
    f.layer_cost[i] = layer.forward_cost;
  }
  // Bytes that cross each cut: a memory from its first writer up to its
  // last forward reader (a later segment's recomputation reads it).
  std::map<int, int> last_reader;
  for (int i = 0; i < num_layers; ++i)
    for (int b : graph.layers[i].bottoms) last_reader[graph.blobs[b].data] = i;
  std::vector<double> crossing(num_layers + 1, 0.0);  // difference array
  for (const auto& w : first) {
    auto r = last_reader.find(w.first);
    if (r == last_reader.end() || r->second <= w.second) continue;
    const double bytes = static_cast<double>(graph.memories[w.first].bytes);
    crossing[w.second] += bytes;
    crossing[r->second] -= bytes;
  }
  f.crossing_bytes.assign(num_layers, 0.0);
  for (int b = 0; b < num_layers; ++b)
    f.crossing_bytes[b] = (b ? f.crossing_bytes[b - 1] : 0.0) + crossing[b];
  std::vector<int> blocked(num_layers + 1, 0);  // difference array
  for (const auto& w : first) {
    const int l = last[w.first];
    if (l > w.second) {
      blocked[w.second] += 1;
      blocked[l] -= 1;
    }
  }
  int open = 0;
  bool any_recomputable = false;
  for (int b = 0; b + 1 < num_layers; ++b) {
    open += blocked[b];
    any_recomputable = any_recomputable || f.recomputable[b];
    if (open == 0 && any_recomputable) f.boundary_candidates.push_back(b);
  }
  return f;
}

int CheckpointEnd(const NetGraph& graph, int blob_id) {
  const int m = graph.blobs[blob_id].data;
  int end = -1;
  for (int i = 0; i < graph.num_layers(); ++i)
    for (int top : graph.layers[i].tops)
      if (graph.blobs[top].data == m) end = i;
  return end;
}

std::string SegmentEndName(const NetGraph& graph, int layer) {
  const GraphLayer& l = graph.layers[layer];
  if (l.tops.empty()) return l.name;
  const int m = graph.blobs[l.tops[0]].data;
  for (const GraphBlob& blob : graph.blobs)
    if (blob.data == m) return blob.name;
  return l.name;
}

}  // namespace mem
}  // namespace caffe
