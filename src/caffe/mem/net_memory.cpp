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

// Read/write steps gathered for one buffer during the dry run.
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
}  // namespace

template <typename Dtype>
NetMemory<Dtype>::NetMemory(const Net<Dtype>* net,
                            const MemoryOptimizationParameter& param)
    : net_(net), param_(param), num_layers_(0), forward_only_(false) {}

template <typename Dtype>
void NetMemory<Dtype>::Analyze() {
  buffers_.clear();
  requests_.clear();
  num_layers_ = static_cast<int>(net_->layers().size());
  forward_only_ = net_->phase() == TEST;
  const auto& blobs = net_->blobs();
  std::map<SyncedMemory*, int> index;  // memory -> buffer id
  std::vector<Uses> uses;
  auto buffer_of = [&](int blob_id, bool is_diff) {
    const shared_ptr<Blob<Dtype> >& blob = blobs[blob_id];
    SyncedMemory* m = is_diff ? blob->diff().get() : blob->data().get();
    auto it = index.find(m);
    if (it == index.end()) {
      Buffer b;
      b.memory = m;
      b.is_diff = is_diff;
      b.name = net_->blob_names()[blob_id] + (is_diff ? "(diff)" : "");
      it = index.emplace(m, static_cast<int>(buffers_.size())).first;
      buffers_.push_back(b);
      uses.emplace_back();
    }
    Buffer& b = buffers_[it->second];
    if (std::find(b.blob_ids.begin(), b.blob_ids.end(), blob_id) ==
        b.blob_ids.end())
      b.blob_ids.push_back(blob_id);
    return it->second;
  };

  // The dry run.
  for (int i = 0; i < num_layers_; ++i) {
    const Layer<Dtype>& layer = *net_->layers()[i];
    const int reads = layer.BackwardReads();
    const bool backward = !forward_only_ && net_->layer_need_backward()[i];
    const int f = ForwardStep(i), b = BackwardStep(i);
    const vector<int>& bottoms = net_->bottom_ids(i);
    const vector<int>& tops = net_->top_ids(i);
    for (size_t k = 0; k < bottoms.size(); ++k) {
      uses[buffer_of(bottoms[k], false)].Read(f);
      if (backward && (reads & kReadsBottomData))
        uses[buffer_of(bottoms[k], false)].Read(b);
      if (backward && net_->bottom_need_backward()[i][k])
        uses[buffer_of(bottoms[k], true)].Write(b);
    }
    for (size_t k = 0; k < tops.size(); ++k) {
      uses[buffer_of(tops[k], false)].Write(f);
      if (backward && (reads & kReadsTopData))
        uses[buffer_of(tops[k], false)].Read(b);
      if (backward) uses[buffer_of(tops[k], true)].Read(b);
    }
  }

  // Each layer's kept memory: written by its forward, read by its backward.
  for (int i = 0; i < num_layers_; ++i) {
    vector<SyncedMemory*> kept;
    net_->layers()[i]->KeptMemory(&kept);
    const bool backward = !forward_only_ && net_->layer_need_backward()[i];
    for (size_t k = 0; k < kept.size(); ++k) {
      if (index.count(kept[k])) continue;  // already planned (never expected)
      Buffer b;
      b.memory = kept[k];
      b.layer_id = i;
      b.kept_index = static_cast<int>(k);
      b.name = net_->layer_names()[i] + "/kept" + std::to_string(k);
      index.emplace(kept[k], static_cast<int>(buffers_.size()));
      buffers_.push_back(b);
      uses.emplace_back();
      uses.back().Write(ForwardStep(i));
      if (backward) uses.back().Read(BackwardStep(i));
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

  for (size_t i = 0; i < buffers_.size(); ++i) {
    Buffer& buf = buffers_[i];
    for (int id : buf.blob_ids) {
      if (pinned_blobs.count(id)) {
        buf.pinned = true;
        buf.pin_reason = reason[id];
        break;
      }
    }
    const Uses& u = uses[i];
    if (!buf.pinned && u.used() && u.first_read <= u.first_write) {
      // Read before anything wrote it: it must keep its zero fill.
      buf.pinned = true;
      buf.pin_reason = "read before written";
    }
    if (!buf.pinned && buf.is_diff && !param_.share_diff()) {
      buf.pinned = true;
      buf.pin_reason = "share_diff: false";
    }
    mem::BufferRequest r;
    r.name = buf.name;
    r.bytes = buf.memory->size();
    r.first_step = u.used() ? std::min(u.first_write, u.first_read) : 0;
    r.last_step = u.used() ? u.last_use : 0;
    // Untouched memory is never allocated (SyncedMemory is lazy): plan it
    // as pinned with no bytes in the shared arena.
    r.shareable = !buf.pinned && u.used();
    if (!u.used() && !buf.pinned) {
      buf.pinned = true;
      buf.pin_reason = "never used";
    }
    requests_.push_back(r);
  }
}

template <typename Dtype>
void NetMemory<Dtype>::PlanAndApply() {
  Analyze();
  plan_ = mem::MakePlan(requests_, param_.level());
  if (param_.check()) {
    const std::string err = mem::CheckPlan(requests_, plan_);
    CAFFE_CHECK(err.empty()) << "memory plan is unsound: " << err;
  }
  Apply();
}

template <typename Dtype>
void NetMemory<Dtype>::Apply() {
  // Blobs may still point into blocks of a DYNAMIC pool until their next
  // BeforeStep: keep those blocks alive.
  if (dynamic_)
    retired_.insert(retired_.end(), slots_.begin(), slots_.end());
  slots_.clear();
  applied_.clear();
  dying_at_step_.assign(num_steps(), std::vector<int>());
  born_at_step_.assign(num_steps(), std::vector<int>());
  dynamic_ = param_.release() == MemoryOptimizationParameter_Release_DYNAMIC;
  free_blocks_.clear();
  held_.clear();
  block_owner_.clear();
  reused_by_.clear();
  pool_bytes_ = 0;
  if (dynamic_) {
    for (size_t i = 0; i < requests_.size(); ++i) {
      if (!requests_[i].shareable || requests_[i].bytes == 0) continue;
      born_at_step_[requests_[i].first_step].push_back(static_cast<int>(i));
      dying_at_step_[requests_[i].last_step].push_back(static_cast<int>(i));
    }
    return;
  }
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
  for (size_t i = 0; i < requests_.size(); ++i) {
    if (!requests_[i].shareable || requests_[i].bytes == 0) continue;
    const mem::Placement& pl = plan_.placements[i];
    buffers_[i].memory->set_cpu_data(slots_[pl.slot].get() + pl.offset);
    applied_.push_back({buffers_[i].memory, static_cast<int>(i)});
    if (requests_[i].last_step < num_steps())
      dying_at_step_[requests_[i].last_step].push_back(static_cast<int>(i));
  }
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
}

template <typename Dtype>
void NetMemory<Dtype>::BeforeStep(int step) {
  if (!dynamic_ || step < 0 || step >= num_steps()) return;
  for (int r : born_at_step_[step]) {
    if (held_.count(r)) continue;  // a partial pass may repeat a step
    const size_t bytes = mem::AlignUp(requests_[r].bytes);
    auto it = free_blocks_.lower_bound(bytes);  // best fit
    char* block;
    size_t size;
    if (it != free_blocks_.end()) {
      block = it->second;
      size = it->first;
      free_blocks_.erase(it);
      auto owner = block_owner_.find(block);
      if (owner != block_owner_.end()) reused_by_[owner->second] = r;
    } else {
      void* p = nullptr;
      CaffeMallocHost(&p, bytes);
      slots_.push_back(std::shared_ptr<char>(static_cast<char*>(p),
                                             CaffeFreeHost));
      block = slots_.back().get();
      size = bytes;
      pool_bytes_ += bytes;
    }
    block_owner_[block] = r;
    held_[r] = {block, size};
    buffers_[r].memory->set_cpu_data(block);
  }
}

template <typename Dtype>
void NetMemory<Dtype>::AfterStep(int step) {
  if (step < 0 || step >= num_steps()) return;
  if (param_.check())
    for (int r : dying_at_step_[step])
      if (buffers_[r].layer_id < 0) Poison(r);
  if (!dynamic_) return;
  for (int r : dying_at_step_[step]) {
    auto it = held_.find(r);
    if (it == held_.end()) continue;
    free_blocks_.emplace(it->second.second, it->second.first);
    held_.erase(it);
  }
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

template <typename Dtype>
std::string NetMemory<Dtype>::ReadableError(int blob_id) const {
  if (dynamic_) {
    for (size_t i = 0; i < buffers_.size(); ++i) {
      const Buffer& b = buffers_[i];
      if (b.is_diff || !requests_[i].shareable) continue;
      if (std::find(b.blob_ids.begin(), b.blob_ids.end(), blob_id) ==
          b.blob_ids.end())
        continue;
      auto it = reused_by_.find(static_cast<int>(i));
      if (it == reused_by_.end()) return "";
      return "blob '" + net_->blob_names()[blob_id] +
             "' is not readable: its memory is reused by '" +
             buffers_[it->second].name +
             "' after its last use (mem_param). Add exclude_blob: \"" +
             net_->blob_names()[blob_id] + "\" to mem_param to keep it.";
    }
    return "";
  }
  for (size_t i = 0; i < buffers_.size(); ++i) {
    const Buffer& b = buffers_[i];
    if (b.is_diff || !requests_[i].shareable) continue;
    if (std::find(b.blob_ids.begin(), b.blob_ids.end(), blob_id) ==
        b.blob_ids.end())
      continue;
    // Which later buffer reuses (part of) this memory?
    const mem::Placement& pi = plan_.placements[i];
    const size_t bi = requests_[i].bytes;
    for (size_t j = 0; j < buffers_.size(); ++j) {
      if (j == i || !requests_[j].shareable) continue;
      const mem::Placement& pj = plan_.placements[j];
      if (pj.slot != pi.slot) continue;
      if (requests_[j].first_step <= requests_[i].last_step) continue;
      const size_t bj = requests_[j].bytes;
      if (pi.offset < pj.offset + bj && pj.offset < pi.offset + bi) {
        return "blob '" + net_->blob_names()[blob_id] +
               "' is not readable: its memory is reused by '" +
               buffers_[j].name +
               "' after its last use (mem_param). Add exclude_blob: \"" +
               net_->blob_names()[blob_id] +
               "\" to mem_param to keep it, or set optimize_" +
               (net_->phase() == TRAIN ? "train" : "test") + ": false.";
      }
    }
  }
  return "";
}

INSTANTIATE_CLASS(NetMemory);

}  // namespace caffe
