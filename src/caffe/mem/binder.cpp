#include "caffe/mem/binder.hpp"

#include <map>
#include <set>

namespace caffe {
namespace mem {

Binder::Binder(MemoryResource* resource)
    : resource_(resource), device_(resource->on_device()), pool_(resource) {}

void Binder::Bind(const Binding& binding) {
  b_ = binding;
  const size_t n = b_.requests.size();
  if (b_.scratch.empty()) b_.scratch.assign(n, false);
  CAFFE_INTERNAL_CHECK(b_.memory.size() == n && b_.lifetime.size() == n &&
                       b_.kept.size() == n && b_.scratch.size() == n &&
                       b_.plan.placements.size() == n &&
                       b_.notes.note.size() == n)
      << "binding with mismatched lists";
  // The old arena or pool lives on in the memories' keepers until each
  // memory is pointed elsewhere.
  slots_.clear();
  arena_bytes_ = 0;
  pool_.Clear();
  born_at_.assign(b_.num_steps, std::vector<int>());
  dying_at_.assign(b_.num_steps, std::vector<int>());
  repoint_at_.assign(b_.num_steps, std::vector<int>());
  address_.assign(n, nullptr);
  keeper_.assign(n, nullptr);
  overlaps_.assign(n, std::vector<int>());
  detached_.assign(n, false);
  detached_bytes_ = 0;
  for (size_t i = 0; i < n; ++i) {
    const BufferRequest& r = b_.requests[i];
    if (!r.shareable || r.bytes == 0) continue;
    CAFFE_INTERNAL_CHECK(r.first_step >= 0 && r.first_step < b_.num_steps)
        << "request '" << r.name << "' starts outside the schedule";
    born_at_[r.first_step].push_back(static_cast<int>(i));
    if (r.last_step < b_.num_steps)
      dying_at_[r.last_step].push_back(static_cast<int>(i));
  }
  if (!b_.dynamic) BindStatic();
  ReleaseUnplaced();
  // Scratch is placed by its steps only (a failed step may have left one
  // pointing into an older plan).
  for (size_t i = 0; i < n; ++i)
    if (b_.scratch[i] && b_.memory[i]->placed_keeper(device_))
      b_.memory[i]->ReleasePlaced(device_);
  // Nothing has computed a shared buffer in its new place yet (DYNAMIC: it
  // may still point into the old pool, at bytes of another size).
  for (size_t i = 0; i < n; ++i)
    if (b_.requests[i].shareable && b_.requests[i].bytes > 0 &&
        b_.lifetime[i] == 0 && !b_.scratch[i] && marks_)
      b_.memory[i]->MarkNotReadable(b_.notes.note[i], b_.notes.not_computed);
}

void Binder::BindStatic() {
  // Only slots holding shared buffers are allocated; pinned buffers keep
  // their own (lazily allocated) SyncedMemory.
  const std::vector<size_t>& slot_bytes = b_.plan.slot_bytes;
  std::vector<bool> slot_used(slot_bytes.size(), false);
  for (size_t i = 0; i < b_.requests.size(); ++i)
    if (b_.requests[i].shareable)
      slot_used[b_.plan.placements[i].slot] = true;
  slots_.resize(slot_bytes.size());
  for (size_t s = 0; s < slot_bytes.size(); ++s) {
    if (!slot_used[s] || slot_bytes[s] == 0) continue;
    slots_[s] = Shared(resource_, slot_bytes[s]);
    arena_bytes_ += slot_bytes[s];
  }
  std::set<SyncedMemory*> two_lives;
  for (size_t i = 0; i < b_.requests.size(); ++i)
    if (b_.lifetime[i] >= 1) two_lives.insert(b_.memory[i]);
  for (size_t i = 0; i < b_.requests.size(); ++i) {
    const BufferRequest& r = b_.requests[i];
    if (!r.shareable || r.bytes == 0) continue;
    const Placement& pl = b_.plan.placements[i];
    address_[i] = slots_[pl.slot].get() + pl.offset;
    keeper_[i] = slots_[pl.slot];
    // A buffer with recomputed lifetimes moves between their places;
    // scratch is placed at each of its steps only.
    if (two_lives.count(b_.memory[i]) || b_.scratch[i])
      repoint_at_[r.first_step].push_back(static_cast<int>(i));
    if (b_.lifetime[i] == 0 && !b_.scratch[i])
      b_.memory[i]->Place(device_, address_[i], keeper_[i]);
  }
  std::vector<int> memory_of(b_.requests.size());
  std::map<SyncedMemory*, int> id;
  for (size_t i = 0; i < b_.requests.size(); ++i)
    memory_of[i] =
        id.emplace(b_.memory[i], static_cast<int>(id.size())).first->second;
  overlaps_ = OverlapsInPlan(memory_of, b_.requests, b_.plan);
}

void Binder::ReleaseUnplaced() {
  // A memory an earlier binding (or a detach) placed that this plan does
  // not share -- newly pinned by KeepBlobs, say -- must not keep pointing
  // into the old arena, where other such buffers may overlap it.  Bytes
  // with a keeper are ones a binder placed.
  std::set<SyncedMemory*> shared;
  for (size_t i = 0; i < b_.requests.size(); ++i)
    if (b_.requests[i].shareable && b_.requests[i].bytes > 0)
      shared.insert(b_.memory[i]);
  auto release = [&](SyncedMemory* m) {
    if (m && m->placed_keeper(device_) && !shared.count(m))
      m->ReleasePlaced(device_);
  };
  for (SyncedMemory* m : b_.all_memories) release(m);
  for (SyncedMemory* m : b_.memory) release(m);
}

void Binder::Mark(int r, const char* place,
                  const std::shared_ptr<const std::string>& cause) {
  if (!marks_ || detached_[r]) return;
  SyncedMemory* m = b_.memory[r];
  if (m->placed_ptr(device_) == place)
    m->MarkNotReadable(b_.notes.note[r], cause);
}

void Binder::Poison(int r) {
  const size_t count = b_.requests[r].bytes / b_.element_bytes;
  SyncedMemory* m = b_.memory[r];
  resource_->FillNaN(device_ ? m->mutable_gpu_data() : m->mutable_cpu_data(),
                     count, b_.element_bytes);
  Mark(r, address_[r], b_.notes.poisoned);
}

void Binder::BeforeStep(int step) {
  if (step < 0 || step >= b_.num_steps) return;
  if (!b_.dynamic) {
    for (int r : repoint_at_[step]) {
      if (detached_[r]) continue;
      b_.memory[r]->Place(device_, address_[r], keeper_[r]);
      Mark(r, address_[r], b_.notes.not_computed);
    }
    // Whatever shares bytes with a buffer starting now is overwritten --
    // except an in-place partner's memory (any of its lifetimes placed
    // there), which this step still reads (AfterStep marks it).
    for (int r : born_at_[step]) {
      if (detached_[r]) continue;
      const int partner = b_.requests[r].in_place_of;
      const SyncedMemory* handed =
          HandOverStep(b_.requests, r, partner) == step ? b_.memory[partner]
                                                        : nullptr;
      for (int j : overlaps_[r])
        if (b_.memory[j] != handed)
          Mark(j, address_[j], b_.notes.reuse_cause[r]);
    }
    return;
  }
  for (int r : born_at_[step]) {
    // A partial pass may repeat a step.
    if (detached_[r] || pool_.Holds(r)) continue;
    int previous = -1;
    std::shared_ptr<char> block =
        pool_.Take(b_.requests[r].bytes, r, &previous);
    // The block's last holder is marked if it still points at it (it may
    // have been given another block since).
    if (previous >= 0) Mark(previous, block.get(), b_.notes.reuse_cause[r]);
    address_[r] = block.get();
    keeper_[r] = block;
    b_.memory[r]->Place(device_, block.get(), block);
    Mark(r, address_[r], b_.notes.not_computed);
  }
}

void Binder::AfterStep(int step) {
  if (step < 0 || step >= b_.num_steps) return;
  for (int r : dying_at_[step]) {
    // Handed over in place: its bytes now hold the partner's value, so it
    // is marked as reused rather than poisoned.
    const int partner = b_.requests[r].in_place_of;
    if (!b_.dynamic && !detached_[r] &&
        HandOverStep(b_.requests, r, partner) == step && !detached_[partner] &&
        address_[r] == address_[partner]) {
      Mark(r, address_[r], b_.notes.reuse_cause[partner]);
      continue;
    }
    if (b_.check && !b_.kept[r] && !b_.scratch[r] && !detached_[r])
      Poison(r);
  }
  // Scratch leaves its place with its step: outside it the layer falls
  // back to memory of its own.
  for (int r : dying_at_[step])
    if (b_.scratch[r] && !detached_[r]) b_.memory[r]->ReleasePlaced(device_);
  if (!b_.dynamic) return;
  for (int r : dying_at_[step]) pool_.Give(r);
}

void Binder::Detach(SyncedMemory* memory) {
  // Every lifetime of this memory leaves the plan: nothing marks, moves,
  // poisons or pools it any more.  Its live value, if readable, is kept.
  int first = -1;
  for (size_t i = 0; i < b_.requests.size(); ++i) {
    if (b_.memory[i] != memory || !b_.requests[i].shareable ||
        b_.requests[i].bytes == 0 || detached_[i])
      continue;
    if (first < 0) first = static_cast<int>(i);
    detached_[i] = true;
    if (b_.dynamic) pool_.Give(static_cast<int>(i));  // the memory keeps it
  }
  if (first < 0) return;  // pinned, or detached already
  // The placed head holds the live value: on the GPU, a newer CPU head
  // (a CPU-only layer wrote it) is copied over first.
  const bool readable =
      memory->readable() && memory->placed_ptr(device_) != nullptr;
  if (readable && device_) memory->gpu_data();
  std::shared_ptr<char> own = Shared(resource_, memory->size());
  if (readable)
    resource_->Copy(own.get(), memory->placed_ptr(device_), memory->size());
  memory->Place(device_, own.get(), own);
  if (!readable && marks_)
    memory->MarkNotReadable(b_.notes.note[first], b_.notes.not_computed);
  detached_bytes_ += AlignUp(memory->size());
}

}  // namespace mem
}  // namespace caffe
