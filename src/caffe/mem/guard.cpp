#include "caffe/mem/guard.hpp"

#include <algorithm>
#include <map>

namespace caffe {
namespace mem {

std::vector<std::vector<int> > OverlapsInPlan(
    const std::vector<int>& memory_of,
    const std::vector<BufferRequest>& requests, const Plan& plan) {
  // Requests by slot, sorted by offset: overlapping ones are neighbours
  // within the request's own extent.
  std::vector<std::vector<int> > overlaps(requests.size());
  std::map<int, std::vector<int> > by_slot;
  for (size_t i = 0; i < requests.size(); ++i)
    if (requests[i].shareable && requests[i].bytes > 0)
      by_slot[plan.placements[i].slot].push_back(static_cast<int>(i));
  for (auto& entry : by_slot) {
    std::vector<int>& ids = entry.second;
    std::stable_sort(ids.begin(), ids.end(), [&plan](int a, int b) {
      return plan.placements[a].offset < plan.placements[b].offset;
    });
    for (size_t x = 0; x < ids.size(); ++x) {
      const int i = ids[x];
      const size_t end_i = plan.placements[i].offset + requests[i].bytes;
      for (size_t y = x + 1;
           y < ids.size() && plan.placements[ids[y]].offset < end_i; ++y) {
        const int j = ids[y];
        if (memory_of[i] == memory_of[j]) continue;
        overlaps[i].push_back(j);
        overlaps[j].push_back(i);
      }
    }
  }
  return overlaps;
}

GuardNotes MakeGuardNotes(const NetGraph& graph,
                          const std::vector<Buffer>& buffers) {
  const std::string phase_switch =
      graph.train ? "optimize_train" : "optimize_test";
  GuardNotes notes;
  for (const Buffer& b : buffers) {
    auto note = std::make_shared<SyncedMemory::NotReadableNote>();
    std::string name;
    if (b.layer_id >= 0) {
      name = graph.layers[b.layer_id].name;
      note->subject =
          "layer '" + name + "' " +
          (b.scratch ? std::string("scratch")
                     : "kept memory " + std::to_string(b.kept_index)) +
          " is not readable: ";
    } else {
      name = graph.blobs[b.blob_ids[0]].name;
      note->subject = "blob '" + name + "'" + (b.is_diff ? " diff" : "") +
                      " is not readable: ";
    }
    note->fix = "Add exclude_blob: \"" + name + "\" to mem_param, keep it " +
                "(Net::KeepBlobs, pycaffe net.keep, matcaffe net.keep) or " +
                "ask for it in the pass (pycaffe forward(blobs=...), " +
                "backward(diffs=...)), or set " + phase_switch + ": false.";
    notes.note.push_back(note);
    notes.reuse_cause.push_back(std::make_shared<const std::string>(
        "its memory is reused by '" + b.name +
        "' after its last use (mem_param). "));
  }
  notes.not_computed = std::make_shared<const std::string>(
      "nothing has computed it since mem_param placed its memory; run the "
      "pass that computes it first. ");
  notes.poisoned = std::make_shared<const std::string>(
      "mem_param check mode filled its memory with NaN after its last use. ");
  return notes;
}

}  // namespace mem
}  // namespace caffe
