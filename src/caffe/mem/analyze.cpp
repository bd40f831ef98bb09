#include "caffe/mem/analyze.hpp"

#include <algorithm>
#include <limits>
#include <map>

#include "caffe/memory_contract.hpp"

namespace caffe {
namespace mem {

namespace {

const int kNever = std::numeric_limits<int>::max();

// Read/write steps gathered for one buffer lifetime during the dry run.
struct Uses {
  int first_write = kNever;
  int first_read = kNever;
  int last_use = -1;
  void Write(int step) {
    first_write = std::min(first_write, step);
    last_use = std::max(last_use, step);
  }
  void Read(int step) {
    first_read = std::min(first_read, step);
    last_use = std::max(last_use, step);
  }
  bool used() const { return last_use >= 0; }
};

// One use in the dry run; `run` is the recompute run of a write by a
// recompute step (Step::run), 0 for every other use.
struct Use {
  int step;
  bool write;
  int run;
};

// True when `uses` read the memory at `step`.
bool ReadAt(const std::vector<Use>& uses, int step) {
  for (const Use& u : uses)
    if (u.step == step && !u.write) return true;
  return false;
}

// Buffers by memory, in order of first registration, with their uses.
class Groups {
 public:
  Groups(const NetGraph& graph, bool plan_scratch)
      : graph_(graph), plan_scratch_(plan_scratch) {}
  bool plan_scratch() const { return plan_scratch_; }

  int OfBlob(int blob_id, bool is_diff) {
    const GraphBlob& blob = graph_.blobs[blob_id];
    const int m = is_diff ? blob.diff : blob.data;
    auto it = index_.find(m);
    if (it == index_.end()) {
      Buffer b;
      b.memory = m;
      b.is_diff = is_diff;
      b.name = blob.name + (is_diff ? "(diff)" : "");
      it = index_.emplace(m, Add(b)).first;
    }
    std::vector<int>& ids = buffers_[it->second].blob_ids;
    if (std::find(ids.begin(), ids.end(), blob_id) == ids.end())
      ids.push_back(blob_id);
    return it->second;
  }
  void AddKept(int layer_id) {
    const GraphLayer& layer = graph_.layers[layer_id];
    for (size_t k = 0; k < layer.kept.size(); ++k) {
      if (index_.count(layer.kept[k])) continue;  // listed twice
      Buffer b;
      b.memory = layer.kept[k];
      b.layer_id = layer_id;
      b.kept_index = static_cast<int>(k);
      b.name = layer.name + "/kept" + std::to_string(k);
      index_.emplace(layer.kept[k], Add(b));
    }
  }
  void AddScratch(int layer_id) {
    const GraphLayer& layer = graph_.layers[layer_id];
    if (!plan_scratch_ || layer.scratch < 0 || index_.count(layer.scratch))
      return;
    Buffer b;
    b.memory = layer.scratch;
    b.layer_id = layer_id;
    b.scratch = true;
    b.name = layer.name + "/scratch";
    index_.emplace(layer.scratch, Add(b));
  }
  int OfMemory(int memory) const { return index_.at(memory); }
  // The group of `memory`, or -1 when no buffer holds it.
  int FindMemory(int memory) const {
    auto it = index_.find(memory);
    return it == index_.end() ? -1 : it->second;
  }
  void Record(int group, int step, bool write, int run) {
    uses_[group].push_back({step, write, run});
  }
  std::vector<Buffer>& buffers() { return buffers_; }
  const std::vector<Use>& uses(int group) const { return uses_[group]; }

 private:
  int Add(const Buffer& b) {
    buffers_.push_back(b);
    uses_.emplace_back();
    return static_cast<int>(buffers_.size()) - 1;
  }
  const NetGraph& graph_;
  const bool plan_scratch_;
  std::map<int, int> index_;  // memory -> group
  std::vector<Buffer> buffers_;
  std::vector<std::vector<Use> > uses_;
};

// The layer's scratch is written, then read, within step s.
void RecordScratch(const GraphLayer& layer, int s, Groups* groups) {
  if (layer.scratch < 0 || !groups->plan_scratch()) return;
  const int g = groups->OfMemory(layer.scratch);
  groups->Record(g, s, true, 0);
  groups->Record(g, s, false, 0);
}

// One request per step that uses a scratch memory (none when unused).
void AddScratchLifetimes(const NetGraph& graph, const Buffer& buf,
                         const std::vector<Use>& uses, Analysis* out) {
  int previous = -1;
  for (const Use& u : uses) {
    if (u.step == previous) continue;
    Buffer entry = buf;
    entry.lifetime = previous < 0 ? 0 : 1;
    entry.name += "@" + std::to_string(u.step);
    BufferRequest r;
    r.name = entry.name;
    r.bytes = graph.memories[buf.memory].bytes;
    r.first_step = r.last_step = u.step;
    r.scratch = true;
    out->buffers.push_back(entry);
    out->requests.push_back(r);
    previous = u.step;
  }
}

void DryRun(const NetGraph& graph, const std::vector<Step>& schedule,
            Groups* groups) {
  for (size_t at = 0; at < schedule.size(); ++at) {
    const int s = static_cast<int>(at);
    const GraphLayer& layer = graph.layers[schedule[at].layer];
    if (schedule[at].kind == Step::kBackward) {
      if (graph.forward_only || !layer.need_backward) continue;
      const int reads = layer.backward_reads;
      for (size_t k = 0; k < layer.bottoms.size(); ++k) {
        if (reads & kReadsBottomData)
          groups->Record(groups->OfBlob(layer.bottoms[k], false), s, false, 0);
        if (layer.bottom_need_backward[k])
          groups->Record(groups->OfBlob(layer.bottoms[k], true), s, true, 0);
      }
      for (int id : layer.tops) {
        if (reads & kReadsTopData)
          groups->Record(groups->OfBlob(id, false), s, false, 0);
        groups->Record(groups->OfBlob(id, true), s, false, 0);
      }
      for (int m : layer.kept) groups->Record(groups->OfMemory(m), s, false, 0);
      RecordScratch(layer, s, groups);
      continue;
    }
    // A schedule written by hand may leave recompute runs unnumbered: one
    // run then.
    const int run = schedule[at].kind != Step::kRecompute ? 0
                    : schedule[at].run > 0                ? schedule[at].run
                                                          : 1;
    for (int id : layer.bottoms)
      groups->Record(groups->OfBlob(id, false), s, false, 0);
    // A view of a bottom is not a write: running it again must not start a
    // new lifetime of memory it does not fill.
    for (size_t k = 0; k < layer.tops.size(); ++k)
      groups->Record(groups->OfBlob(layer.tops[k], false), s, true,
                     layer.top_is_view[k] ? 0 : run);
    for (size_t k = 0; k < layer.kept.size(); ++k) {
      // A rerun reads what the first forward kept (Layer::RerunReadsMemory).
      const bool reread = run > 0 && k < layer.kept_reread.size() &&
                          layer.kept_reread[k];
      groups->Record(groups->OfMemory(layer.kept[k]), s, !reread,
                     reread ? 0 : run);
    }
    RecordScratch(layer, s, groups);
  }
}

// Why each blob may not share memory (first reason wins), or "".
std::vector<std::string> BlobPins(const NetGraph& graph,
                                  const AnalyzeOptions& options) {
  std::vector<std::string> pin(graph.blobs.size());
  for (size_t id = 0; id < graph.blobs.size(); ++id) {
    pin[id] = graph.blobs[id].pin;
    if (!pin[id].empty()) continue;
    if (std::find(options.exclude_blob.begin(), options.exclude_blob.end(),
                  graph.blobs[id].name) != options.exclude_blob.end())
      pin[id] = "exclude_blob";
    else if (options.kept_blobs.count(static_cast<int>(id)))
      pin[id] = "kept by the caller";
  }
  return pin;
}

// In place by plan: top 0 of a layer declaring top_overwrites_bottoms lies
// exactly over one of those bottoms whose lifetime ends at the step that
// starts top 0's (forward or recompute), when both may share.
// `requests_of` lists each group's request indices.
void PairInPlace(const NetGraph& graph, const std::vector<Step>& schedule,
                 const Groups& groups,
                 const std::vector<std::vector<int> >& requests_of,
                 Analysis* out) {
  std::vector<BufferRequest>& q = out->requests;
  // The request of `group` whose lifetime starts (or ends) at step s.
  auto find = [&](int group, int s, bool starts) {
    for (int r : requests_of[group]) {
      if (!q[r].shareable || q[r].in_place_of >= 0) continue;
      if (starts ? q[r].first_step == s
                 : q[r].last_step == s && q[r].first_step < s)
        return r;
    }
    return -1;
  };
  for (size_t at = 0; at < schedule.size(); ++at) {
    if (schedule[at].kind == Step::kBackward) continue;
    const GraphLayer& layer = graph.layers[schedule[at].layer];
    if (layer.top_overwrites_bottoms <= 0) continue;
    const int s = static_cast<int>(at);
    const int top_group = groups.FindMemory(graph.blobs[layer.tops[0]].data);
    const int top = top_group < 0 ? -1 : find(top_group, s, true);
    if (top < 0) continue;
    for (int k = 0; k < layer.top_overwrites_bottoms; ++k) {
      const int group =
          groups.FindMemory(graph.blobs[layer.bottoms[k]].data);
      if (group < 0 || group == top_group) continue;
      const int bottom = find(group, s, false);
      if (bottom < 0) continue;
      q[top].in_place_of = bottom;
      q[bottom].in_place_of = top;
      break;
    }
  }
}

}  // namespace

Analysis Analyze(const NetGraph& graph, const std::vector<Step>& schedule,
                 const AnalyzeOptions& options) {
  Groups groups(graph, options.plan_scratch);
  for (int i = 0; i < graph.num_layers(); ++i) groups.AddKept(i);
  for (int i = 0; i < graph.num_layers(); ++i) groups.AddScratch(i);
  DryRun(graph, schedule, &groups);
  const std::vector<std::string> blob_pin = BlobPins(graph, options);

  Analysis out;
  std::vector<std::vector<int> > requests_of(groups.buffers().size());
  for (size_t g = 0; g < groups.buffers().size(); ++g) {
    Buffer buf = groups.buffers()[g];
    if (buf.scratch) {
      AddScratchLifetimes(graph, buf, groups.uses(static_cast<int>(g)), &out);
      continue;
    }
    for (int id : buf.blob_ids) {
      if (!blob_pin[id].empty()) {
        buf.pinned = true;
        buf.pin_reason = blob_pin[id];
        break;
      }
    }
    const std::vector<Use>& uses = groups.uses(static_cast<int>(g));
    // Each recompute run that fills the memory again starts a new
    // lifetime at its first write, unless that step also reads the memory
    // (in place: the value it reads is the lifetime going on) or the
    // memory is pinned (one place).  Uses are in step order already.
    std::vector<Uses> life(1);
    int run = 0;  // the run that started the current lifetime
    for (size_t k = 0; k < uses.size(); ++k) {
      const Use& u = uses[k];
      if (!buf.pinned && u.write && u.run > 0 && u.run != run &&
          !ReadAt(uses, u.step)) {
        life.emplace_back();
        run = u.run;
      }
      if (u.write) {
        life.back().Write(u.step);
      } else {
        life.back().Read(u.step);
      }
    }
    const Uses& u = life[0];
    if (!buf.pinned && u.used() && u.first_read <= u.first_write) {
      buf.pinned = true;
      buf.pin_reason = "read before written";  // keeps its zero fill
    }
    if (!buf.pinned && buf.is_diff && !options.share_diff) {
      buf.pinned = true;
      buf.pin_reason = "share_diff: false";
    }
    if (!u.used() && life.size() == 1 && !buf.pinned) {
      buf.pinned = true;
      buf.pin_reason = "never used";
    }
    if (buf.pinned && life.size() > 1) {
      // Pinned memory keeps one place: merge the lifetimes.
      for (size_t l = 1; l < life.size(); ++l) {
        if (life[l].first_write != kNever) life[0].Write(life[l].first_write);
        life[0].Read(life[l].last_use);
      }
      life.resize(1);
    }
    for (size_t l = 0; l < life.size(); ++l) {
      const Uses& v = life[l];
      Buffer entry = buf;
      entry.lifetime = static_cast<int>(l);
      entry.read = v.first_read != kNever;
      if (l == 1) entry.name += "@recompute";
      if (l > 1) entry.name += "@recompute" + std::to_string(l);
      BufferRequest r;
      r.name = entry.name;
      r.bytes = graph.memories[buf.memory].bytes;
      r.first_step = v.used() ? std::min(v.first_write, v.first_read) : 0;
      r.last_step = v.used() ? v.last_use : 0;
      // Untouched memory is never allocated (SyncedMemory is lazy): plan it
      // as pinned with no bytes in the shared arena.
      r.shareable = !buf.pinned && v.used();
      requests_of[g].push_back(static_cast<int>(out.requests.size()));
      out.buffers.push_back(entry);
      out.requests.push_back(r);
    }
  }
  PairInPlace(graph, schedule, groups, requests_of, &out);
  return out;
}

}  // namespace mem
}  // namespace caffe
