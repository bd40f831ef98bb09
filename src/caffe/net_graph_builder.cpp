#include "caffe/net_graph_builder.hpp"

#include <algorithm>
#include <map>

#include "caffe/net.hpp"
#include "caffe/util/expensive_layers.hpp"

namespace caffe {

namespace {

template <typename Dtype>
class MemoryIndex {
 public:
  explicit MemoryIndex(mem::NetGraph* graph) : graph_(graph) {}
  int Of(SyncedMemory* m) {
    auto it = index_.find(m);
    if (it != index_.end()) return it->second;
    mem::GraphMemory gm;
    gm.memory = m;
    gm.bytes = m ? m->size() : 0;
    graph_->memories.push_back(gm);
    const int id = static_cast<int>(graph_->memories.size()) - 1;
    index_.emplace(m, id);
    return id;
  }

 private:
  mem::NetGraph* graph_;
  std::map<SyncedMemory*, int> index_;
};

template <typename Dtype>
double MultiplyAddsPerOutput(Layer<Dtype>& layer, const Blob<Dtype>& top) {
  // Weights per output channel for layers with weights (convolution, inner
  // product); 0 otherwise.
  if (layer.blobs().empty() || top.num_axes() <= 1 || top.shape(1) <= 0)
    return 0;
  return static_cast<double>(layer.blobs()[0]->count()) / top.shape(1);
}

template <typename Dtype>
double ForwardCostOf(Layer<Dtype>& layer, const Blob<Dtype>& top) {
  // Multiply-adds per output for layers with weights, one per output
  // otherwise.
  return static_cast<double>(top.count64()) *
         std::max(1.0, MultiplyAddsPerOutput(layer, top));
}

}  // namespace

template <typename Dtype>
std::vector<std::string> NetBlobPins(const Net<Dtype>& net) {
  std::vector<std::string> pins(net.blobs().size());
  auto pin = [&pins](int id, const char* why) {
    if (pins[id].empty()) pins[id] = why;
  };
  for (int id : net.input_blob_indices()) pin(id, "net input");
  for (int id : net.output_blob_indices()) pin(id, "net output");
  for (size_t i = 0; i < net.layers().size(); ++i)
    if (net.bottom_ids(static_cast<int>(i)).empty())
      for (int id : net.top_ids(static_cast<int>(i)))
        pin(id, "data layer top");
  for (size_t id = 0; id < net.blobs().size(); ++id)
    if (net.blob_loss_weights().size() > id &&
        net.blob_loss_weights()[id] != Dtype(0))
      pin(static_cast<int>(id), "loss");
  return pins;
}

template std::vector<std::string> NetBlobPins(const Net<float>&);
template std::vector<std::string> NetBlobPins(const Net<double>&);

template <typename Dtype>
mem::NetGraph NetGraphSource<Dtype>::Graph() const {
  const Net<Dtype>& net = *net_;
  mem::NetGraph g;
  g.net_name = net.name();
  g.train = net.phase() == TRAIN;
  g.forward_only = net.phase() == TEST && !net.force_backward();
  g.element_bytes = sizeof(Dtype);
  MemoryIndex<Dtype> index(&g);
  const int num_layers = static_cast<int>(net.layers().size());
  const std::vector<std::string> pins = NetBlobPins(net);
  for (size_t id = 0; id < net.blobs().size(); ++id) {
    const Blob<Dtype>& blob = *net.blobs()[id];
    mem::GraphBlob b;
    b.name = net.blob_names()[id];
    b.data = index.Of(blob.data().get());
    b.diff = index.Of(blob.diff().get());
    b.count_bytes = static_cast<size_t>(blob.count64()) * sizeof(Dtype);
    b.pin = pins[id];
    g.blobs.push_back(b);
  }

  for (int i = 0; i < num_layers; ++i) {
    Layer<Dtype>& layer = *net.layers()[i];
    mem::GraphLayer l;
    l.name = net.layer_names()[i];
    l.bottoms = net.bottom_ids(i);
    l.tops = net.top_ids(i);
    l.bottom_need_backward = net.bottom_need_backward()[i];
    l.need_backward = net.layer_need_backward()[i];
    const MemoryContract contract = layer.Memory();
    l.backward_reads = contract.backward_reads;
    l.may_run_twice = contract.may_run_twice;
    l.expensive = IsExpensiveLayerType(layer.type());
    if (!l.tops.empty())
      l.multiply_adds_per_output =
          MultiplyAddsPerOutput(layer, *net.top_vecs()[i][0]);
    for (size_t k = 0; k < l.tops.size(); ++k) {
      const Blob<Dtype>* top = net.top_vecs()[i][k];
      bool in_place = false, shares = false;
      const vector<Blob<Dtype>*>& bottoms = net.bottom_vecs()[i];
      for (size_t j = 0; j < bottoms.size(); ++j) {
        const Blob<Dtype>* bottom = bottoms[j];
        in_place = in_place || bottom == top;
        // Empty blobs have no memory yet: null is no one's view.
        shares = shares || (top->data() && bottom->data() == top->data());
        CAFFE_INTERNAL_CHECK(
            bottom == top || !top->diff() || bottom->diff() != top->diff() ||
            contract.top_views_bottom ||  // Flatten, Reshape: diff too
            (k == 0 && contract.diff_alias_bottom == static_cast<int>(j)))
            << "layer '" << l.name << "' (type " << layer.type()
            << ") made top " << k << "'s diff bottom " << j << "'s without "
            << "declaring it (MemoryContract::diff_alias_bottom)";
      }
      const bool view = shares && !in_place;
      CAFFE_INTERNAL_CHECK(!view || contract.top_views_bottom)
          << "layer '" << l.name << "' (type " << layer.type()
          << ") made top " << k << " view a bottom's memory without "
          << "declaring it (MemoryContract::top_views_bottom)";
      l.top_in_place.push_back(in_place);
      l.top_is_view.push_back(view);
      if (!view) l.forward_cost += ForwardCostOf(layer, *top);
    }
    if (!l.tops.empty() && !l.top_is_view[0] && !l.top_in_place[0])
      l.top_overwrites_bottoms = std::min(
          contract.top_overwrites_bottoms, static_cast<int>(l.bottoms.size()));
    const int alias = contract.diff_alias_bottom;
    if (layer.alias_bottom_diff() && !l.tops.empty() &&
        net.top_vecs()[i][0]->diff() &&
        net.top_vecs()[i][0]->diff() == net.bottom_vecs()[i][alias]->diff())
      l.diff_aliased_bottom = alias;
    vector<SyncedMemory*> kept, reread;
    layer.KeptMemory(&kept);
    layer.RerunReadsMemory(&reread);
    for (SyncedMemory* m : kept) {
      l.kept.push_back(index.Of(m));
      l.kept_reread.push_back(
          std::find(reread.begin(), reread.end(), m) != reread.end());
    }
    for (SyncedMemory* m : reread) {
      CAFFE_INTERNAL_CHECK(std::find(kept.begin(), kept.end(), m) !=
                           kept.end())
          << "layer '" << l.name << "' (type " << layer.type()
          << ") rereads memory it does not keep (RerunReadsMemory must be "
          << "part of KeptMemory)";
    }
    SyncedMemory* scratch = layer.ScratchMemory();
    if (scratch && scratch->size() > 0) l.scratch = index.Of(scratch);
    g.layers.push_back(l);
  }
  if (costs_) ApplyMeasuredCosts(&g);
  return g;
}

template <typename Dtype>
void NetGraphSource<Dtype>::ApplyMeasuredCosts(mem::NetGraph* g) const {
  const Net<Dtype>& net = *net_;
  int batch = 0;
  if (!net.blobs().empty() && net.blobs()[0]->num_axes() > 0)
    batch = net.blobs()[0]->shape(0);
  const double scale =
      costs_->batch > 0 && batch > 0 ? double(batch) / costs_->batch : 1.0;
  double measured = 0, estimated = 0;
  int named = 0;
  for (const mem::GraphLayer& l : g->layers) {
    auto it = costs_->forward_ms.find(l.name);
    if (it == costs_->forward_ms.end()) continue;
    measured += it->second * scale;
    estimated += l.forward_cost;
    ++named;
  }
  if (named == 0)
    throw Error(costs_->source + ": names none of the layers of net '" +
                net.name() + "' (written for net '" + costs_->net +
                "'); write it with `caffe time -layer_costs` on this net");
  const double ratio = estimated > 0 ? measured / estimated : 0.0;
  for (mem::GraphLayer& l : g->layers) {
    auto it = costs_->forward_ms.find(l.name);
    l.forward_cost =
        it != costs_->forward_ms.end() ? it->second * scale
                                       : l.forward_cost * ratio;
  }
  g->costs_measured = true;
}

template <typename Dtype>
mem::MemorySignature NetGraphSource<Dtype>::Signature() const {
  mem::MemorySignature s;
  for (const auto& blob : net_->blobs()) {
    for (const shared_ptr<SyncedMemory>& m : {blob->data(), blob->diff()})
      s.entries.emplace_back(m.get(), m ? m->size() : 0);
  }
  vector<SyncedMemory*> kept;
  for (const auto& layer : net_->layers()) {
    kept.clear();
    layer->KeptMemory(&kept);
    for (SyncedMemory* m : kept) s.entries.emplace_back(m, m->size());
    if (SyncedMemory* m = layer->ScratchMemory())
      s.entries.emplace_back(m, m->size());
    s.entries.emplace_back(nullptr, 0);  // ends a layer's list
  }
  return s;
}

INSTANTIATE_CLASS(NetGraphSource);

}  // namespace caffe
