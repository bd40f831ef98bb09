#include "caffe/util/insert_splits.hpp"

#include <map>
#include <sstream>
#include <utility>

#include "caffe/common.hpp"

namespace caffe {

string SplitLayerName(const string& layer_name, const string& blob_name,
                      int blob_idx) {
  ostringstream s;
  s << blob_name << "_" << layer_name << "_" << blob_idx << "_split";
  return s.str();
}

string SplitBlobName(const string& layer_name, const string& blob_name,
                     int blob_idx, int split_idx) {
  ostringstream s;
  s << blob_name << "_" << layer_name << "_" << blob_idx << "_split_"
    << split_idx;
  return s.str();
}

void InsertSplits(const NetParameter& param, NetParameter* param_split) {
  param_split->CopyFrom(param);
  param_split->clear_layer();
  // (layer, top index) that last produced each blob name.
  map<string, pair<int, int> > producer;
  // Consumers of each (layer, top) production, and loss weights.
  map<pair<int, int>, int> consumer_count;
  map<pair<int, int>, float> top_loss;
  // For each (layer, bottom) the production it reads.
  map<pair<int, int>, pair<int, int> > bottom_source;

  for (int i = 0; i < param.layer_size(); ++i) {
    const LayerParameter& layer = param.layer(i);
    for (int j = 0; j < layer.bottom_size(); ++j) {
      const string& name = layer.bottom(j);
      auto it = producer.find(name);
      CAFFE_CHECK(it != producer.end())
          << "Unknown bottom blob '" << name << "' (layer '" << layer.name()
          << "', bottom index " << j << ")";
      bottom_source[make_pair(i, j)] = it->second;
      ++consumer_count[it->second];
    }
    for (int j = 0; j < layer.top_size(); ++j) {
      producer[layer.top(j)] = make_pair(i, j);
      if (layer.loss_weight_size() > j)
        top_loss[make_pair(i, j)] = layer.loss_weight(j);
    }
  }

  // Running index of the next split top for each production.
  map<pair<int, int>, int> next_split;
  for (int i = 0; i < param.layer_size(); ++i) {
    LayerParameter* layer = param_split->add_layer();
    layer->CopyFrom(param.layer(i));
    for (int j = 0; j < layer->bottom_size(); ++j) {
      const pair<int, int>& src = bottom_source[make_pair(i, j)];
      const int n = consumer_count[src];
      const float loss = top_loss.count(src) ? top_loss[src] : 0.f;
      if (n > 1 || (n == 1 && loss != 0.f)) {
        const LayerParameter& prod = param.layer(src.first);
        const string& blob = prod.top(src.second);
        layer->set_bottom(j, SplitBlobName(prod.name(), blob, src.second,
                                           next_split[src]++));
      }
    }
    // Split layers right after this layer, for its multiply-used tops.
    const LayerParameter& orig = param.layer(i);
    for (int j = 0; j < orig.top_size(); ++j) {
      const pair<int, int> key(i, j);
      const int n = consumer_count.count(key) ? consumer_count[key] : 0;
      const float loss = top_loss.count(key) ? top_loss[key] : 0.f;
      if (!(n > 1 || (n == 1 && loss != 0.f))) continue;
      // The loss now comes from the split, so the producer must not count it.
      if (loss != 0.f) layer->set_loss_weight(j, 0.f);
      LayerParameter* split = param_split->add_layer();
      const string& blob = orig.top(j);
      split->set_name(SplitLayerName(orig.name(), blob, j));
      split->set_type("Split");
      split->add_bottom(blob);
      const int num_tops = n + (loss != 0.f ? 1 : 0);
      for (int k = 0; k < num_tops; ++k) {
        split->add_top(SplitBlobName(orig.name(), blob, j, k));
        // The loss weight moves to an extra split top nobody consumes.
        if (loss != 0.f) split->add_loss_weight(k == n ? loss : 0.f);
      }
    }
  }
}

}  // namespace caffe
