// recompute_study.hpp: what recomputation needs to know about a net graph.
//
// Contract:
//  * Pure, over a NetGraph (no Net, no memory), like Analyze.
//  * StudyRecompute: which layers may run twice (the layer's contract
//    allows it, it has bottoms, and it is not in place on memory a layer
//    run once wrote: it would apply itself twice), the bytes and forward
//    cost each layer adds, the bytes that cross each possible cut, and the
//    cuts allowed: a segment may end after layer b only when no later
//    layer writes memory written at or before b (recomputing the next
//    segment must find its inputs as the forward pass left them) and some
//    layer up to b may run twice.  Layers with keep[i] set (auto: CHEAP
//    sets every expensive layer; BUDGET the ones its cost-aware pass
//    chooses) are not recomputable either: their outputs are kept, and so
//    are those of the in-place layers after them.
//  * CheckpointEnd: the layer after which a checkpoint blob's segment ends
//    (the last layer that writes or views its memory), -1 when none does.
//  * SegmentEndName: the name of the blob that first held the memory layer
//    b's first top writes (the layer's name when it has no top).
#ifndef CAFFE_MEM_RECOMPUTE_STUDY_HPP_
#define CAFFE_MEM_RECOMPUTE_STUDY_HPP_

#include <string>
#include <vector>

#include "caffe/mem/net_graph.hpp"

namespace caffe {
namespace mem {

struct RecomputeFacts {
  std::vector<bool> recomputable;
  std::vector<int> boundary_candidates;  // sorted
  std::vector<double> layer_bytes;       // bytes of new memory per layer
  std::vector<double> layer_cost;        // forward work per layer
  std::vector<double> crossing_bytes;    // bytes crossing a cut after b
};

// keep: empty, or one flag per layer.
RecomputeFacts StudyRecompute(const NetGraph& graph,
                              const std::vector<bool>& keep = {});
// keep flags for every expensive layer (GraphLayer::expensive) that does
// more than `cheap_multiply_adds` multiply-adds per output value (0: every
// expensive layer; RecomputeParameter.cheap_multiply_adds).
std::vector<bool> ExpensiveLayers(const NetGraph& graph,
                                  double cheap_multiply_adds = 0);
int CheckpointEnd(const NetGraph& graph, int blob_id);
std::string SegmentEndName(const NetGraph& graph, int layer);

}  // namespace mem
}  // namespace caffe

#endif  // CAFFE_MEM_RECOMPUTE_STUDY_HPP_
