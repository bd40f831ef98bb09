// layer_costs.hpp: measured forward time per layer, for cost-aware
// recomputation (mem_param.recompute.layer_costs).
//
// `caffe time -layer_costs=FILE` writes one; the planner reads it so that
// it weighs recomputation by what each layer costs on this machine, not by
// an estimate from output sizes.
//
// File format (text, one record per line; '#' starts a comment):
//   net <name>                 the net's name (the rest of the line)
//   batch <n>                  the first axis of the net's first blob
//   layer <name> <forward_ms>  mean forward time of one pass, milliseconds
// Layer names may not contain white space (Caffe's never do in practice;
// one that does is refused when writing).  A fused chain's time is
// written on the layer that ran it (`caffe time` says which).
//
// Contract: ReadLayerCosts throws caffe::Error naming the file and line of
// anything it cannot read (a missing file, an unknown record, a negative
// or non-numeric time, a layer listed twice); WriteLayerCosts writes
// atomically.
#ifndef CAFFE_UTIL_LAYER_COSTS_HPP_
#define CAFFE_UTIL_LAYER_COSTS_HPP_

#include <map>
#include <string>

namespace caffe {

struct LayerCosts {
  std::string source;  // where it was read from, for messages
  std::string net;
  int batch = 0;
  std::map<std::string, double> forward_ms;
};

LayerCosts ReadLayerCosts(const std::string& path);
LayerCosts ParseLayerCosts(const std::string& text, const std::string& source);
std::string FormatLayerCosts(const LayerCosts& costs);
void WriteLayerCosts(const std::string& path, const LayerCosts& costs);

}  // namespace caffe

#endif  // CAFFE_UTIL_LAYER_COSTS_HPP_
