// net_graph_builder.hpp: builds the memory engine's NetGraph from a Net.
//
// Contract:
//  * The only part of the memory engine that reads a Net.  Graph() copies
//    names, topology and each layer's memory declarations; Signature()
//    lists every blob's data and diff and every layer's kept memory with
//    its size, cheaply, for NetMemory::StillApplied.
//  * Aliasing is declared, not guessed: a top that shares a bottom's data
//    memory without being that bottom (a view) must come from a layer whose
//    contract says its tops view its bottoms (top_views_bottom); anything
//    else is a bug in the layer and raises InternalError naming it.
//  * Pins from the net, first reason wins: net input, net output, data
//    layer top (a layer without bottoms), loss.
//  * Forward costs: an estimate (multiply-adds) unless SetLayerCosts gave
//    measured times, which then replace it for every layer they name
//    (milliseconds, scaled by this net's batch over theirs); a layer they
//    miss gets its estimate times the measured-over-estimated ratio of the
//    layers they name, so all costs share one unit.
#ifndef CAFFE_NET_GRAPH_BUILDER_HPP_
#define CAFFE_NET_GRAPH_BUILDER_HPP_

#include <memory>
#include <string>
#include <vector>

#include "caffe/mem/net_graph.hpp"
#include "caffe/util/layer_costs.hpp"

namespace caffe {

template <typename Dtype>
class Net;

// Why each blob of `net` never shares memory, first reason wins: "net
// input", "net output", "data layer top", "loss"; "" when it may.  The
// graph's pins and the net's gradient aliasing (Net::AliasGradients'
// readable blobs) both come from here.
template <typename Dtype>
std::vector<std::string> NetBlobPins(const Net<Dtype>& net);

template <typename Dtype>
class NetGraphSource : public mem::GraphSource {
 public:
  explicit NetGraphSource(const Net<Dtype>* net) : net_(net) {}
  mem::NetGraph Graph() const override;
  mem::MemorySignature Signature() const override;
  void SetLayerCosts(const LayerCosts& costs) {
    costs_.reset(new LayerCosts(costs));
  }

 private:
  void ApplyMeasuredCosts(mem::NetGraph* g) const;

  const Net<Dtype>* net_;
  std::unique_ptr<LayerCosts> costs_;
};

}  // namespace caffe

#endif  // CAFFE_NET_GRAPH_BUILDER_HPP_
