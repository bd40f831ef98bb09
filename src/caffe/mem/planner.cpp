#include "caffe/mem/planner.hpp"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <functional>
#include <numeric>
#include <sstream>
#include <stdexcept>

#include "caffe/util/parallel.hpp"

namespace caffe {
namespace mem {

size_t AlignUp(size_t bytes) {
  return (bytes + kAlignment - 1) / kAlignment * kAlignment;
}

int HandOverStep(const std::vector<BufferRequest>& requests, int i, int j) {
  const int n = static_cast<int>(requests.size());
  if (i < 0 || j < 0 || i >= n || j >= n) return -1;
  if (requests[i].in_place_of != j || requests[j].in_place_of != i) return -1;
  const BufferRequest& a = requests[i];
  const BufferRequest& b = requests[j];
  if (a.last_step == b.first_step && a.first_step < b.first_step)
    return a.last_step;
  if (b.last_step == a.first_step && b.first_step < a.first_step)
    return b.last_step;
  return -1;
}

namespace {

bool Overlap(const BufferRequest& a, const BufferRequest& b) {
  return a.first_step <= b.last_step && b.first_step <= a.last_step;
}

void Validate(const std::vector<BufferRequest>& requests, int level) {
  if (level < 0 || level > 2) {
    throw std::invalid_argument("memory plan level must be 0, 1 or 2, not " +
                                std::to_string(level));
  }
  for (const BufferRequest& r : requests) {
    if (r.last_step < r.first_step) {
      throw std::invalid_argument("buffer '" + r.name +
                                  "' ends before it starts");
    }
    if (r.in_place_of >= static_cast<int>(requests.size())) {
      throw std::invalid_argument("buffer '" + r.name +
                                  "' is in place of a buffer that is not there");
    }
  }
}

// Requests in the order slot-based levels consider them: by first use.
std::vector<int> ByFirstStep(const std::vector<BufferRequest>& requests) {
  std::vector<int> order(requests.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    return requests[a].first_step < requests[b].first_step;
  });
  return order;
}

// Levels 0 and 1: reuse whole slots that are free (their last occupant's
// lifetime ended before this buffer starts).
void PlanSlots(const std::vector<BufferRequest>& requests, int level,
               Plan* plan) {
  std::vector<int> slot_free_after;  // last_step of the slot's occupant
  for (int i : ByFirstStep(requests)) {
    const BufferRequest& r = requests[i];
    const size_t bytes = AlignUp(r.bytes);
    int chosen = -1;
    if (r.shareable) {
      for (size_t s = 0; s < plan->slot_bytes.size(); ++s) {
        if (slot_free_after[s] >= r.first_step) continue;  // still busy
        const size_t have = plan->slot_bytes[s];
        const bool fits = level == 0 ? have == bytes : have >= bytes;
        if (!fits) continue;
        if (chosen < 0 || have < plan->slot_bytes[chosen]) chosen = s;
      }
    }
    if (chosen < 0) {
      chosen = static_cast<int>(plan->slot_bytes.size());
      plan->slot_bytes.push_back(bytes);
      // A pinned buffer's slot is never free again.
      slot_free_after.push_back(r.shareable ? r.last_step : INT32_MAX);
    } else {
      slot_free_after[chosen] = r.last_step;
    }
    plan->placements[i].slot = chosen;
    plan->placements[i].offset = 0;
  }
  std::vector<bool> pinned_slot(plan->slot_bytes.size(), false);
  for (size_t i = 0; i < requests.size(); ++i)
    if (!requests[i].shareable) pinned_slot[plan->placements[i].slot] = true;
  for (size_t s = 0; s < plan->slot_bytes.size(); ++s)
    (pinned_slot[s] ? plan->pinned_bytes : plan->shared_bytes) +=
        plan->slot_bytes[s];
}

typedef std::pair<size_t, size_t> Interval;  // [offset, end) in the arena

// A placed buffer as the placement loop scans it: its interval, and its
// steps copied beside it so that the scan reads one array front to back.
struct Placed {
  Interval at;
  int first_step, last_step, index;
  bool operator<(const Placed& o) const {
    return at != o.at ? at < o.at : index < o.index;
  }
  bool LiveDuring(const BufferRequest& r) const {
    return first_step <= r.last_step && r.first_step <= last_step;
  }
};

// The offset for r (`bytes` long) among the placed buffers live at any of
// its steps: the lowest gap that holds it, or (best_fit) the smallest
// such gap; above everything if none.  `placed` is sorted by interval, so
// the gaps come in offset order and the lowest fitting one ends the scan.
size_t LowestGap(const std::vector<Placed>& placed, const BufferRequest& r,
                 size_t bytes, bool best_fit) {
  size_t offset = SIZE_MAX, best_gap = SIZE_MAX, end = 0;
  for (const Placed& p : placed) {
    if (!p.LiveDuring(r)) continue;
    if (p.at.first >= end + bytes) {  // the gap before p fits
      const size_t gap = p.at.first - end;
      if (!best_fit) return end;
      if (gap < best_gap) {
        best_gap = gap;
        offset = end;
      }
    }
    end = std::max(end, p.at.second);
  }
  return offset == SIZE_MAX ? end : offset;
}

// One greedy pass's memory, sized before the pass runs: the passes run
// on the parallel loop, whose bodies must not allocate.
struct PassMemory {
  std::vector<Placed> placed;  // sorted by interval; capacity for all
  std::vector<char> is_placed;
  std::vector<size_t> offsets;
  PassMemory(size_t num_requests, size_t num_shared)
      : is_placed(num_requests, 0), offsets(num_requests, 0) {
    placed.reserve(num_shared);
  }
};

// Level 2 places buffers one by one, each at an offset that no already
// placed, time-overlapping buffer occupies: the lowest such offset, or
// (best_fit) the smallest gap that holds it.  A buffer whose in-place
// partner is placed goes exactly over it if nothing else live is in the
// way.  Returns the arena size; offsets land in memory->offsets.  The
// placed buffers are kept sorted by their intervals, so a gap search is
// one scan that the first fitting gap may end (planning runs once per
// candidate plan, and BUDGET weighs many).
size_t PlaceInArena(const std::vector<BufferRequest>& requests,
                    const std::vector<int>& order, bool best_fit,
                    PassMemory* memory) {
  std::vector<Placed>& placed = memory->placed;
  std::vector<size_t>& offsets = memory->offsets;
  size_t arena = 0;
  for (int i : order) {
    const BufferRequest& r = requests[i];
    const size_t bytes = AlignUp(r.bytes);
    const int partner = r.in_place_of;
    size_t offset = SIZE_MAX;
    if (partner >= 0 && memory->is_placed[partner] &&
        HandOverStep(requests, i, partner) >= 0) {
      // Exactly over the partner, when nothing else live is in the way.
      const size_t at = offsets[partner];
      bool free = true;
      for (const Placed& p : placed)
        if (p.index != partner && p.LiveDuring(r) && p.at.first < at + bytes &&
            at < p.at.second)
          free = false;
      if (free) offset = at;
    }
    // Otherwise the partner is in the way like any other live buffer.
    if (offset == SIZE_MAX) offset = LowestGap(placed, r, bytes, best_fit);
    offsets[i] = offset;
    arena = std::max(arena, offset + bytes);
    const Placed entry{Interval(offset, offset + bytes), r.first_step,
                       r.last_step, i};
    placed.insert(std::upper_bound(placed.begin(), placed.end(), entry),
                  entry);  // within the capacity reserved: no allocation
    memory->is_placed[i] = 1;
  }
  return arena;
}

// Level 2: one arena.  Greedy placement depends on the order, so a few
// orders known to work well for lifetimes on a line (largest first,
// longest-lived first, largest area first, earliest first) are each tried
// with both gap rules, and the smallest arena wins.
void PlanArena(const std::vector<BufferRequest>& requests, Plan* plan) {
  plan->slot_bytes.push_back(0);  // slot 0: the arena
  std::vector<int> shared;
  for (size_t i = 0; i < requests.size(); ++i) {
    if (requests[i].shareable) {
      shared.push_back(static_cast<int>(i));
    } else {
      plan->placements[i].slot = static_cast<int>(plan->slot_bytes.size());
      plan->slot_bytes.push_back(AlignUp(requests[i].bytes));
      plan->pinned_bytes += AlignUp(requests[i].bytes);
    }
  }
  auto length = [&](int i) {
    return static_cast<size_t>(requests[i].last_step - requests[i].first_step + 1);
  };
  typedef std::function<bool(int, int)> Less;
  const std::vector<Less> orders = {
      [&](int a, int b) { return requests[a].bytes > requests[b].bytes; },
      [&](int a, int b) {
        return length(a) != length(b) ? length(a) > length(b)
                                      : requests[a].bytes > requests[b].bytes;
      },
      [&](int a, int b) {
        return requests[a].bytes * length(a) > requests[b].bytes * length(b);
      },
      [&](int a, int b) {
        return requests[a].first_step < requests[b].first_step;
      }};
  // Scratch first: the one-step scratch requests all land at offset 0 and
  // the longer-lived buffers pack above and around them, which sometimes
  // beats placing scratch into the gaps the others leave.  Tried after the
  // plain orders and kept only when strictly smaller.
  const bool any_scratch = std::any_of(
      shared.begin(), shared.end(), [&](int i) { return requests[i].scratch; });
  struct Pass {
    std::vector<int> order;
    bool best_fit;
  };
  std::vector<Pass> passes;  // in the order that breaks ties
  for (bool scratch_first : {false, true}) {
    if (scratch_first && !any_scratch) break;
    for (const Less& less : orders) {
      std::vector<int> order = shared;
      std::stable_sort(order.begin(), order.end(), less);
      if (scratch_first)
        std::stable_partition(order.begin(), order.end(),
                              [&](int i) { return requests[i].scratch; });
      for (bool best_fit : {false, true}) passes.push_back({order, best_fit});
    }
  }
  // The passes are independent, so they run side by side; the smallest
  // arena wins, ties going to the earlier pass, so the plan does not depend
  // on the thread count.  No arena is smaller than the bytes live at the
  // fullest step (Plan::lower_bound): passes after one that reaches it
  // could only tie, and are skipped.
  const int num_passes = static_cast<int>(passes.size());
  std::vector<PassMemory> memory;  // each built here: a copy would lose
  memory.reserve(num_passes);      // the reserved capacity
  for (int p = 0; p < num_passes; ++p)
    memory.emplace_back(requests.size(), shared.size());
  std::vector<size_t> arenas(num_passes, SIZE_MAX);
  std::atomic<int> first_at_bound(num_passes);
  ParallelFor(num_passes, 1, [&](long begin, long end) {
    for (long p = begin; p < end; ++p) {
      if (p > first_at_bound.load()) continue;
      arenas[p] = PlaceInArena(requests, passes[p].order, passes[p].best_fit,
                               &memory[p]);
      if (arenas[p] > plan->lower_bound) continue;
      int at = first_at_bound.load();
      while (p < at && !first_at_bound.compare_exchange_weak(at, p)) {
      }
    }
  });
  // There is always a pass (one per order and gap rule); with nothing
  // shared every arena is 0.
  int winner = 0;
  for (int p = 1; p < num_passes; ++p)
    if (arenas[p] < arenas[winner]) winner = p;
  for (int i : shared) {
    plan->placements[i].slot = 0;
    plan->placements[i].offset = memory[winner].offsets[i];
  }
  plan->slot_bytes[0] = arenas[winner];
  plan->shared_bytes = arenas[winner];
}

}  // namespace

std::vector<size_t> LiveBytesPerStep(const std::vector<BufferRequest>& requests,
                                     int num_steps) {
  std::vector<size_t> live(std::max(num_steps, 0), 0);
  for (const BufferRequest& r : requests) {
    if (!r.shareable) continue;
    for (int s = std::max(r.first_step, 0);
         s <= r.last_step && s < num_steps; ++s)
      live[s] += AlignUp(r.bytes);
  }
  // An in-place pair holds the larger of its two at its hand-over step.
  for (size_t i = 0; i < requests.size(); ++i) {
    const int j = requests[i].in_place_of;
    if (j <= static_cast<int>(i) || !requests[i].shareable ||
        !requests[j].shareable)
      continue;
    const int s = HandOverStep(requests, static_cast<int>(i), j);
    if (s >= 0 && s < num_steps)
      live[s] -= std::min(AlignUp(requests[i].bytes), AlignUp(requests[j].bytes));
  }
  return live;
}

Plan MakePlan(const std::vector<BufferRequest>& requests, int level) {
  Validate(requests, level);
  Plan plan;
  plan.level = level;
  plan.placements.resize(requests.size());
  int num_steps = 0;
  for (const BufferRequest& r : requests) {
    plan.unshared_bytes += AlignUp(r.bytes);
    num_steps = std::max(num_steps, r.last_step + 1);
  }
  for (size_t b : LiveBytesPerStep(requests, num_steps))
    plan.lower_bound = std::max(plan.lower_bound, b);
  if (level == 2) {
    PlanArena(requests, &plan);
  } else {
    PlanSlots(requests, level, &plan);
  }
  return plan;
}

std::string CheckPlan(const std::vector<BufferRequest>& requests,
                      const Plan& plan) {
  if (plan.placements.size() != requests.size())
    return "plan has " + std::to_string(plan.placements.size()) +
           " placements for " + std::to_string(requests.size()) + " buffers";
  for (size_t i = 0; i < requests.size(); ++i) {
    const Placement& pi = plan.placements[i];
    if (pi.slot < 0 || pi.slot >= static_cast<int>(plan.slot_bytes.size()) ||
        pi.offset + AlignUp(requests[i].bytes) > plan.slot_bytes[pi.slot])
      return "buffer '" + requests[i].name + "' lies outside its slot";
    for (size_t j = i + 1; j < requests.size(); ++j) {
      const Placement& pj = plan.placements[j];
      if (pi.slot != pj.slot || !Overlap(requests[i], requests[j])) continue;
      if (requests[i].bytes == 0 || requests[j].bytes == 0) continue;
      // An in-place pair may lie exactly on each other.
      if (pi.offset == pj.offset &&
          HandOverStep(requests, static_cast<int>(i), static_cast<int>(j)) >= 0)
        continue;
      const size_t ei = pi.offset + requests[i].bytes;
      const size_t ej = pj.offset + requests[j].bytes;
      if (pi.offset < ej && pj.offset < ei) {
        std::ostringstream s;
        s << "buffers '" << requests[i].name << "' (steps "
          << requests[i].first_step << "-" << requests[i].last_step
          << ") and '" << requests[j].name << "' (steps "
          << requests[j].first_step << "-" << requests[j].last_step
          << ") are live together but share memory in slot " << pi.slot;
        return s.str();
      }
    }
  }
  return "";
}

}  // namespace mem
}  // namespace caffe
