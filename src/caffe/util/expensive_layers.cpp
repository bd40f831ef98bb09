#include "caffe/util/expensive_layers.hpp"

#include <set>

namespace caffe {

bool IsExpensiveLayerType(const std::string& type) {
  static const std::set<std::string> kExpensive = {
      "Convolution", "Deconvolution", "InnerProduct", "RNN", "LSTM"};
  return kExpensive.count(type) > 0;
}

namespace {

bool IsInPlaceOn(const LayerParameter& layer, const std::string& blob) {
  for (int k = 0; k < layer.bottom_size() && k < layer.top_size(); ++k)
    if (layer.bottom(k) == blob && layer.top(k) == blob) return true;
  return false;
}

bool Reads(const LayerParameter& layer, const std::string& blob) {
  for (const std::string& b : layer.bottom())
    if (b == blob) return true;
  return false;
}

}  // namespace

int KeepExpensiveOutputs(NetParameter* param) {
  std::set<std::string> names;
  for (const LayerParameter& layer : param->layer())
    for (const std::string& t : layer.top()) names.insert(t);
  int renamed = 0;
  for (int i = 0; i < param->layer_size(); ++i) {
    LayerParameter* producer = param->mutable_layer(i);
    if (!IsExpensiveLayerType(producer->type())) continue;
    for (int t = 0; t < producer->top_size(); ++t) {
      const std::string top = producer->top(t);
      if (Reads(*producer, top)) continue;  // in place itself
      // The first layer after it that reads the top.
      int j = i + 1;
      while (j < param->layer_size() && !Reads(param->layer(j), top)) ++j;
      if (j == param->layer_size() || !IsInPlaceOn(param->layer(j), top))
        continue;
      std::string name = top + "/" + producer->name();
      while (names.count(name)) name += "_";
      names.insert(name);
      producer->set_top(t, name);
      LayerParameter* first = param->mutable_layer(j);
      for (int k = 0; k < first->bottom_size(); ++k)
        if (first->bottom(k) == top) first->set_bottom(k, name);
      ++renamed;
    }
  }
  return renamed;
}

}  // namespace caffe
