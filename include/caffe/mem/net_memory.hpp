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
//  * A TEST-phase net is planned for forward only; Backward on it is
//    refused with an error rather than computed from reused memory.
//  * release: DYNAMIC allocates nothing ahead: each shared buffer takes a
//    block from a caching pool just before its first use (BeforeStep) and
//    gives it back after its last use (AfterStep); the pool keeps freed
//    blocks for reuse (best fit), so steady-state iterations allocate
//    nothing.
#ifndef CAFFE_MEM_NET_MEMORY_HPP_
#define CAFFE_MEM_NET_MEMORY_HPP_

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "caffe/common.hpp"
#include "caffe/mem/planner.hpp"
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
    bool pinned = false;
    std::string pin_reason;
  };

  NetMemory(const Net<Dtype>* net, const MemoryOptimizationParameter& param);

  // Plans and applies; call again after shapes change.
  void PlanAndApply();
  // True when the blobs still view the memory the plan gave them.
  bool StillApplied() const;

  // Called by the net around each step: DYNAMIC release hands out and takes
  // back pool blocks; check mode poisons dead buffers.
  void BeforeStep(int step);
  void AfterStep(int step);
  // Logs every buffer's lifetime, place and size, and the totals.
  void LogPlan() const;
  // Bytes the DYNAMIC pool holds (0 for STATIC).
  size_t pool_bytes() const { return pool_bytes_; }
  int ForwardStep(int layer_id) const { return layer_id; }
  int BackwardStep(int layer_id) const { return 2 * num_layers_ - 1 - layer_id; }
  bool forward_only() const { return forward_only_; }

  // Empty when blob `blob_id`'s data is safe to read after a forward pass;
  // otherwise why not, naming the blob that reuses its memory.
  std::string ReadableError(int blob_id) const;

  const std::vector<Buffer>& buffers() const { return buffers_; }
  const std::vector<mem::BufferRequest>& requests() const { return requests_; }
  const mem::Plan& plan() const { return plan_; }
  const MemoryOptimizationParameter& param() const { return param_; }
  int num_steps() const { return 2 * num_layers_; }

  // Builds the buffer list and requests without applying anything.
  void Analyze();

 private:
  void Apply();
  void Poison(int request_index);

  const Net<Dtype>* net_;
  MemoryOptimizationParameter param_;
  int num_layers_;
  bool forward_only_;
  std::vector<Buffer> buffers_;
  std::vector<mem::BufferRequest> requests_;  // one per buffer
  mem::Plan plan_;
  // Owned memory of the plan's slots.
  std::vector<std::shared_ptr<char> > slots_;
  std::vector<std::vector<int> > dying_at_step_;  // request ids per step
  std::vector<std::vector<int> > born_at_step_;   // DYNAMIC: ids per step
  bool dynamic_ = false;
  // DYNAMIC: free blocks by size, the block each live request holds, and
  // which request last took over a dead request's block.
  std::multimap<size_t, char*> free_blocks_;
  std::map<int, std::pair<char*, size_t> > held_;
  std::map<char*, int> block_owner_;
  std::map<int, int> reused_by_;
  size_t pool_bytes_ = 0;
  std::vector<std::shared_ptr<char> > retired_;
  std::vector<std::pair<SyncedMemory*, int> > applied_;  // memory, request
};

}  // namespace caffe

#endif  // CAFFE_MEM_NET_MEMORY_HPP_
