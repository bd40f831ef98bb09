// net_memory.hpp: applies mem_param to a built Net.
//
// Contract:
//  * Analyze walks the net's layers forward then backward (a dry run: no
//    layer computes anything) and gives every activation buffer a lifetime.
//    Buffers are grouped by their SyncedMemory, so in-place layers and the
//    aliasing layers (Flatten, Reshape, Split's data) share their root.
//    What a layer's backward reads comes from its declarations
//    (Layer::BackwardReads).
//  * Never shared ("pinned"): parameters (not activations at all), net
//    inputs and the tops of layers without bottoms (data layers), net
//    outputs, loss tops, every exclude_blob, and any diff that some layer
//    reads before a layer writes it (it must keep Caffe's zero fill).
//  * Apply allocates the plan's memory and points each shared buffer into
//    it; the results of Forward/Backward stay bit-identical to the
//    unoptimized net because no two buffers live at the same step overlap.
//  * Layers' kept memory (masks, saved statistics: Layer::KeptMemory) is
//    planned like a blob: live from the layer's forward step to its
//    backward step (forward only when no backward runs).
//  * Check mode fills each shared blob buffer with NaN right after its last
//    use, so a layer that reads a dead buffer (a wrong declaration) shows
//    NaN.  Kept memory is not poisoned: it may hold integer indices, which
//    a NaN pattern would turn into out-of-range reads; sharing it with
//    other buffers already exposes a layer that reads it too late.
//  * A TEST-phase net is planned for forward only, unless it sets
//    force_backward (saliency maps, input gradients); Backward on a
//    forward-only plan is refused with an error rather than computed from
//    reused memory.
//  * The readability guard (SyncedMemory's "not readable" mark): binding a
//    buffer to arena bytes nothing has written yet marks it, and so does a
//    buffer's first use marking every other buffer whose bytes it overlaps;
//    check mode marks what it poisons.  Its producer's next write clears
//    the mark.  So every read of a blob, by anyone, returns the unoptimized
//    net's bytes or throws BlobNotReadable naming the buffer and the fix.
//  * Asking for blobs: SetKept pins blobs (data and diff) in every later
//    plan, as exclude_blob does, and plans again.  Request gives the data
//    (or diffs) of blobs memory of their own outside the plan ("detached"),
//    copying a live value over, so it works at any point, mid-pass too; the
//    request is applied again after every re-plan.
//  * Recomputation (mem_param.recompute): the net is cut into segments
//    (mem/recompute.hpp); a buffer a recomputed segment fills again gets a
//    second lifetime, planned like any other buffer, so recomputation and
//    sharing add up in one arena.  The blob is pointed at the second
//    placement when its recomputed value is written (BeforeStep).
//  * release: DYNAMIC allocates nothing ahead: each shared buffer takes a
//    block from a caching pool just before its first use (BeforeStep) and
//    gives it back after its last use (AfterStep); the pool keeps freed
//    blocks for reuse (best fit), so steady-state iterations allocate
//    nothing.
#ifndef CAFFE_MEM_NET_MEMORY_HPP_
#define CAFFE_MEM_NET_MEMORY_HPP_

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "caffe/common.hpp"
#include "caffe/mem/planner.hpp"
#include "caffe/mem/recompute.hpp"
#include "caffe/proto/caffe.pb.h"
#include "caffe/syncedmem.hpp"

namespace caffe {

template <typename Dtype>
class Net;

template <typename Dtype>
class NetMemory {
 public:
  // One planned buffer: a blob's data or diff memory.
  struct Buffer {
    SyncedMemory* memory = nullptr;
    bool is_diff = false;
    std::vector<int> blob_ids;  // every net blob viewing this memory
    // For a layer's kept memory (Layer::KeptMemory): the layer, and the
    // memory's index in its list; -1 for blob memory.
    int layer_id = -1;
    int kept_index = -1;
    std::string name;  // "<blob>", "<blob>(diff)" or "<layer>/kept<k>"
    // 1 for the second lifetime of a buffer that recomputation fills again
    // (its name then ends in "@recompute"), else 0.
    int lifetime = 0;
    bool pinned = false;
    std::string pin_reason;
  };

  NetMemory(const Net<Dtype>* net, const MemoryOptimizationParameter& param);

  // Plans and applies; call again after shapes change.  Chooses the
  // recompute segments first when mem_param.recompute asks for them.
  void PlanAndApply();
  // True when the blobs still view the memory the plan gave them.
  bool StillApplied() const;

  // Called by the net around each step: STATIC plans point buffers with a
  // second lifetime (recomputed values) at their memory; DYNAMIC release
  // hands out and takes back pool blocks; check mode poisons dead buffers.
  void BeforeStep(int step);
  void AfterStep(int step);
  // Logs every buffer's lifetime, place and size, and the totals.
  void LogPlan() const;
  // Bytes the DYNAMIC pool holds (0 for STATIC).
  size_t pool_bytes() const { return pool_bytes_; }
  // Steps of one iteration (see mem/recompute.hpp MakeSchedule).
  int ForwardStep(int layer_id) const { return forward_step_[layer_id]; }
  int BackwardStep(int layer_id) const { return backward_step_[layer_id]; }
  // -1 when layer `layer_id` is not run again.
  int RecomputeStep(int layer_id) const { return recompute_step_[layer_id]; }
  int num_steps() const { return static_cast<int>(schedule_.size()); }
  const std::vector<mem::Step>& schedule() const { return schedule_; }
  bool forward_only() const { return forward_only_; }

  // Recomputation: the segments (one, not recomputed, without it), the
  // segment of each layer, whether a layer may run twice, the blobs kept
  // at the segment ends, the extra forward work as a fraction of one
  // forward pass, and the planned bytes the same net needs without it.
  const std::vector<mem::Segment>& segments() const { return segments_; }
  int SegmentOf(int layer_id) const { return segment_of_[layer_id]; }
  bool recomputes() const { return segments_.size() > 1; }
  bool recomputable(int layer_id) const { return recomputable_[layer_id]; }
  const std::vector<std::string>& checkpoints() const { return checkpoints_; }
  double extra_forward_fraction() const { return extra_forward_fraction_; }
  size_t bytes_without_recompute() const { return bytes_without_recompute_; }

  // Blobs (ids) kept out of sharing in every later plan, as exclude_blob
  // keeps them (data and diff); plans again when the set changes.
  void SetKept(const std::set<int>& blob_ids);
  const std::set<int>& kept() const { return kept_; }
  // The blobs whose data (diff) the caller reads after the coming passes:
  // each gets memory of its own outside the plan, now and after every
  // re-plan, until a new request of the same kind replaces the set.
  void Request(const std::set<int>& blob_ids, bool diff);
  // Bytes given to requested buffers outside the plan.
  size_t detached_bytes() const { return detached_bytes_; }
  // Test seam: false makes a deliberately broken binder that reuses memory
  // without marking it not readable (the guard tests must then fail).
  void set_marks_not_readable(bool on) { marks_not_readable_ = on; }

  // One entry per buffer lifetime: a buffer whose value is computed again
  // by recomputation has two entries (same memory, two placements).
  const std::vector<Buffer>& buffers() const { return buffers_; }
  const std::vector<mem::BufferRequest>& requests() const { return requests_; }
  const mem::Plan& plan() const { return plan_; }
  const MemoryOptimizationParameter& param() const { return param_; }

  // Builds the buffer list and requests for the current segments without
  // applying anything.
  void Analyze();

 private:
  // Layer facts recomputation needs (topology only, no values).
  void StudyLayers();
  void SetSegments(const std::vector<int>& boundaries);
  std::vector<int> ChooseBoundaries();
  size_t PlannedBytes(const std::vector<int>& boundaries);
  void Apply();
  void ReleaseUnplaced();
  void MakeNotes();
  void FindOverlaps();
  void Poison(int request_index);
  // Marks request r's memory not readable for `cause` when it points at
  // `place` (a buffer with two lifetimes, or a DYNAMIC one that took
  // another block, may have moved on).
  void MarkIfAt(int r, const char* place,
                const std::shared_ptr<const std::string>& cause);
  void Detach(SyncedMemory* memory);
  void DetachRequested();
  void ReleaseHeld(int r);

  const Net<Dtype>* net_;
  MemoryOptimizationParameter param_;
  int num_layers_;
  bool forward_only_;
  std::vector<Buffer> buffers_;
  std::vector<mem::BufferRequest> requests_;  // one per buffer entry
  mem::Plan plan_;
  // The schedule and where each layer's steps are in it.
  std::vector<mem::Segment> segments_;
  std::vector<mem::Step> schedule_;
  std::vector<int> forward_step_, recompute_step_, backward_step_;
  std::vector<int> segment_of_;
  // From StudyLayers.
  std::vector<bool> recomputable_;
  std::vector<int> boundary_candidates_;
  std::vector<double> layer_bytes_, layer_cost_, crossing_bytes_;
  std::vector<std::string> checkpoints_;
  double extra_forward_fraction_ = 0;
  size_t bytes_without_recompute_ = 0;
  // Owned memory of the plan's slots.
  std::vector<std::shared_ptr<char> > slots_;
  std::vector<std::vector<int> > dying_at_step_;  // request ids per step
  std::vector<std::vector<int> > born_at_step_;   // DYNAMIC: ids per step
  std::vector<std::vector<int> > repoint_at_step_;  // STATIC, recomputed
  bool dynamic_ = false;
  // DYNAMIC: free blocks by size, the block each live request holds, and
  // the request that held each block last.  Memories keep their blocks
  // alive (SyncedMemory's keeper), so a re-plan frees the old pool's
  // blocks as soon as nothing points into them.
  std::multimap<size_t, std::shared_ptr<char> > free_blocks_;
  std::map<int, std::shared_ptr<char> > held_;
  std::map<char*, int> block_owner_;
  size_t pool_bytes_ = 0;
  // The guard: where each request's bytes are (the arena place, or its
  // DYNAMIC block), the requests whose bytes overlap each request's
  // (STATIC), the message parts, and whether marking is on.
  std::vector<char*> address_;
  std::vector<std::shared_ptr<char> > keeper_;
  std::vector<std::vector<int> > overlaps_;
  std::vector<std::shared_ptr<const SyncedMemory::NotReadableNote> > note_;
  std::vector<std::shared_ptr<const std::string> > reuse_cause_;
  std::shared_ptr<const std::string> not_computed_cause_, poisoned_cause_;
  bool marks_not_readable_ = true;
  // Asked-for blobs: pinned ids, requested ids (data, diff), and which
  // requests are detached from the plan.
  std::set<int> kept_;
  std::set<int> requested_[2];
  std::vector<bool> detached_;
  size_t detached_bytes_ = 0;
};

}  // namespace caffe

#endif  // CAFFE_MEM_NET_MEMORY_HPP_
