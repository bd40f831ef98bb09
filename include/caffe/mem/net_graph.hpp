// net_graph.hpp: the read-only facts the memory engine needs about a net.
//
// Contract:
//  * Plain data, built once per plan from a Net by BuildNetGraph
//    (net_graph_builder.hpp, the only part of the engine that reads a Net)
//    or by hand in tests: Analyze, the recomputation study and the binder
//    depend on this, never on Net, so there is no cycle between the net
//    and its memory code.
//  * Memories are the distinct byte buffers (SyncedMemory) of the net's
//    blobs and of its layers' kept memory; blobs and kept memory refer to
//    them by index, so in-place layers and views (Split, Flatten, Reshape)
//    show up as blobs sharing one memory.  `memory` may be null in tests
//    that never bind.
//  * A layer's top is a write unless it views a bottom's memory (declared
//    by the layer's memory contract); an in-place top is the bottom blob
//    itself and is a write.
#ifndef CAFFE_MEM_NET_GRAPH_HPP_
#define CAFFE_MEM_NET_GRAPH_HPP_

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace caffe {

class SyncedMemory;

namespace mem {

struct GraphMemory {
  SyncedMemory* memory = nullptr;
  size_t bytes = 0;
};

struct GraphBlob {
  std::string name;
  int data = -1;           // memory index of the data
  int diff = -1;           // memory index of the diff
  size_t count_bytes = 0;  // count() * element bytes (memory may be larger)
  // Why the net never lets this blob share memory ("net input", "net
  // output", "data layer top", "loss"); empty when it may.
  std::string pin;
};

struct GraphLayer {
  std::string name;
  std::vector<int> bottoms;  // blob indices
  std::vector<int> tops;
  std::vector<bool> top_is_view;   // top k views a bottom's memory
  std::vector<bool> top_in_place;  // top k is one of the bottom blobs
  std::vector<bool> bottom_need_backward;
  bool need_backward = false;
  int backward_reads = 3;    // BackwardReadsBits (memory_contract.hpp)
  bool may_run_twice = true;  // its contract allows recomputation
  std::vector<int> kept;      // memory indices of its kept memory
  // kept[k] is read, not written, when the layer is recomputed
  // (Layer::RerunReadsMemory); empty means none is.
  std::vector<bool> kept_reread;
  // Memory index of its per-call scratch (column buffer, library
  // workspace: Layer::ScratchMemory), -1 when none.  Nothing in it
  // survives a call, so each step the layer runs is a lifetime of its own.
  int scratch = -1;
  // Bottom whose diff memory top 0's diff is (gradient aliasing,
  // MemoryContract::diff_alias_bottom), -1 when none: Caffe 1.0 would
  // allocate that diff twice.
  int diff_aliased_bottom = -1;
  // Top 0 may lie exactly over any of the first this-many bottoms' memory
  // at the bottom's last read (MemoryContract::top_overwrites_bottoms); 0
  // when top 0 is in place or a view.
  int top_overwrites_bottoms = 0;
  // An expensive layer type (util/expensive_layers.hpp): recompute
  // { auto: CHEAP } keeps its outputs and never runs it twice.
  bool expensive = false;
  // Multiply-adds per output value of top 0 for layers with weights
  // (weights per output channel), else 0.
  double multiply_adds_per_output = 0;
  // Forward work: per written top, its count times multiply-adds per
  // output (weights per output channel for layers with weights, else 1);
  // milliseconds when NetGraph::costs_measured.
  double forward_cost = 0;
};

struct NetGraph {
  std::string net_name;
  bool train = true;
  // A TEST net without force_backward: only forward steps are planned.
  bool forward_only = false;
  size_t element_bytes = 4;  // sizeof(Dtype)
  // Layers' forward_cost are measured milliseconds (layer_costs file).
  bool costs_measured = false;
  std::vector<GraphMemory> memories;
  std::vector<GraphBlob> blobs;
  std::vector<GraphLayer> layers;

  int num_layers() const { return static_cast<int>(layers.size()); }
  // Index of the blob named `name`, -1 when none.
  int BlobIndex(const std::string& name) const;
};

// What a plan depends on besides the topology: the identity and size of
// every blob's data and diff and of every layer's kept memory, in that
// order.  A plan is still applied while this is unchanged.
struct MemorySignature {
  std::vector<std::pair<const SyncedMemory*, size_t> > entries;
  bool operator==(const MemorySignature& o) const {
    return entries == o.entries;
  }
};

// Where the engine gets its graph: the net (net_graph_builder.hpp) or a
// test.  Signature() is called before every forward pass, so it must be
// cheap; Graph() only when planning.
class GraphSource {
 public:
  virtual ~GraphSource() {}
  virtual NetGraph Graph() const = 0;
  virtual MemorySignature Signature() const = 0;
};

}  // namespace mem
}  // namespace caffe

#endif  // CAFFE_MEM_NET_GRAPH_HPP_
