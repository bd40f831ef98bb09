// net_memory.hpp: applies mem_param to a built net -- the pipeline's driver.
//
// Contract:
//  * The pipeline, one stage per file:
//      GraphSource::Graph()  the net's facts (net_graph.hpp; built from a
//                            Net by net_graph_builder.hpp)
//      StudyRecompute        recomputation facts, then the segments
//                            (recompute_study.hpp, recompute.hpp)
//      Analyze               buffer lifetimes over the step schedule
//                            (analyze.hpp)
//      MakePlan              offsets from lifetimes (planner.hpp)
//      Binder                points buffers into the plan through a
//                            MemoryResource, STATIC or DYNAMIC, with the
//                            readability guard (binder.hpp, guard.hpp)
//    NetMemory only strings them together and keeps the results; it never
//    reads a Net, so there is no cycle between Net and the memory code.
//  * A TEST-phase net is planned for forward only, unless it sets
//    force_backward; Net refuses Backward on a forward-only plan.
//  * As the net's StepHook it binds, pools and poisons around each step
//    (binder.hpp); PlanAndApply again after shapes change (StillApplied).
//  * Asking for blobs: SetKept pins blobs (data and diff) in every later
//    plan, as exclude_blob does, and plans again.  Request gives the data
//    (or diffs) of blobs memory of their own outside the plan, copying a
//    live value over, so it works at any point, mid-pass too; the request
//    is applied again after every re-plan.
//  * Recomputation (mem_param.recompute): a buffer a recomputed segment
//    fills again gets a second lifetime, planned like any other buffer, so
//    recomputation and sharing add up in one arena.
#ifndef CAFFE_MEM_NET_MEMORY_HPP_
#define CAFFE_MEM_NET_MEMORY_HPP_

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "caffe/mem/analyze.hpp"
#include "caffe/mem/binder.hpp"
#include "caffe/mem/net_graph.hpp"
#include "caffe/mem/planner.hpp"
#include "caffe/mem/recompute.hpp"
#include "caffe/mem/recompute_study.hpp"
#include "caffe/memory_resource.hpp"
#include "caffe/proto/caffe.pb.h"
#include "caffe/step_hook.hpp"

namespace caffe {

class NetMemory : public StepHook {
 public:
  typedef mem::Buffer Buffer;

  // `source` must outlive this object (the Net owns both).
  NetMemory(const mem::GraphSource* source,
            const MemoryOptimizationParameter& param,
            MemoryResource* resource = HostMemory());

  // Plans and applies; call again after shapes change.  Chooses the
  // recompute segments first when mem_param.recompute asks for them.
  void PlanAndApply();
  // The two halves: Plan() computes the plan (nothing allocated, no blob
  // touched), so a caller can weigh plan().total_bytes() against the
  // memory there is before Apply() binds the blobs to it.
  void Plan();
  void Apply();
  // True when the blobs still view the memory the plan gave them.
  bool StillApplied() const;

  void BeforeStep(int step) override { binder_.BeforeStep(step); }
  void AfterStep(int step) override { binder_.AfterStep(step); }
  // Logs every buffer's lifetime, place and size, and the totals.
  void LogPlan() const;
  // DYNAMIC: bytes of pool blocks still alive, old pools' included (what
  // the pool holds), and bytes the current pool allocated; 0 for STATIC.
  size_t pool_bytes() const { return binder_.pool_live_bytes(); }
  size_t pool_allocated_bytes() const { return binder_.pool_bytes(); }
  // Steps of one iteration (see mem/recompute.hpp MakeSchedule).
  int ForwardStep(int layer_id) const { return forward_step_[layer_id]; }
  int BackwardStep(int layer_id) const { return backward_step_[layer_id]; }
  // -1 when layer `layer_id` is not run again.  Run 1 is a nested part's
  // third run (-1 outside nested parts).
  int RecomputeStep(int layer_id, int run = 0) const {
    return run == 0 ? recompute_step_[layer_id] : nested_step_[layer_id];
  }
  int num_steps() const { return static_cast<int>(schedule_.size()); }
  const std::vector<mem::Step>& schedule() const { return schedule_; }
  bool forward_only() const { return graph_.forward_only; }
  const mem::NetGraph& graph() const { return graph_; }

  // Recomputation: the segments (one, not recomputed, without it; with
  // levels: 2, the parts of cut segments, mem/recompute.hpp), the
  // segment of each layer, the first and last layer its group recomputes
  // in one run, whether a layer may run twice, the blobs kept
  // at the segment ends, the extra forward work as a fraction of one
  // forward pass, and the planned bytes the same net needs without it.
  const std::vector<mem::Segment>& segments() const { return segments_; }
  int SegmentOf(int layer_id) const { return segment_of_[layer_id]; }
  int GroupBegin(int segment) const { return group_begin_[segment]; }
  int GroupEnd(int segment) const { return group_end_[segment]; }
  bool recomputes() const { return segments_.size() > 1; }
  bool recomputable(int layer_id) const {
    return facts_.recomputable[layer_id];
  }
  // Forward cost of a layer as the plan weighed it: milliseconds when
  // measured (graph().costs_measured), else estimated work.
  double layer_cost(int layer_id) const { return facts_.layer_cost[layer_id]; }
  const std::vector<std::string>& checkpoints() const { return checkpoints_; }
  double extra_forward_fraction() const { return extra_forward_fraction_; }
  size_t bytes_without_recompute() const { return bytes_without_recompute_; }
  // auto: CHEAP: the planned bytes of its finest split (a cut after every
  // expensive layer), which the split it chose never exceeds; 0 otherwise.
  size_t cheap_finest_bytes() const { return cheap_finest_bytes_; }
  // auto: BUDGET: the extra forward work of the searched split with its
  // keeps, before RefineBudgetPlan moved its cuts (0 otherwise); the
  // plan's extra_forward_fraction() is never more.
  double budget_searched_fraction() const {
    return budget_searched_fraction_;
  }

  // Blobs (ids) kept out of sharing in every later plan, as exclude_blob
  // keeps them (data and diff); plans again when the set changes.
  void SetKept(const std::set<int>& blob_ids);
  const std::set<int>& kept() const { return kept_; }
  // The blobs whose data (diff) the caller reads after the coming passes:
  // each gets memory of its own outside the plan, now and after every
  // re-plan, until a new request of the same kind replaces the set.
  void Request(const std::set<int>& blob_ids, bool diff);
  size_t detached_bytes() const { return binder_.detached_bytes(); }
  // Bytes the binder holds now (arena, live pool blocks, detached
  // buffers): the part of the plan already allocated.
  size_t bound_bytes() const {
    return binder_.arena_bytes() + binder_.pool_live_bytes() +
           binder_.detached_bytes();
  }
  void set_marks_not_readable(bool on) { binder_.set_marks_not_readable(on); }

  // One entry per buffer lifetime: a buffer whose value is computed again
  // by recomputation has two entries (same memory, two placements).
  const std::vector<Buffer>& buffers() const { return analysis_.buffers; }
  const std::vector<mem::BufferRequest>& requests() const {
    return analysis_.requests;
  }
  const mem::Plan& plan() const { return plan_; }
  // True when the plan gives memory a buffer left at a step in
  // [first_step, last_step) to a buffer born in (first_step, last_step]:
  // work spanning those steps at once (a fused chain) could then write
  // bytes it still reads.  In-place-by-plan partners do not count, nor
  // two lifetimes that are never read (values recomputation makes again).
  bool HandsOverWithin(int first_step, int last_step) const;
  const MemoryOptimizationParameter& param() const { return param_; }

 private:
  bool ScanHandsOver(int first_step, int last_step) const;
  void SetSegments(const std::vector<int>& boundaries,
                   const std::vector<int>& inner = {});
  mem::Analysis AnalyzeNow() const;
  // The outer boundaries; levels: 2 also sets inner_boundaries_.
  std::vector<int> ChooseBoundaries();
  // levels: 2 (the search is in net_memory.cpp): SQRT's smallest peak
  // when `budget` is 0, else BUDGET's least extra cost within it (empty
  // when none fits); *smallest_peak gets the least peak tried.
  std::vector<int> ChooseNested(size_t budget = 0,
                                size_t* smallest_peak = nullptr);
  // The outer splits ChooseNested cuts again, `sqrt` (SQRT's own, may be
  // empty) first.
  std::vector<std::vector<int> > NestedOuterSplits(
      const std::vector<int>& sqrt) const;
  // `parts` (per segment of `outer`) with each segment, in turn, cut into
  // the fewest parts that keep the planned peak within `limit`.
  std::vector<int> ThinParts(const std::vector<int>& outer,
                             std::vector<int> parts, size_t limit);
  // Cuts splitting each recomputed segment of `outer` into parts[g]
  // parts of about equal bytes (1: uncut).
  std::vector<int> NestedCuts(const std::vector<int>& outer,
                              const std::vector<int>& parts) const;
  std::vector<int> CheckpointBoundaries() const;
  // Forward cost the segments rerun, over one forward pass (facts_'s
  // costs: measured or estimated); `inner` cuts them again (levels: 2).
  double ExtraCost(const std::vector<int>& boundaries,
                   const std::vector<int>& inner = {}) const;
  // BUDGET, for one split (with levels: 2, its `inner` cuts): keeps the
  // outputs of expensive layers inside recomputed segments (never rerun),
  // the most forward cost per byte first, each only while the planned
  // peak stays within `budget` (up to a run of misses) and every cut can
  // still end a segment.  Returns the keep flags; facts_ describe them.
  // `keep`: outputs already kept (empty: none).
  std::vector<bool> KeepWhatFits(const std::vector<int>& boundaries,
                                 size_t budget,
                                 const std::vector<int>& inner = {},
                                 std::vector<bool> keep = {});
  // BUDGET's last stage, for the chosen split `outer` (and
  // inner_boundaries_) with outputs `keep` kept (facts_ describe them):
  // moves its cuts where rerunning costs less and still fits
  // (mem::RefineCuts), then keeps more outputs in the room that leaves,
  // for a few rounds; once from `keep`, once from no kept outputs, and
  // the cheaper result wins.  Updates *outer, inner_boundaries_, facts_.
  void RefineBudgetPlan(std::vector<int>* outer, size_t budget,
                        bool allow_inner, std::vector<bool> keep);
  size_t PlannedBytes(const std::vector<int>& boundaries,
                      const std::vector<int>& inner = {});
  // PlannedBytes's answers for the current facts_, by boundaries: the
  // choice of segments and Plan() itself ask for some splits more than
  // once (the unsplit net, the chosen split).  SetFacts clears them.
  std::map<std::vector<int>, size_t> planned_bytes_;
  void SetFacts(mem::RecomputeFacts facts);
  void DetachRequested();

  const mem::GraphSource* source_;
  MemoryOptimizationParameter param_;
  mem::Binder binder_;
  mem::NetGraph graph_;
  mem::MemorySignature signature_;
  mem::RecomputeFacts facts_;
  mem::Analysis analysis_;
  mem::Plan plan_;
  // HandsOverWithin's answers for plan_, by (first_step, last_step): asked
  // for the same chains every pass, and an answer costs a scan of the
  // requests.  Cleared by Plan().
  mutable std::map<std::pair<int, int>, bool> hands_over_;
  // The schedule and where each layer's steps are in it.
  std::vector<mem::Segment> segments_;
  std::vector<mem::Step> schedule_;
  std::vector<int> forward_step_, recompute_step_, nested_step_,
      backward_step_;
  std::vector<int> segment_of_, group_begin_, group_end_;
  std::vector<int> inner_boundaries_;
  std::vector<std::string> checkpoints_;
  double extra_forward_fraction_ = 0;
  size_t bytes_without_recompute_ = 0;
  size_t cheap_finest_bytes_ = 0;
  double budget_searched_fraction_ = 0;
  // Asked-for blobs: pinned ids and requested ids (data, diff).
  std::set<int> kept_;
  std::set<int> requested_[2];
};

}  // namespace caffe

#endif  // CAFFE_MEM_NET_MEMORY_HPP_
