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
#ifndef CAFFE_NET_GRAPH_BUILDER_HPP_
#define CAFFE_NET_GRAPH_BUILDER_HPP_

#include "caffe/mem/net_graph.hpp"

namespace caffe {

template <typename Dtype>
class Net;

template <typename Dtype>
class NetGraphSource : public mem::GraphSource {
 public:
  explicit NetGraphSource(const Net<Dtype>* net) : net_(net) {}
  mem::NetGraph Graph() const override;
  mem::MemorySignature Signature() const override;

 private:
  const Net<Dtype>* net_;
};

}  // namespace caffe

#endif  // CAFFE_NET_GRAPH_BUILDER_HPP_
