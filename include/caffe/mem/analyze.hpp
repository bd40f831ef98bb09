// analyze.hpp: the dry run that turns a net graph and a step schedule into
// buffer lifetimes, the planner's input.
//
// Contract:
//  * Pure: Analyze(graph, schedule, options) reads nothing but its
//    arguments and allocates no net memory, so it is unit-tested on
//    synthetic graphs (test_mem_analyze.cpp).
//  * Walks the schedule (forward, recompute, backward steps; forward only
//    for a forward-only graph) and records, for every memory, at which
//    steps it is written and read.  What a backward step reads comes from
//    the layer's declaration (GraphLayer::backward_reads): top diffs always,
//    bottom and top data when declared, its kept memory, and it writes the
//    diffs of bottoms that need backward.
//  * Buffers are grouped by memory, so in-place layers and views share a
//    buffer; a layer's kept memory is a buffer of its own, live from the
//    layer's forward to its backward.
//  * Never shared ("pinned"), with the reason: what the graph pins (net
//    inputs, outputs, data layer tops, losses), every exclude_blob and kept
//    blob (data and diff), memory read before anything writes it (a diff
//    that must keep Caffe's zero fill), diffs when share_diff is false, and
//    memory nothing uses.
//  * A memory that recomputation fills again gets a new lifetime (a buffer
//    entry named "...@recompute", then "...@recompute2" for a nested
//    part's third run) from each recompute run's first write on, unless
//    that step also reads it (in place); a pinned memory keeps one, merged.
//  * A layer's scratch memory (GraphLayer::scratch) gets one lifetime per
//    step the layer runs (forward, recompute, backward), each one step
//    long and named "<layer>/scratch@<step>"; the first has lifetime 0,
//    the others 1, so totals count it once.  Scratch is never pinned; a
//    scratch no step uses gets no entry at all.
//  * Order is deterministic: kept memories first (layer order), scratch
//    memories next (layer order), then
//    memories in order of first use; the planner's result depends on it.
#ifndef CAFFE_MEM_ANALYZE_HPP_
#define CAFFE_MEM_ANALYZE_HPP_

#include <set>
#include <string>
#include <vector>

#include "caffe/mem/net_graph.hpp"
#include "caffe/mem/planner.hpp"
#include "caffe/mem/recompute.hpp"

namespace caffe {
namespace mem {

// One planned buffer lifetime: a memory's data or diff use.
struct Buffer {
  int memory = -1;   // index into NetGraph::memories
  bool is_diff = false;
  std::vector<int> blob_ids;  // every blob viewing this memory
  // For a layer's kept memory: the layer and the memory's index in its
  // list; -1 for blob memory.
  int layer_id = -1;
  int kept_index = -1;
  std::string name;  // "<blob>", "<blob>(diff)" or "<layer>/kept<k>"
  // 0 for the first lifetime; n for the n-th one a recompute run starts
  // (1, or 2 for a nested part's third run); 1 for every later step's
  // lifetime of a scratch memory.
  int lifetime = 0;
  // A layer's per-call scratch (layer_id says whose): placed only while
  // its step runs.
  bool scratch = false;
  // False for a lifetime written and never read: a forward value or kept
  // memory that recomputation fills again before any reader comes.
  bool read = true;
  bool pinned = false;
  std::string pin_reason;
};

struct AnalyzeOptions {
  bool share_diff = true;
  std::vector<std::string> exclude_blob;  // names (unknown ones ignored)
  std::set<int> kept_blobs;               // blob indices
  // Plan layers' scratch (GraphLayer::scratch); false ignores it, leaving
  // it to the thread's shared workspace.
  bool plan_scratch = true;
};

struct Analysis {
  std::vector<Buffer> buffers;
  std::vector<BufferRequest> requests;  // one per buffer entry
};

Analysis Analyze(const NetGraph& graph, const std::vector<Step>& schedule,
                 const AnalyzeOptions& options);

}  // namespace mem
}  // namespace caffe

#endif  // CAFFE_MEM_ANALYZE_HPP_
