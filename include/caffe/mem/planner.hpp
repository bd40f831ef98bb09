// planner.hpp: decides where each buffer lives, from lifetimes and sizes.
//
// A pure module (no Net inside) so that it can be tested on synthetic
// graphs.  The caller numbers the steps of one iteration (LeanCaffe: forward
// of layer i is step i, backward of layer i is step 2L-1-i) and describes
// each buffer by its size and the closed interval of steps during which it
// holds a value that will still be read.  Two buffers may share memory only
// when their intervals do not intersect.
//
// Levels (MemoryOptimizationParameter.level):
//   0  a buffer reuses a slot only if the slot has exactly its size;
//   1  a buffer reuses the smallest free slot at least as large (best fit);
//   2  every shareable buffer gets an offset in one arena: greedy
//      placement (each buffer at a free offset during its lifetime) in
//      several orders (largest, longest-lived, largest area, earliest
//      first), each also with the scratch requests moved to the front,
//      with lowest-offset and best-fit gaps; the smallest arena wins
//      (ties to the earlier pass), which usually lands at or near the
//      lower bound.  The passes run side by side on the parallel loop
//      (util/parallel.hpp); the plan is the same for any thread count.
// Buffers with shareable == false are placed alone (pinned).
//
// CheckPlan verifies a plan: no two buffers that are live at a common step
// may overlap in memory.  It is used by the tests and by check mode.
#ifndef CAFFE_MEM_PLANNER_HPP_
#define CAFFE_MEM_PLANNER_HPP_

#include <cstddef>
#include <string>
#include <vector>

namespace caffe {
namespace mem {

// Every placement is aligned to this many bytes (AVX-512 friendly).
const size_t kAlignment = 64;

struct BufferRequest {
  std::string name;   // for reports and error messages
  size_t bytes = 0;
  int first_step = 0;  // first step at which the buffer holds a live value
  int last_step = 0;   // last step at which it is read (>= first_step)
  bool shareable = true;
  // A request this one may lie exactly over (the same offset), though both
  // are live at one step: the partner's last step is this one's first (or
  // the other way round), and the layer running there reads each element
  // of the older before writing the same element of the newer (in place by
  // plan, MemoryContract::top_overwrites_bottoms).  Both name each other;
  // -1: none.
  int in_place_of = -1;
  // A layer's per-call scratch, live at one step.  Level 2 also tries its
  // orders with every scratch request placed first (they never overlap in
  // time, so all go to offset 0 and the rest packs around them), and keeps
  // that when the arena comes out smaller.
  bool scratch = false;
};

// The step at which requests i and j, an in-place pair (each the other's
// in_place_of), hand over: the older's last step, which is the newer's
// first.  -1 when they are no such pair.
int HandOverStep(const std::vector<BufferRequest>& requests, int i, int j);

struct Placement {
  int slot = -1;       // index into Plan::slot_bytes
  size_t offset = 0;   // byte offset inside the slot
};

struct Plan {
  int level = 2;
  // One entry per request, in request order.
  std::vector<Placement> placements;
  // Sizes of the memory blocks to allocate.  Level 2 puts all shareable
  // buffers in slot 0 (the arena); pinned buffers get a slot each.
  std::vector<size_t> slot_bytes;
  size_t shared_bytes = 0;   // bytes of slots holding shareable buffers
  size_t pinned_bytes = 0;   // bytes of slots holding pinned buffers
  size_t unshared_bytes = 0; // what the requests would take without sharing
  // The largest sum of bytes of shareable buffers live at one step: no plan
  // can need less shared memory than this.
  size_t lower_bound = 0;
  size_t total_bytes() const { return shared_bytes + pinned_bytes; }
};

size_t AlignUp(size_t bytes);

// Throws std::invalid_argument for a malformed request (last < first) or
// an unknown level.
Plan MakePlan(const std::vector<BufferRequest>& requests, int level);

// Empty string when the plan is sound, otherwise a description of the first
// two buffers found overlapping in both time and memory.
std::string CheckPlan(const std::vector<BufferRequest>& requests,
                      const Plan& plan);

// Bytes live at each step 0..num_steps-1 (shareable buffers only).
std::vector<size_t> LiveBytesPerStep(const std::vector<BufferRequest>& requests,
                                     int num_steps);

}  // namespace mem
}  // namespace caffe

#endif  // CAFFE_MEM_PLANNER_HPP_
