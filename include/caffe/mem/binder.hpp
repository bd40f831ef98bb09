// binder.hpp: applies a memory plan to the net's buffers, through a
// MemoryResource (memory_resource.hpp), and runs it step by step.
//
// Contract:
//  * Bind(binding) points every shared buffer at its memory.  Two
//    strategies: STATIC allocates the plan's slots (one arena at level 2)
//    up front and points each buffer at its offset; DYNAMIC allocates
//    nothing ahead: a buffer takes a block from a caching pool
//    (block_pool.hpp) just before its first use (BeforeStep) and gives it
//    back after its last use (AfterStep).  Check mode, on either, fills a
//    blob buffer with NaN right after its last use (kept memory is not
//    poisoned: it may hold integer indices).
//  * Buffers with recomputed lifetimes (STATIC) move to each lifetime's
//    place when that lifetime starts.
//  * Scratch buffers (a layer's per-call scratch, one lifetime per step)
//    are placed only while their step runs: BeforeStep points the memory
//    at the step's bytes, AfterStep takes them back (ReleasePlaced), so a
//    layer sees placed scratch exactly when the plan reserved it.
//  * The readability guard: binding a buffer to bytes nothing has written
//    marks it not readable; under STATIC a buffer's first use marks every
//    buffer overlapping it (guard.hpp); under DYNAMIC a reused block's last
//    holder is marked if it still points at it; check mode marks what it
//    poisons.  Marks never touch detached buffers.
//  * Memories keep the bytes they point into alive (SyncedMemory keepers):
//    binding again frees an old arena or pool block only once nothing
//    points into it.  Memories an earlier binding placed that this one does
//    not share are released (they allocate their own bytes on next use).
//  * Detach(memory) takes every lifetime of a memory out of the plan and
//    gives it bytes of its own, copying a readable value over.
//  * The resource decides the device: a GPU resource (on_device()) places
//    each SyncedMemory's GPU head, a host one its CPU head
//    (SyncedMemory::Place); the other head stays the memory's own.  The
//    same code runs both.
//  * Knows nothing of Net: buffers come as SyncedMemory pointers.
#ifndef CAFFE_MEM_BINDER_HPP_
#define CAFFE_MEM_BINDER_HPP_

#include <memory>
#include <vector>

#include "caffe/mem/analyze.hpp"
#include "caffe/mem/block_pool.hpp"
#include "caffe/mem/guard.hpp"
#include "caffe/mem/planner.hpp"
#include "caffe/memory_resource.hpp"
#include "caffe/syncedmem.hpp"

namespace caffe {
namespace mem {

struct Binding {
  std::vector<SyncedMemory*> memory;  // per request: the buffer's memory
  std::vector<int> lifetime;          // per request: 0, or n (recomputed)
  std::vector<bool> kept;             // per request: a layer's kept memory
  std::vector<bool> scratch;          // per request: a layer's scratch
  std::vector<BufferRequest> requests;
  Plan plan;
  int num_steps = 0;
  GuardNotes notes;
  // Every memory of the net, to release the ones this plan does not share.
  std::vector<SyncedMemory*> all_memories;
  bool dynamic = false;
  bool check = false;
  size_t element_bytes = 4;
};

class Binder {
 public:
  explicit Binder(MemoryResource* resource);

  void Bind(const Binding& binding);
  void BeforeStep(int step);
  void AfterStep(int step);
  void Detach(SyncedMemory* memory);

  // STATIC: bytes of the slots this binding allocated.
  size_t arena_bytes() const { return arena_bytes_; }
  // DYNAMIC: bytes the pool allocated, and bytes of pool blocks still
  // alive (old ones included) -- what the pool holds.
  size_t pool_bytes() const { return pool_.allocated_bytes(); }
  size_t pool_live_bytes() const { return pool_.live_bytes(); }
  size_t detached_bytes() const { return detached_bytes_; }
  // Test seam: false makes a deliberately broken binder that reuses memory
  // without marking it not readable (the guard tests must then fail).
  void set_marks_not_readable(bool on) { marks_ = on; }

 private:
  void BindStatic();
  void ReleaseUnplaced();
  void Mark(int r, const char* place,
            const std::shared_ptr<const std::string>& cause);
  void Poison(int r);

  MemoryResource* resource_;
  bool device_;  // resource_ is GPU memory: the binder places GPU heads
  Binding b_;
  BlockPool pool_;
  std::vector<std::shared_ptr<char> > slots_;
  size_t arena_bytes_ = 0;
  std::vector<std::vector<int> > born_at_, dying_at_, repoint_at_;
  // Where each request's bytes are and what keeps them alive.
  std::vector<char*> address_;
  std::vector<std::shared_ptr<char> > keeper_;
  std::vector<std::vector<int> > overlaps_;
  std::vector<bool> detached_;
  size_t detached_bytes_ = 0;
  bool marks_ = true;
};

}  // namespace mem
}  // namespace caffe

#endif  // CAFFE_MEM_BINDER_HPP_
