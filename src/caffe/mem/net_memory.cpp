#include "caffe/mem/net_memory.hpp"

#include <algorithm>
#include <cstring>
#include <limits>
#include <set>
#include <sstream>

#include "caffe/net.hpp"

namespace caffe {

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

// One use in the dry run; `again` marks a write by a recompute step.
struct Use {
  int step;
  bool write;
  bool again;
};
}  // namespace

template <typename Dtype>
NetMemory<Dtype>::NetMemory(const Net<Dtype>* net,
                            const MemoryOptimizationParameter& param)
    : net_(net), param_(param), num_layers_(0), forward_only_(false) {}

template <typename Dtype>
void NetMemory<Dtype>::StudyLayers() {
  num_layers_ = static_cast<int>(net_->layers().size());
  forward_only_ = net_->phase() == TEST && !net_->force_backward();
  // Genuine writes: a top that is not a view of a bottom's memory (Split,
  // Flatten, Reshape tops are views), or an in-place top (the same blob).
  auto writes = [&](int layer, size_t k) {
    const Blob<Dtype>* top = net_->top_vecs()[layer][k];
    for (const Blob<Dtype>* bottom : net_->bottom_vecs()[layer])
      if (bottom->data() == top->data()) return bottom == top;
    return true;
  };
  auto in_place = [&](int layer, size_t k) {
    const Blob<Dtype>* top = net_->top_vecs()[layer][k];
    for (const Blob<Dtype>* bottom : net_->bottom_vecs()[layer])
      if (bottom == top) return true;
    return false;
  };
  std::map<const SyncedMemory*, int> first, last;  // memory -> layer
  std::set<const SyncedMemory*> kept_as_is;  // written by a layer run once
  recomputable_.assign(num_layers_, false);
  layer_bytes_.assign(num_layers_, 0.0);
  layer_cost_.assign(num_layers_, 0.0);
  for (int i = 0; i < num_layers_; ++i) {
    Layer<Dtype>& layer = *net_->layers()[i];
    bool again = !net_->bottom_ids(i).empty() && layer.Recomputable();
    // An in-place layer on memory a layer run once wrote would apply
    // itself twice: it runs once too.
    for (size_t k = 0; k < net_->top_ids(i).size(); ++k)
      if (in_place(i, k) &&
          kept_as_is.count(net_->top_vecs()[i][k]->data().get()))
        again = false;
    recomputable_[i] = again;
    for (size_t k = 0; k < net_->top_ids(i).size(); ++k) {
      if (!writes(i, k)) continue;
      const Blob<Dtype>* top = net_->top_vecs()[i][k];
      const SyncedMemory* m = top->data().get();
      if (!again) kept_as_is.insert(m);
      if (!first.count(m)) first[m] = i;
      last[m] = i;
      if (!in_place(i, k)) layer_bytes_[i] += top->count() * sizeof(Dtype);
      // Forward work: multiply-adds per output for layers with weights
      // (convolution, inner product), one per output otherwise.
      double per_output = 1;
      if (!layer.blobs().empty() && top->num_axes() > 1 && top->shape(1) > 0)
        per_output = std::max(
            1.0, static_cast<double>(layer.blobs()[0]->count()) /
                     top->shape(1));
      layer_cost_[i] += top->count() * per_output;
    }
  }
  // Bytes that cross each cut: a blob's data from its first writer up to
  // its last forward reader (a later segment's recomputation reads it).
  std::map<const SyncedMemory*, int> last_reader;
  for (int i = 0; i < num_layers_; ++i)
    for (const Blob<Dtype>* bottom : net_->bottom_vecs()[i])
      last_reader[bottom->data().get()] = i;
  std::vector<double> crossing(num_layers_ + 1, 0.0);  // difference array
  for (const auto& f : first) {
    auto r = last_reader.find(f.first);
    if (r == last_reader.end() || r->second <= f.second) continue;
    const double bytes = static_cast<double>(f.first->size());
    crossing[f.second] += bytes;
    crossing[r->second] -= bytes;
  }
  crossing_bytes_.assign(num_layers_, 0.0);
  for (int b = 0; b < num_layers_; ++b)
    crossing_bytes_[b] = (b ? crossing_bytes_[b - 1] : 0.0) + crossing[b];
  // A segment may end after layer b only when no later layer writes memory
  // written at or before b: recomputing the next segment must find its
  // inputs as the forward pass left them.
  std::vector<int> blocked(num_layers_ + 1, 0);  // difference array
  for (const auto& f : first) {
    const int l = last[f.first];
    if (l > f.second) {
      blocked[f.second] += 1;
      blocked[l] -= 1;
    }
  }
  boundary_candidates_.clear();
  int open = 0;
  bool any_recomputable = false;
  for (int b = 0; b + 1 < num_layers_; ++b) {
    open += blocked[b];
    any_recomputable = any_recomputable || recomputable_[b];
    if (open == 0 && any_recomputable) boundary_candidates_.push_back(b);
  }
}

template <typename Dtype>
void NetMemory<Dtype>::SetSegments(const std::vector<int>& boundaries) {
  segments_ = mem::MakeSegments(num_layers_, boundaries);
  schedule_ = mem::MakeSchedule(segments_, recomputable_);
  forward_step_.assign(num_layers_, -1);
  recompute_step_.assign(num_layers_, -1);
  backward_step_.assign(num_layers_, -1);
  segment_of_.assign(num_layers_, 0);
  for (size_t s = 0; s < segments_.size(); ++s)
    for (int i = segments_[s].begin; i <= segments_[s].end; ++i)
      segment_of_[i] = static_cast<int>(s);
  for (size_t s = 0; s < schedule_.size(); ++s) {
    const mem::Step& step = schedule_[s];
    std::vector<int>& at = step.kind == mem::Step::kForward ? forward_step_
                           : step.kind == mem::Step::kRecompute
                               ? recompute_step_
                               : backward_step_;
    at[step.layer] = static_cast<int>(s);
  }
  checkpoints_.clear();
  for (int b : boundaries) {
    // Name the segment's end by the blob that first held its memory.
    const Blob<Dtype>* top = net_->top_vecs()[b].empty()
                                 ? nullptr
                                 : net_->top_vecs()[b][0];
    std::string name = net_->layer_names()[b];
    if (top) {
      for (size_t id = 0; id < net_->blobs().size(); ++id)
        if (net_->blobs()[id]->data() == top->data()) {
          name = net_->blob_names()[id];
          break;
        }
    }
    checkpoints_.push_back(name);
  }
  extra_forward_fraction_ =
      mem::ExtraForwardFraction(segments_, recomputable_, layer_cost_);
}

template <typename Dtype>
void NetMemory<Dtype>::Analyze() {
  buffers_.clear();
  requests_.clear();
  const auto& blobs = net_->blobs();
  std::map<SyncedMemory*, int> index;  // memory -> group
  std::vector<Buffer> groups;
  std::vector<std::vector<Use> > uses;
  auto group_of_blob = [&](int blob_id, bool is_diff) {
    const shared_ptr<Blob<Dtype> >& blob = blobs[blob_id];
    SyncedMemory* m = is_diff ? blob->diff().get() : blob->data().get();
    auto it = index.find(m);
    if (it == index.end()) {
      Buffer b;
      b.memory = m;
      b.is_diff = is_diff;
      b.name = net_->blob_names()[blob_id] + (is_diff ? "(diff)" : "");
      it = index.emplace(m, static_cast<int>(groups.size())).first;
      groups.push_back(b);
      uses.emplace_back();
    }
    Buffer& b = groups[it->second];
    if (std::find(b.blob_ids.begin(), b.blob_ids.end(), blob_id) ==
        b.blob_ids.end())
      b.blob_ids.push_back(blob_id);
    return it->second;
  };
  std::vector<std::vector<SyncedMemory*> > kept(num_layers_);
  for (int i = 0; i < num_layers_; ++i) {
    net_->layers()[i]->KeptMemory(&kept[i]);
    for (size_t k = 0; k < kept[i].size(); ++k) {
      if (index.count(kept[i][k])) continue;  // never expected
      Buffer b;
      b.memory = kept[i][k];
      b.layer_id = i;
      b.kept_index = static_cast<int>(k);
      b.name = net_->layer_names()[i] + "/kept" + std::to_string(k);
      index.emplace(kept[i][k], static_cast<int>(groups.size()));
      groups.push_back(b);
      uses.emplace_back();
    }
  }

  // The dry run, step by step through the schedule.
  for (int s = 0; s < num_steps(); ++s) {
    const int i = schedule_[s].layer;
    const Layer<Dtype>& layer = *net_->layers()[i];
    const vector<int>& bottoms = net_->bottom_ids(i);
    const vector<int>& tops = net_->top_ids(i);
    switch (schedule_[s].kind) {
      case mem::Step::kForward:
      case mem::Step::kRecompute: {
        const bool again = schedule_[s].kind == mem::Step::kRecompute;
        for (int id : bottoms) uses[group_of_blob(id, false)].push_back({s, false, false});
        for (size_t k = 0; k < tops.size(); ++k) {
          // A view of a bottom is not a write: running it again must not
          // start a second lifetime of memory it does not fill.
          const Blob<Dtype>* top = net_->top_vecs()[i][k];
          bool view = false;
          for (const Blob<Dtype>* bottom : net_->bottom_vecs()[i])
            if (bottom != top && bottom->data() == top->data()) view = true;
          uses[group_of_blob(tops[k], false)].push_back(
              {s, true, again && !view});
        }
        for (SyncedMemory* m : kept[i]) uses[index[m]].push_back({s, true, again});
        break;
      }
      case mem::Step::kBackward: {
        if (forward_only_ || !net_->layer_need_backward()[i]) break;
        const int reads = layer.BackwardReads();
        for (size_t k = 0; k < bottoms.size(); ++k) {
          if (reads & kReadsBottomData)
            uses[group_of_blob(bottoms[k], false)].push_back({s, false, false});
          if (net_->bottom_need_backward()[i][k])
            uses[group_of_blob(bottoms[k], true)].push_back({s, true, false});
        }
        for (int id : tops) {
          if (reads & kReadsTopData)
            uses[group_of_blob(id, false)].push_back({s, false, false});
          uses[group_of_blob(id, true)].push_back({s, false, false});
        }
        for (SyncedMemory* m : kept[i]) uses[index[m]].push_back({s, false, false});
        break;
      }
    }
  }

  // What must not be shared, and why.
  std::set<int> pinned_blobs;
  std::map<int, std::string> reason;
  auto pin = [&](int blob_id, const std::string& why) {
    if (pinned_blobs.insert(blob_id).second) reason[blob_id] = why;
  };
  for (int id : net_->input_blob_indices()) pin(id, "net input");
  for (int id : net_->output_blob_indices()) pin(id, "net output");
  for (int i = 0; i < num_layers_; ++i) {
    if (net_->bottom_ids(i).empty())
      for (int id : net_->top_ids(i)) pin(id, "data layer top");
  }
  for (size_t id = 0; id < blobs.size(); ++id)
    if (net_->blob_loss_weights().size() > id &&
        net_->blob_loss_weights()[id] != Dtype(0))
      pin(static_cast<int>(id), "loss");
  std::set<std::string> excluded(param_.exclude_blob().begin(),
                                 param_.exclude_blob().end());
  for (size_t id = 0; id < blobs.size(); ++id)
    if (excluded.count(net_->blob_names()[id]))
      pin(static_cast<int>(id), "exclude_blob");
  for (int id : kept_) pin(id, "kept by the caller");

  for (size_t g = 0; g < groups.size(); ++g) {
    Buffer buf = groups[g];
    for (int id : buf.blob_ids) {
      if (pinned_blobs.count(id)) {
        buf.pinned = true;
        buf.pin_reason = reason[id];
        break;
      }
    }
    // A second lifetime starts at the first recompute write; uses are in
    // step order already.
    int again_from = kNever;
    for (const Use& u : uses[g])
      if (u.again) again_from = std::min(again_from, u.step);
    Uses life[2];
    for (const Use& u : uses[g]) {
      const int l = (!buf.pinned && u.step >= again_from) ? 1 : 0;
      if (u.write) {
        life[l].Write(u.step);
      } else {
        life[l].Read(u.step);
      }
    }
    const Uses& u = life[0];
    if (!buf.pinned && u.used() && u.first_read <= u.first_write) {
      // Read before anything wrote it: it must keep its zero fill.
      buf.pinned = true;
      buf.pin_reason = "read before written";
    }
    if (!buf.pinned && buf.is_diff && !param_.share_diff()) {
      buf.pinned = true;
      buf.pin_reason = "share_diff: false";
    }
    const bool used = u.used() || life[1].used();
    if (!used && !buf.pinned) {
      buf.pinned = true;
      buf.pin_reason = "never used";
    }
    if (buf.pinned && life[1].used()) {
      // Pinned memory keeps one place: merge the lifetimes.
      life[0].Write(life[1].first_write);
      life[0].Read(life[1].last_use);
      life[1] = Uses();
    }
    for (int l = 0; l < 2; ++l) {
      if (l == 1 && !life[1].used()) break;
      const Uses& v = life[l];
      Buffer entry = buf;
      entry.lifetime = l;
      if (l == 1) entry.name += "@recompute";
      mem::BufferRequest r;
      r.name = entry.name;
      r.bytes = buf.memory->size();
      r.first_step = v.used() ? std::min(v.first_write, v.first_read) : 0;
      r.last_step = v.used() ? v.last_use : 0;
      // Untouched memory is never allocated (SyncedMemory is lazy): plan it
      // as pinned with no bytes in the shared arena.
      r.shareable = !buf.pinned && v.used();
      buffers_.push_back(entry);
      requests_.push_back(r);
    }
  }
}

template <typename Dtype>
size_t NetMemory<Dtype>::PlannedBytes(const std::vector<int>& boundaries) {
  SetSegments(boundaries);
  Analyze();
  return mem::MakePlan(requests_, param_.level()).total_bytes();
}

template <typename Dtype>
std::vector<int> NetMemory<Dtype>::ChooseBoundaries() {
  const RecomputeParameter& rp = param_.recompute();
  if (forward_only_ || !param_.has_recompute()) return {};
  std::vector<int> boundaries;
  if (rp.checkpoint_size() > 0) {
    for (const std::string& name : rp.checkpoint()) {
      // Names of the other phase only were warned about (mem_param_check).
      if (!net_->has_blob(name)) continue;
      const SyncedMemory* m = net_->blob_by_name(name)->data().get();
      // The segment ends after the last layer that writes or views it.
      int end = -1;
      for (int i = 0; i < num_layers_; ++i)
        for (const Blob<Dtype>* top : net_->top_vecs()[i])
          if (top->data().get() == m) end = i;
      CAFFE_CHECK_GE(end, 0) << "mem_param.recompute.checkpoint '" << name
                             << "' is not produced by any layer";
      if (end >= num_layers_ - 1) continue;  // nothing after it to cut
      CAFFE_CHECK(std::binary_search(boundary_candidates_.begin(),
                                     boundary_candidates_.end(), end))
          << "mem_param.recompute.checkpoint '" << name << "' cannot end a "
          << "segment: a layer after '" << net_->layer_names()[end]
          << "' writes in place into memory written before it, or no "
          << "layer before it can run twice; choose a blob after the "
          << "in-place chain";
      boundaries.push_back(end);
    }
    std::sort(boundaries.begin(), boundaries.end());
    boundaries.erase(std::unique(boundaries.begin(), boundaries.end()),
                     boundaries.end());
    return boundaries;
  }
  switch (rp.auto_()) {
    case RecomputeParameter_Auto_NONE:
      return {};
    case RecomputeParameter_Auto_SQRT: {
      // Small nets can need more with segments than without (the kept
      // inputs outweigh the interiors): then recompute nothing.
      const std::vector<int> b = mem::BestSublinearBoundaries(
          boundary_candidates_, layer_bytes_, crossing_bytes_,
          [this](const std::vector<int>& c) { return PlannedBytes(c); });
      if (b.empty())
        LOG(INFO) << "mem_param.recompute: no segments lower the planned "
                  << "peak of net '" << net_->name()
                  << "'; nothing is recomputed";
      return b;
    }
    case RecomputeParameter_Auto_BUDGET: {
      CAFFE_CHECK(rp.has_memory_budget_mb() && rp.memory_budget_mb() > 0)
          << "mem_param.recompute: auto: BUDGET needs memory_budget_mb > 0";
      const size_t budget =
          static_cast<size_t>(rp.memory_budget_mb() * 1024.0 * 1024.0);
      const mem::BudgetResult r = mem::FitBudget(
          boundary_candidates_, layer_bytes_, budget,
          [this](const std::vector<int>& b) { return PlannedBytes(b); });
      CAFFE_CHECK(r.fits)
          << "mem_param.recompute: no recomputation plan of net '"
          << net_->name() << "' fits memory_budget_mb: "
          << rp.memory_budget_mb() << "; the smallest planned peak found is "
          << r.smallest_peak / (1024.0 * 1024.0)
          << " MB (activations, gradients and layer buffers at level "
          << param_.level() << "); set memory_budget_mb to at least that";
      return r.boundaries;
    }
  }
  return {};
}

template <typename Dtype>
void NetMemory<Dtype>::PlanAndApply() {
  StudyLayers();
  std::vector<int> boundaries = ChooseBoundaries();
  if (!boundaries.empty()) bytes_without_recompute_ = PlannedBytes({});
  SetSegments(boundaries);
  Analyze();
  plan_ = mem::MakePlan(requests_, param_.level());
  // "Unshared" is what Caffe 1.0 would allocate: each buffer once, not
  // once per lifetime.
  for (size_t i = 0; i < buffers_.size(); ++i)
    if (buffers_[i].lifetime == 1)
      plan_.unshared_bytes -= mem::AlignUp(requests_[i].bytes);
  if (boundaries.empty()) bytes_without_recompute_ = plan_.total_bytes();
  if (param_.check()) {
    const std::string err = mem::CheckPlan(requests_, plan_);
    CAFFE_CHECK(err.empty()) << "memory plan is unsound: " << err;
  }
  Apply();
}

template <typename Dtype>
void NetMemory<Dtype>::Apply() {
  // Memories keep the bytes they point into alive (keepers), so the old
  // arena or pool goes once nothing points into it any more.
  slots_.clear();
  dying_at_step_.assign(num_steps(), std::vector<int>());
  born_at_step_.assign(num_steps(), std::vector<int>());
  repoint_at_step_.assign(num_steps(), std::vector<int>());
  dynamic_ = param_.release() == MemoryOptimizationParameter_Release_DYNAMIC;
  free_blocks_.clear();
  held_.clear();
  block_owner_.clear();
  pool_bytes_ = 0;
  address_.assign(requests_.size(), nullptr);
  keeper_.assign(requests_.size(), nullptr);
  detached_.assign(requests_.size(), false);
  detached_bytes_ = 0;
  MakeNotes();
  for (size_t i = 0; i < requests_.size(); ++i) {
    if (!requests_[i].shareable || requests_[i].bytes == 0) continue;
    born_at_step_[requests_[i].first_step].push_back(static_cast<int>(i));
    if (requests_[i].last_step < num_steps())
      dying_at_step_[requests_[i].last_step].push_back(static_cast<int>(i));
  }
  if (!dynamic_) {
    // Only slots that hold shared buffers are allocated by the plan; pinned
    // buffers keep their own (lazily allocated) SyncedMemory.
    std::vector<bool> slot_used(plan_.slot_bytes.size(), false);
    for (size_t i = 0; i < requests_.size(); ++i)
      if (requests_[i].shareable) slot_used[plan_.placements[i].slot] = true;
    slots_.resize(plan_.slot_bytes.size());
    for (size_t s = 0; s < plan_.slot_bytes.size(); ++s) {
      if (!slot_used[s] || plan_.slot_bytes[s] == 0) continue;
      void* p = nullptr;
      CaffeMallocHost(&p, plan_.slot_bytes[s]);
      slots_[s] = std::shared_ptr<char>(static_cast<char*>(p), CaffeFreeHost);
    }
    std::set<SyncedMemory*> two_lives;
    for (const Buffer& b : buffers_)
      if (b.lifetime == 1) two_lives.insert(b.memory);
    for (size_t i = 0; i < requests_.size(); ++i) {
      if (!requests_[i].shareable || requests_[i].bytes == 0) continue;
      const mem::Placement& pl = plan_.placements[i];
      address_[i] = slots_[pl.slot].get() + pl.offset;
      keeper_[i] = slots_[pl.slot];
      // A buffer with a recomputed lifetime moves between its two places.
      if (two_lives.count(buffers_[i].memory))
        repoint_at_step_[requests_[i].first_step].push_back(
            static_cast<int>(i));
      if (buffers_[i].lifetime == 0)
        buffers_[i].memory->set_cpu_data(address_[i], keeper_[i]);
    }
    FindOverlaps();
  }
  ReleaseUnplaced();
  // Nothing has computed a shared buffer in its new place yet (DYNAMIC: it
  // may still point into the old pool, at bytes of another size).
  for (size_t i = 0; i < requests_.size(); ++i)
    if (requests_[i].shareable && requests_[i].bytes > 0 &&
        buffers_[i].lifetime == 0 && marks_not_readable_)
      buffers_[i].memory->MarkNotReadable(note_[i], not_computed_cause_);
  DetachRequested();
}

template <typename Dtype>
void NetMemory<Dtype>::ReleaseUnplaced() {
  // A buffer an earlier plan (or a request) placed that this plan does not
  // share -- newly pinned by KeepBlobs, say -- must not keep pointing into
  // the old arena, where other such buffers may overlap it.  Bytes with a
  // keeper are ones a NetMemory placed.
  std::set<SyncedMemory*> shared;
  for (size_t i = 0; i < requests_.size(); ++i)
    if (requests_[i].shareable && requests_[i].bytes > 0)
      shared.insert(buffers_[i].memory);
  auto release = [&](SyncedMemory* m) {
    if (m && m->cpu_keeper() && !shared.count(m)) m->release_cpu_data();
  };
  for (const shared_ptr<Blob<Dtype> >& blob : net_->blobs()) {
    release(blob->data().get());
    release(blob->diff().get());
  }
  for (const Buffer& b : buffers_) release(b.memory);
}

template <typename Dtype>
void NetMemory<Dtype>::MakeNotes() {
  const std::string phase_switch =
      net_->phase() == TRAIN ? "optimize_train" : "optimize_test";
  note_.assign(requests_.size(), nullptr);
  reuse_cause_.assign(requests_.size(), nullptr);
  for (size_t i = 0; i < requests_.size(); ++i) {
    const Buffer& b = buffers_[i];
    auto note = std::make_shared<SyncedMemory::NotReadableNote>();
    std::string name;
    if (b.layer_id >= 0) {
      note->subject = "layer '" + net_->layer_names()[b.layer_id] +
                      "' kept memory " + std::to_string(b.kept_index) +
                      " is not readable: ";
      name = net_->layer_names()[b.layer_id];
    } else {
      name = net_->blob_names()[b.blob_ids[0]];
      note->subject = "blob '" + name + "'" + (b.is_diff ? " diff" : "") +
                      " is not readable: ";
    }
    note->fix = "Add exclude_blob: \"" + name + "\" to mem_param, keep it " +
                "(Net::KeepBlobs, pycaffe net.keep, matcaffe net.keep) or " +
                "ask for it in the pass (pycaffe forward(blobs=...), " +
                "backward(diffs=...)), or set " + phase_switch + ": false.";
    note_[i] = note;
    reuse_cause_[i] = std::make_shared<const std::string>(
        "its memory is reused by '" + b.name +
        "' after its last use (mem_param). ");
  }
  not_computed_cause_ = std::make_shared<const std::string>(
      "nothing has computed it since mem_param placed its memory; run the "
      "pass that computes it first. ");
  poisoned_cause_ = std::make_shared<const std::string>(
      "mem_param check mode filled its memory with NaN after its last use. ");
}

template <typename Dtype>
void NetMemory<Dtype>::FindOverlaps() {
  // Requests by slot, sorted by offset: overlapping ones are neighbours
  // within the largest size seen so far.
  overlaps_.assign(requests_.size(), std::vector<int>());
  std::map<int, std::vector<int> > by_slot;
  for (size_t i = 0; i < requests_.size(); ++i)
    if (address_[i]) by_slot[plan_.placements[i].slot].push_back(static_cast<int>(i));
  for (auto& entry : by_slot) {
    std::vector<int>& ids = entry.second;
    std::sort(ids.begin(), ids.end(), [this](int a, int b) {
      return address_[a] < address_[b];
    });
    for (size_t x = 0; x < ids.size(); ++x) {
      const int i = ids[x];
      const char* end_i = address_[i] + requests_[i].bytes;
      for (size_t y = x + 1; y < ids.size() && address_[ids[y]] < end_i; ++y) {
        const int j = ids[y];
        if (buffers_[i].memory == buffers_[j].memory) continue;
        overlaps_[i].push_back(j);
        overlaps_[j].push_back(i);
      }
    }
  }
}

template <typename Dtype>
void NetMemory<Dtype>::MarkIfAt(
    int r, const char* place, const std::shared_ptr<const std::string>& cause) {
  if (!marks_not_readable_ || detached_[r]) return;
  SyncedMemory* m = buffers_[r].memory;
  if (m->cpu_ptr() == place) m->MarkNotReadable(note_[r], cause);
}

template <typename Dtype>
bool NetMemory<Dtype>::StillApplied() const {
  const auto& blobs = net_->blobs();
  // A layer's kept memory changes when Reshape grows or drops it.
  std::map<SyncedMemory*, size_t> planned_kept;  // memory -> planned bytes
  for (size_t i = 0; i < buffers_.size(); ++i)
    if (buffers_[i].layer_id >= 0)
      planned_kept[buffers_[i].memory] = requests_[i].bytes;
  size_t kept_now = 0;
  for (int i = 0; i < num_layers_; ++i) {
    vector<SyncedMemory*> kept;
    net_->layers()[i]->KeptMemory(&kept);
    for (SyncedMemory* m : kept) {
      auto it = planned_kept.find(m);
      if (it == planned_kept.end() || it->second != m->size()) return false;
      ++kept_now;
    }
  }
  if (kept_now != planned_kept.size()) return false;
  for (size_t i = 0; i < buffers_.size(); ++i) {
    for (int id : buffers_[i].blob_ids) {
      SyncedMemory* m = buffers_[i].is_diff ? blobs[id]->diff().get()
                                            : blobs[id]->data().get();
      if (m != buffers_[i].memory || m->size() != requests_[i].bytes)
        return false;
    }
  }
  return true;
}

template <typename Dtype>
void NetMemory<Dtype>::Poison(int request_index) {
  const size_t count = requests_[request_index].bytes / sizeof(Dtype);
  Dtype* p = static_cast<Dtype*>(buffers_[request_index].memory->mutable_cpu_data());
  std::fill(p, p + count, std::numeric_limits<Dtype>::quiet_NaN());
  MarkIfAt(request_index, address_[request_index], poisoned_cause_);
}

template <typename Dtype>
void NetMemory<Dtype>::BeforeStep(int step) {
  if (step < 0 || step >= num_steps()) return;
  if (!dynamic_) {
    for (int r : repoint_at_step_[step]) {
      if (detached_[r]) continue;
      buffers_[r].memory->set_cpu_data(address_[r], keeper_[r]);
      MarkIfAt(r, address_[r], not_computed_cause_);
    }
    // Whatever shares bytes with a buffer starting now is overwritten.
    for (int r : born_at_step_[step]) {
      if (detached_[r]) continue;
      for (int j : overlaps_[r]) MarkIfAt(j, address_[j], reuse_cause_[r]);
    }
    return;
  }
  for (int r : born_at_step_[step]) {
    if (detached_[r] || held_.count(r)) continue;  // a partial pass may repeat a step
    const size_t bytes = mem::AlignUp(requests_[r].bytes);
    auto it = free_blocks_.lower_bound(bytes);  // best fit
    std::shared_ptr<char> block;
    if (it != free_blocks_.end()) {
      block = it->second;
      free_blocks_.erase(it);
      // The block's last holder is marked if it still points at it (it may
      // have been given another block since).
      auto owner = block_owner_.find(block.get());
      if (owner != block_owner_.end())
        MarkIfAt(owner->second, block.get(), reuse_cause_[r]);
    } else {
      void* p = nullptr;
      CaffeMallocHost(&p, bytes);
      block = std::shared_ptr<char>(static_cast<char*>(p), CaffeFreeHost);
      slots_.push_back(block);
      pool_bytes_ += bytes;
    }
    block_owner_[block.get()] = r;
    held_[r] = block;
    address_[r] = block.get();
    keeper_[r] = block;
    buffers_[r].memory->set_cpu_data(block.get(), block);
    MarkIfAt(r, address_[r], not_computed_cause_);
  }
}

template <typename Dtype>
void NetMemory<Dtype>::ReleaseHeld(int r) {
  auto it = held_.find(r);
  if (it == held_.end()) return;
  // The block's size is its request's, aligned (see BeforeStep).
  free_blocks_.emplace(mem::AlignUp(requests_[r].bytes), it->second);
  held_.erase(it);
}

template <typename Dtype>
void NetMemory<Dtype>::AfterStep(int step) {
  if (step < 0 || step >= num_steps()) return;
  if (param_.check())
    for (int r : dying_at_step_[step])
      if (buffers_[r].layer_id < 0 && !detached_[r]) Poison(r);
  if (!dynamic_) return;
  for (int r : dying_at_step_[step]) ReleaseHeld(r);
}

template <typename Dtype>
void NetMemory<Dtype>::SetKept(const std::set<int>& blob_ids) {
  if (blob_ids == kept_) return;
  kept_ = blob_ids;
  PlanAndApply();
}

template <typename Dtype>
void NetMemory<Dtype>::Request(const std::set<int>& blob_ids, bool diff) {
  requested_[diff ? 1 : 0] = blob_ids;
  DetachRequested();
}

template <typename Dtype>
void NetMemory<Dtype>::DetachRequested() {
  for (int diff = 0; diff < 2; ++diff)
    for (int id : requested_[diff])
      Detach(diff ? net_->blobs()[id]->diff().get()
                  : net_->blobs()[id]->data().get());
}

template <typename Dtype>
void NetMemory<Dtype>::Detach(SyncedMemory* memory) {
  // Every lifetime of this memory leaves the plan: nothing marks, moves,
  // poisons or pools it any more.  Its live value, if readable, is kept.
  int first = -1;
  for (size_t i = 0; i < buffers_.size(); ++i) {
    if (buffers_[i].memory != memory || !requests_[i].shareable ||
        requests_[i].bytes == 0 || detached_[i])
      continue;
    if (first < 0) first = static_cast<int>(i);
    detached_[i] = true;
    if (dynamic_) ReleaseHeld(static_cast<int>(i));  // still kept by memory
  }
  if (first < 0) return;  // pinned, or detached already
  const bool readable = memory->readable() && memory->cpu_ptr() != nullptr;
  void* p = nullptr;
  CaffeMallocHost(&p, memory->size());
  std::shared_ptr<char> own(static_cast<char*>(p), CaffeFreeHost);
  if (readable) std::memcpy(p, memory->cpu_ptr(), memory->size());
  memory->set_cpu_data(p, own);
  if (!readable && marks_not_readable_)
    memory->MarkNotReadable(note_[first], not_computed_cause_);
  detached_bytes_ += mem::AlignUp(memory->size());
}

template <typename Dtype>
void NetMemory<Dtype>::LogPlan() const {
  LOG(INFO) << "Memory plan (level " << plan_.level << ", "
            << (dynamic_ ? "DYNAMIC" : "STATIC") << "), steps 0-"
            << num_steps() - 1 << ":";
  for (size_t i = 0; i < requests_.size(); ++i) {
    const mem::BufferRequest& r = requests_[i];
    std::ostringstream s;
    s << "  " << r.name << ": " << r.bytes << " bytes, steps "
      << r.first_step << "-" << r.last_step;
    if (buffers_[i].pinned) {
      s << ", own memory (" << buffers_[i].pin_reason << ")";
    } else {
      s << ", slot " << plan_.placements[i].slot << " offset "
        << plan_.placements[i].offset;
    }
    LOG(INFO) << s.str();
  }
  LOG(INFO) << "  total " << plan_.total_bytes() << " bytes (shared "
            << plan_.shared_bytes << ", pinned " << plan_.pinned_bytes
            << "); unshared " << plan_.unshared_bytes << "; lower bound "
            << plan_.lower_bound;
}

INSTANTIATE_CLASS(NetMemory);

}  // namespace caffe
