// guard.hpp: the readability guard's queries over a plan.
//
// Contract:
//  * Pure: what the binder needs to mark buffers not readable
//    (SyncedMemory's mark, syncedmem.hpp) is computed here from the
//    analysis and the plan, without binding anything.
//  * OverlapsInPlan: for each request, the requests of other memories whose
//    planned bytes overlap its own (same slot, intersecting ranges; only
//    shared, non-empty requests).  Under STATIC binding, a buffer's first
//    use overwrites exactly these, so the binder marks them.
//  * MakeGuardNotes: per request the message's subject and fix (naming the
//    blob or kept memory and every way to keep it readable) and the cause
//    "its memory is reused by <this buffer>"; and the two shared causes for
//    memory nothing computed yet and memory check mode poisoned.
#ifndef CAFFE_MEM_GUARD_HPP_
#define CAFFE_MEM_GUARD_HPP_

#include <memory>
#include <string>
#include <vector>

#include "caffe/mem/analyze.hpp"
#include "caffe/mem/net_graph.hpp"
#include "caffe/mem/planner.hpp"
#include "caffe/syncedmem.hpp"

namespace caffe {
namespace mem {

// memory_of[i]: an id of request i's memory (requests of one memory never
// count as overlapping each other).
std::vector<std::vector<int> > OverlapsInPlan(
    const std::vector<int>& memory_of,
    const std::vector<BufferRequest>& requests, const Plan& plan);

struct GuardNotes {
  std::vector<std::shared_ptr<const SyncedMemory::NotReadableNote> > note;
  std::vector<std::shared_ptr<const std::string> > reuse_cause;
  std::shared_ptr<const std::string> not_computed;
  std::shared_ptr<const std::string> poisoned;
};

GuardNotes MakeGuardNotes(const NetGraph& graph,
                          const std::vector<Buffer>& buffers);

}  // namespace mem
}  // namespace caffe

#endif  // CAFFE_MEM_GUARD_HPP_
