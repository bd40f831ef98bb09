#include "caffe/mem/net_memory.hpp"

#include <algorithm>
#include <set>
#include <sstream>
#include <utility>

#include "caffe/mem/guard.hpp"
#include "caffe/mem/refine_cuts.hpp"

namespace caffe {

NetMemory::NetMemory(const mem::GraphSource* source,
                     const MemoryOptimizationParameter& param,
                     MemoryResource* resource)
    : source_(source), param_(param), binder_(resource) {}

void NetMemory::SetSegments(const std::vector<int>& boundaries,
                            const std::vector<int>& inner) {
  const int num_layers = graph_.num_layers();
  segments_ = mem::MakeNestedSegments(num_layers, boundaries, inner);
  schedule_ = mem::MakeSchedule(segments_, facts_.recomputable);
  forward_step_.assign(num_layers, -1);
  recompute_step_.assign(num_layers, -1);
  nested_step_.assign(num_layers, -1);
  backward_step_.assign(num_layers, -1);
  segment_of_.assign(num_layers, 0);
  group_begin_.assign(segments_.size(), 0);
  group_end_.assign(segments_.size(), 0);
  for (size_t s = 0; s < segments_.size(); ++s) {
    for (int i = segments_[s].begin; i <= segments_[s].end; ++i)
      segment_of_[i] = static_cast<int>(s);
    size_t first = s, last = s;
    while (first > 0 && segments_[first - 1].group == segments_[s].group)
      --first;
    while (last + 1 < segments_.size() &&
           segments_[last + 1].group == segments_[s].group)
      ++last;
    group_begin_[s] = segments_[first].begin;
    group_end_[s] = segments_[last].end;
  }
  for (size_t s = 0; s < schedule_.size(); ++s) {
    const mem::Step& step = schedule_[s];
    // A nested part's layers are recomputed twice: the group's run comes
    // first in the schedule.
    std::vector<int>& at =
        step.kind == mem::Step::kForward ? forward_step_
        : step.kind == mem::Step::kBackward ? backward_step_
        : recompute_step_[step.layer] < 0   ? recompute_step_
                                            : nested_step_;
    at[step.layer] = static_cast<int>(s);
  }
  checkpoints_.clear();
  for (size_t s = 0; s + 1 < segments_.size(); ++s)
    checkpoints_.push_back(mem::SegmentEndName(graph_, segments_[s].end));
  extra_forward_fraction_ = mem::ExtraForwardFraction(
      segments_, facts_.recomputable, facts_.layer_cost);
}

mem::Analysis NetMemory::AnalyzeNow() const {
  mem::AnalyzeOptions options;
  options.share_diff = param_.share_diff();
  // Slot reuse (levels 0 and 1) would let a small buffer take a scratch
  // slot between a layer's steps and make the next step's scratch a new
  // slot; those levels leave scratch to the thread's shared workspace.
  options.plan_scratch = param_.level() >= 2;
  options.exclude_blob.assign(param_.exclude_blob().begin(),
                              param_.exclude_blob().end());
  options.kept_blobs = kept_;
  return mem::Analyze(graph_, schedule_, options);
}

void NetMemory::SetFacts(mem::RecomputeFacts facts) {
  facts_ = std::move(facts);
  planned_bytes_.clear();  // plans depend on what may be recomputed
}

size_t NetMemory::PlannedBytes(const std::vector<int>& boundaries,
                               const std::vector<int>& inner) {
  // One key for both lists: -1 never is a boundary.
  std::vector<int> key = boundaries;
  if (!inner.empty()) {
    key.push_back(-1);
    key.insert(key.end(), inner.begin(), inner.end());
  }
  const auto known = planned_bytes_.find(key);
  if (known != planned_bytes_.end()) return known->second;
  SetSegments(boundaries, inner);
  return planned_bytes_[key] =
             mem::MakePlan(AnalyzeNow().requests, param_.level())
                 .total_bytes();
}

std::vector<int> NetMemory::CheckpointBoundaries() const {
  std::vector<int> boundaries;
  const int num_layers = graph_.num_layers();
  for (const std::string& name : param_.recompute().checkpoint()) {
    // Names of the other phase only were warned about (mem_param_check).
    const int blob = graph_.BlobIndex(name);
    if (blob < 0) continue;
    const int end = mem::CheckpointEnd(graph_, blob);
    CAFFE_CHECK_GE(end, 0) << "mem_param.recompute.checkpoint '" << name
                           << "' is not produced by any layer";
    if (end >= num_layers - 1) continue;  // nothing after it to cut
    const std::vector<int>& candidates = facts_.boundary_candidates;
    CAFFE_CHECK(std::binary_search(candidates.begin(), candidates.end(), end))
        << "mem_param.recompute.checkpoint '" << name << "' cannot end a "
        << "segment: a layer after '" << graph_.layers[end].name
        << "' writes in place into memory written before it, or no "
        << "layer before it can run twice; choose a blob after the "
        << "in-place chain";
    boundaries.push_back(end);
  }
  std::sort(boundaries.begin(), boundaries.end());
  boundaries.erase(std::unique(boundaries.begin(), boundaries.end()),
                   boundaries.end());
  return boundaries;
}

std::vector<int> NetMemory::ChooseBoundaries() {
  const RecomputeParameter& rp = param_.recompute();
  if (graph_.forward_only || !param_.has_recompute()) return {};
  if (rp.checkpoint_size() > 0) return CheckpointBoundaries();
  auto peak_of = [this](const std::vector<int>& b) { return PlannedBytes(b); };
  switch (rp.auto_()) {
    case RecomputeParameter_Auto_NONE:
      return {};
    case RecomputeParameter_Auto_SQRT: {
      if (rp.levels() == 2) return ChooseNested();
      // Small nets can need more with segments than without (the kept
      // inputs outweigh the interiors): then recompute nothing.
      const std::vector<int> b = mem::BestSublinearBoundaries(
          facts_.boundary_candidates, facts_.layer_bytes,
          facts_.crossing_bytes, peak_of);
      if (b.empty())
        LOG(INFO) << "mem_param.recompute: no segments lower the planned "
                  << "peak of net '" << graph_.net_name
                  << "'; nothing is recomputed";
      return b;
    }
    case RecomputeParameter_Auto_CHEAP: {
      // Expensive layers are kept (the study never reruns them), so every
      // split reruns each cheap layer before its last cut once; the splits
      // differ only in what stays live.  The finest, a cut after every
      // expensive layer, keeps each cheap value a later segment reads
      // (ResNet's block outputs, read again by the next Eltwise) from
      // forward until that segment's recompute; coarser splits rerun those
      // inside the segment instead.  The smallest planned peak among the
      // finest and SQRT's family wins.
      const std::vector<bool> expensive =
          mem::ExpensiveLayers(graph_, rp.cheap_multiply_adds());
      std::vector<int> finest;
      for (int c : facts_.boundary_candidates)
        if (expensive[c]) finest.push_back(c);
      // With no expensive layer before the end (everything may rerun),
      // SQRT's family alone competes.
      if (!finest.empty()) cheap_finest_bytes_ = PlannedBytes(finest);
      std::vector<int> b = mem::BestSublinearBoundaries(
          facts_.boundary_candidates, facts_.layer_bytes,
          facts_.crossing_bytes, peak_of);
      const size_t without = PlannedBytes({});
      size_t peak = b.empty() ? without : PlannedBytes(b);
      if (!finest.empty() && cheap_finest_bytes_ < peak) {
        b = finest;
        peak = cheap_finest_bytes_;
      }
      if (peak >= without) {
        LOG(INFO) << "mem_param.recompute: recomputing the cheap layers "
                  << "does not lower the planned peak of net '"
                  << graph_.net_name << "'; nothing is recomputed";
        b.clear();
      }
      return b;
    }
    case RecomputeParameter_Auto_BUDGET: {
      // mem_param_check guarantees a positive budget.
      const size_t budget =
          static_cast<size_t>(rp.memory_budget_mb() * 1024.0 * 1024.0);
      const mem::BudgetResult r =
          mem::FitBudget(facts_.boundary_candidates, facts_.layer_bytes,
                         budget, peak_of, &facts_.crossing_bytes);
      if (r.fits && r.boundaries.empty()) return {};
      // The bisection's split and SQRT's family compete: every fitting
      // split, with the expensive outputs it has room to keep, and the
      // least extra forward cost wins.
      std::vector<std::vector<int> > fitting;
      if (r.fits) fitting.push_back(r.boundaries);
      size_t smallest = r.smallest_peak;
      for (const std::vector<int>& b : mem::SublinearSplits(
               facts_.boundary_candidates, facts_.layer_bytes,
               facts_.crossing_bytes)) {
        const size_t p = PlannedBytes(b);
        smallest = std::min(smallest, p);
        if (p <= budget) fitting.push_back(b);
      }
      if (fitting.empty() && rp.levels() == 2) {
        // No single level fits: segments cut again may.
        size_t nested_smallest = smallest;
        const std::vector<int> b = ChooseNested(budget, &nested_smallest);
        if (!b.empty()) {
          // The room left under the budget keeps expensive outputs.
          std::vector<int> outer = b;
          RefineBudgetPlan(&outer, budget, true,
                           KeepWhatFits(b, budget, inner_boundaries_));
          return outer;
        }
        smallest = std::min(smallest, nested_smallest);
      }
      CAFFE_CHECK(!fitting.empty())
          << "mem_param.recompute: no recomputation plan of net '"
          << graph_.net_name << "' fits memory_budget_mb: "
          << rp.memory_budget_mb() << "; the smallest planned peak found is "
          << smallest / (1024.0 * 1024.0)
          << " MB (activations, gradients and layer buffers at level "
          << param_.level() << "); set memory_budget_mb to at least that";
      // The cheapest few before keeping (each keeping pass is many plans).
      std::vector<std::pair<double, std::vector<int> > > by_cost;
      for (const std::vector<int>& b : fitting)
        by_cost.push_back({ExtraCost(b), b});
      std::stable_sort(by_cost.begin(), by_cost.end(),
                       [](const std::pair<double, std::vector<int> >& a,
                          const std::pair<double, std::vector<int> >& b) {
                         return a.first < b.first;
                       });
      const size_t kMaxSplits = 4;
      if (by_cost.size() > kMaxSplits) by_cost.resize(kMaxSplits);
      const mem::RecomputeFacts all_recomputed = facts_;
      std::vector<int> best;
      std::vector<bool> best_keep;
      double best_cost = 0;
      for (const auto& f : by_cost) {
        SetFacts(all_recomputed);
        const std::vector<bool> keep = KeepWhatFits(f.second, budget);
        const double cost = ExtraCost(f.second);
        if (best.empty() || cost < best_cost) {
          best = f.second;
          best_keep = keep;
          best_cost = cost;
        }
      }
      SetFacts(mem::StudyRecompute(graph_, best_keep));
      RefineBudgetPlan(&best, budget, rp.levels() == 2, best_keep);
      return best;
    }
  }
  return {};
}

std::vector<int> NetMemory::NestedCuts(const std::vector<int>& outer,
                                       const std::vector<int>& parts) const {
  const std::vector<mem::Segment> segments =
      mem::MakeSegments(graph_.num_layers(), outer);
  std::vector<int> cuts;
  for (size_t g = 0; g < segments.size(); ++g) {
    if (!segments[g].recompute || parts[g] < 2) continue;
    for (int c : mem::EqualBytesCuts(facts_.boundary_candidates,
                                     facts_.layer_bytes, segments[g].begin,
                                     segments[g].end, parts[g]))
      cuts.push_back(c);
  }
  return cuts;
}

std::vector<std::vector<int> > NetMemory::NestedOuterSplits(
    const std::vector<int>& sqrt) const {
  // SQRT's choice, equal-bytes splits of the whole net into 2..12
  // segments, and, for 16 last cuts spread over the net, the layers before
  // each split into 1..6 segments of equal bytes (cutting segments again
  // favours fewer, larger ones, and the last segment, never recomputed, is
  // live whole when backward starts).
  const int n = graph_.num_layers();
  const std::vector<int>& c = facts_.boundary_candidates;
  std::vector<std::vector<int> > outers;
  auto add = [&outers](const std::vector<int>& b) {
    if (!b.empty() &&
        std::find(outers.begin(), outers.end(), b) == outers.end())
      outers.push_back(b);
  };
  add(sqrt);
  for (int k = 2; k <= 12; ++k)
    add(mem::EqualBytesBoundaries(c, facts_.layer_bytes, n - 1, k));
  const int num_c = static_cast<int>(c.size());
  const int kLasts = 16;
  for (int j = 1; j <= kLasts && num_c > 0; ++j) {
    const int last = c[std::min(num_c - 1, (num_c * j) / kLasts)];
    for (int k = 1; k <= 6; ++k) {
      std::vector<int> b =
          mem::EqualBytesCuts(c, facts_.layer_bytes, 0, last, k);
      b.push_back(last);
      add(b);
    }
  }
  return outers;
}

std::vector<int> NetMemory::ChooseNested(size_t budget,
                                         size_t* smallest_peak) {
  // Each outer split (NestedOuterSplits) is tried with every recomputed
  // segment cut in two; the best four again with three and four parts.
  // Without a budget the smallest peak wins, thinned (ThinParts) within
  // that peak; with one, the least extra forward cost after thinning
  // within the budget, among the cheapest few that fit.
  auto peak_of = [this](const std::vector<int>& b) { return PlannedBytes(b); };
  const std::vector<int> sqrt =
      mem::BestSublinearBoundaries(facts_.boundary_candidates,
                                   facts_.layer_bytes, facts_.crossing_bytes,
                                   peak_of);
  const std::vector<std::vector<int> > outers = NestedOuterSplits(sqrt);
  struct Tried {
    size_t outer;
    int parts;  // every recomputed segment cut into this many
    size_t peak;
  };
  auto uniform = [](const std::vector<int>& outer, int m) {
    return std::vector<int>(outer.size() + 1, m);
  };
  // Outer split o with every recomputed segment in m parts.
  auto cuts_of = [&](size_t o, int m) {
    return NestedCuts(outers[o], uniform(outers[o], m));
  };
  auto tried_with = [&](size_t o, int m) {
    return Tried{o, m, PlannedBytes(outers[o], cuts_of(o, m))};
  };
  std::vector<Tried> tried;
  for (size_t o = 0; o < outers.size(); ++o) tried.push_back(tried_with(o, 2));
  std::vector<Tried> by_peak = tried;
  std::stable_sort(by_peak.begin(), by_peak.end(),
                   [](const Tried& a, const Tried& b) {
                     return a.peak < b.peak;
                   });
  for (size_t t = 0; t < by_peak.size() && t < 4; ++t)
    for (int m = 3; m <= 4; ++m)
      tried.push_back(tried_with(by_peak[t].outer, m));
  // SQRT's own split, uncut (outers[0] when SQRT found one).
  if (!sqrt.empty()) tried.push_back({0, 1, PlannedBytes(sqrt)});
  const size_t without = PlannedBytes({});
  size_t smallest = without;
  const Tried* smallest_tried = nullptr;
  for (const Tried& t : tried)
    if (t.peak < smallest) {
      smallest = t.peak;
      smallest_tried = &t;
    }
  if (smallest_peak) *smallest_peak = smallest;
  if (budget == 0) {
    if (!smallest_tried) {
      LOG(INFO) << "mem_param.recompute: no segments lower the planned "
                << "peak of net '" << graph_.net_name
                << "'; nothing is recomputed";
      return {};
    }
    const std::vector<int>& outer = outers[smallest_tried->outer];
    inner_boundaries_ = NestedCuts(
        outer, ThinParts(outer, uniform(outer, smallest_tried->parts),
                         smallest_tried->peak));
    return outer;
  }
  // With a budget: thinning lowers a plan's cost by an amount that
  // differs from plan to plan, so the cheapest few that fit are each
  // thinned within the budget and compared after.  So is SQRT levels 2's
  // own plan (the smallest peak, thinned within that peak), so that BUDGET
  // never reruns more than it where it fits.
  auto cost_of = [&](const std::vector<int>& outer,
                     const std::vector<int>& parts) {
    return ExtraCost(outer, NestedCuts(outer, parts));
  };
  std::vector<std::pair<double, const Tried*> > fitting;
  for (const Tried& t : tried)
    if (t.peak <= budget)
      fitting.push_back(
          {cost_of(outers[t.outer], uniform(outers[t.outer], t.parts)), &t});
  if (fitting.empty()) return {};
  std::stable_sort(fitting.begin(), fitting.end(),
                   [](const std::pair<double, const Tried*>& a,
                      const std::pair<double, const Tried*>& b) {
                     return a.first < b.first;
                   });
  const size_t kThinned = 4;
  std::vector<std::pair<const Tried*, size_t> > thin;  // plan, limit
  for (size_t i = 0; i < fitting.size() && i < kThinned; ++i)
    thin.push_back({fitting[i].second, budget});
  if (smallest_tried && smallest_tried->peak <= budget)
    thin.push_back({smallest_tried, smallest_tried->peak});
  const Tried* best = nullptr;
  std::vector<int> best_parts;
  double best_cost = 0;
  for (const std::pair<const Tried*, size_t>& t : thin) {
    const std::vector<int>& outer = outers[t.first->outer];
    const std::vector<int> parts =
        ThinParts(outer, uniform(outer, t.first->parts), t.second);
    const double cost = cost_of(outer, parts);
    if (!best || cost < best_cost) {
      best = t.first;
      best_parts = parts;
      best_cost = cost;
    }
  }
  const std::vector<int>& best_outer = outers[best->outer];
  inner_boundaries_ = NestedCuts(best_outer, best_parts);
  return best_outer;
}

std::vector<int> NetMemory::ThinParts(const std::vector<int>& outer,
                                      std::vector<int> parts, size_t limit) {
  for (size_t g = 0; g < parts.size(); ++g) {
    for (int fewer = 1; fewer < parts[g]; ++fewer) {
      std::vector<int> thinner = parts;
      thinner[g] = fewer;
      if (PlannedBytes(outer, NestedCuts(outer, thinner)) <= limit) {
        parts = thinner;
        break;
      }
    }
  }
  return parts;
}

double NetMemory::ExtraCost(const std::vector<int>& boundaries,
                            const std::vector<int>& inner) const {
  return mem::ExtraForwardFraction(
      mem::MakeNestedSegments(graph_.num_layers(), boundaries, inner),
      facts_.recomputable, facts_.layer_cost);
}

std::vector<bool> NetMemory::KeepWhatFits(const std::vector<int>& boundaries,
                                          size_t budget,
                                          const std::vector<int>& inner,
                                          std::vector<bool> keep) {
  if (keep.empty()) keep.assign(graph_.num_layers(), false);
  if (boundaries.empty()) return keep;
  const mem::RecomputeFacts all_recomputed = mem::StudyRecompute(graph_);
  // Expensive layers the segments would run again, the most forward cost
  // per byte of output first: keeping such an output saves the most
  // recomputation for the memory it holds.
  std::vector<int> order;
  for (int i = 0; i <= boundaries.back(); ++i)
    if (graph_.layers[i].expensive && all_recomputed.recomputable[i] &&
        !keep[i])
      order.push_back(i);
  auto density = [&all_recomputed](int layer) {
    return all_recomputed.layer_cost[layer] /
           std::max(1.0, all_recomputed.layer_bytes[layer]);
  };
  std::stable_sort(order.begin(), order.end(), [&density](int a, int b) {
    return density(a) > density(b);
  });
  // Each try is a whole plan: stop after a run of outputs that did not
  // fit (the later ones hold more bytes for their cost).
  const int kMaxMisses = 8;
  int misses = 0;
  for (int layer : order) {
    if (misses >= kMaxMisses) break;
    keep[layer] = true;
    SetFacts(mem::StudyRecompute(graph_, keep));
    const std::vector<int>& c = facts_.boundary_candidates;
    bool still_cuts = true;
    for (const std::vector<int>* cuts : {&boundaries, &inner})
      for (int b : *cuts)
        still_cuts = still_cuts && std::binary_search(c.begin(), c.end(), b);
    const size_t p =
        still_cuts ? PlannedBytes(boundaries, inner) : budget + 1;
    if (p > budget) {
      keep[layer] = false;
      ++misses;
    } else {
      misses = 0;
    }
  }
  SetFacts(mem::StudyRecompute(graph_, keep));
  return keep;
}

void NetMemory::RefineBudgetPlan(std::vector<int>* outer, size_t budget,
                                 bool allow_inner, std::vector<bool> keep) {
  const int n = graph_.num_layers();
  auto cost = [this](const mem::Cuts& c) {
    return ExtraCost(c.outer, c.inner);
  };
  auto fits = [this, budget](const mem::Cuts& c) {
    return PlannedBytes(c.outer, c.inner) <= budget;
  };
  mem::RefineOptions options;
  options.allow_inner = allow_inner;
  struct Refined {
    mem::Cuts cuts;
    std::vector<bool> keep;
    double cost;
  };
  // From cuts `cur` with outputs `k` kept (facts_ describe them): moving
  // cuts can free room that keeps another output, and a kept output
  // changes which cuts pay, so a few rounds of each.
  auto refine = [&](mem::Cuts cur, std::vector<bool> k) {
    const int kRounds = 3;
    for (int round = 0; round < kRounds; ++round) {
      const mem::Cuts moved = mem::RefineCuts(facts_.boundary_candidates, n,
                                              cur, cost, fits, options);
      const std::vector<bool> more =
          KeepWhatFits(moved.outer, budget, moved.inner, k);
      const bool changed = !(moved == cur) || more != k;
      cur = moved;
      k = more;
      if (!changed) break;
    }
    return Refined{cur, k, cost(cur)};
  };
  const mem::Cuts searched{*outer, inner_boundaries_};
  budget_searched_fraction_ = cost(searched);
  // Two starts: the searched keeps, which fill the budget first, and none,
  // which leaves the cuts room to move before outputs are kept.
  const Refined with_keeps = refine(searched, keep);
  SetFacts(mem::StudyRecompute(graph_));
  Refined best = with_keeps;
  if (mem::ValidCuts(searched, facts_.boundary_candidates, n) &&
      fits(searched)) {
    const Refined without = refine(searched, std::vector<bool>(n, false));
    if (without.cost < best.cost) best = without;
  }
  SetFacts(mem::StudyRecompute(graph_, best.keep));
  *outer = best.cuts.outer;
  inner_boundaries_ = best.cuts.inner;
  if (best.cost < budget_searched_fraction_)
    LOG(INFO) << "mem_param.recompute: BUDGET refined its plan (cuts "
              << "moved, outputs kept): extra forward work "
              << 100 * budget_searched_fraction_ << "% -> " << 100 * best.cost
              << "% of one forward pass";
}

bool NetMemory::HandsOverWithin(int first_step, int last_step) const {
  const std::pair<int, int> key(first_step, last_step);
  const auto known = hands_over_.find(key);
  if (known != hands_over_.end()) return known->second;
  return hands_over_[key] = ScanHandsOver(first_step, last_step);
}

bool NetMemory::ScanHandsOver(int first_step, int last_step) const {
  const std::vector<mem::BufferRequest>& q = analysis_.requests;
  const std::vector<mem::Buffer>& buffers = analysis_.buffers;
  const std::vector<mem::Placement>& at = plan_.placements;
  if (at.size() != q.size()) return true;
  for (size_t born = 0; born < q.size(); ++born) {
    if (q[born].first_step <= first_step || q[born].first_step > last_step)
      continue;
    for (size_t left = 0; left < q.size(); ++left) {
      if (q[left].last_step < first_step || q[left].last_step >= last_step ||
          q[born].in_place_of == static_cast<int>(left) ||
          at[left].slot != at[born].slot)
        continue;
      // Two values nobody reads may overwrite each other.
      if (!buffers[left].read && !buffers[born].read) continue;
      const size_t a = at[born].offset, b = at[left].offset;
      if (a < b + q[left].bytes && b < a + q[born].bytes) return true;
    }
  }
  return false;
}

void NetMemory::PlanAndApply() {
  Plan();
  Apply();
}

void NetMemory::Plan() {
  graph_ = source_->Graph();
  signature_ = source_->Signature();
  cheap_finest_bytes_ = 0;
  budget_searched_fraction_ = 0;
  const RecomputeParameter& rp = param_.recompute();
  const bool cheap = param_.has_recompute() && rp.checkpoint_size() == 0 &&
                     rp.auto_() == RecomputeParameter_Auto_CHEAP;
  SetFacts(mem::StudyRecompute(
      graph_, cheap ? mem::ExpensiveLayers(graph_, rp.cheap_multiply_adds())
                    : std::vector<bool>()));
  inner_boundaries_.clear();
  std::vector<int> boundaries = ChooseBoundaries();
  if (!boundaries.empty()) bytes_without_recompute_ = PlannedBytes({});
  SetSegments(boundaries, inner_boundaries_);
  analysis_ = AnalyzeNow();
  plan_ = mem::MakePlan(analysis_.requests, param_.level());
  hands_over_.clear();
  // "Unshared" is what Caffe 1.0 would allocate: each buffer once, not
  // once per lifetime.
  for (size_t i = 0; i < analysis_.buffers.size(); ++i)
    if (analysis_.buffers[i].lifetime >= 1)
      plan_.unshared_bytes -= mem::AlignUp(analysis_.requests[i].bytes);
  // Nor once per aliased gradient: Caffe 1.0 gives each blob its diff.
  for (const mem::GraphLayer& l : graph_.layers)
    if (l.diff_aliased_bottom >= 0)
      plan_.unshared_bytes +=
          mem::AlignUp(graph_.blobs[l.tops[0]].count_bytes);
  if (boundaries.empty()) bytes_without_recompute_ = plan_.total_bytes();
  if (param_.check()) {
    const std::string err = mem::CheckPlan(analysis_.requests, plan_);
    CAFFE_INTERNAL_CHECK(err.empty()) << "memory plan is unsound: " << err;
  }
}

void NetMemory::Apply() {
  mem::Binding b;
  for (const Buffer& buf : analysis_.buffers) {
    b.memory.push_back(graph_.memories[buf.memory].memory);
    b.lifetime.push_back(buf.lifetime);
    b.kept.push_back(buf.layer_id >= 0);
    b.scratch.push_back(buf.scratch);
  }
  b.requests = analysis_.requests;
  b.plan = plan_;
  b.num_steps = num_steps();
  b.notes = mem::MakeGuardNotes(graph_, analysis_.buffers);
  for (const mem::GraphMemory& m : graph_.memories)
    b.all_memories.push_back(m.memory);
  b.dynamic =
      param_.release() == MemoryOptimizationParameter_Release_DYNAMIC;
  b.check = param_.check();
  b.element_bytes = graph_.element_bytes;
  binder_.Bind(b);
  DetachRequested();
}

bool NetMemory::StillApplied() const {
  return source_->Signature() == signature_;
}

void NetMemory::SetKept(const std::set<int>& blob_ids) {
  if (blob_ids == kept_) return;
  kept_ = blob_ids;
  PlanAndApply();
}

void NetMemory::Request(const std::set<int>& blob_ids, bool diff) {
  requested_[diff ? 1 : 0] = blob_ids;
  DetachRequested();
}

void NetMemory::DetachRequested() {
  for (int diff = 0; diff < 2; ++diff)
    for (int id : requested_[diff]) {
      const mem::GraphBlob& blob = graph_.blobs[id];
      SyncedMemory* m = graph_.memories[diff ? blob.diff : blob.data].memory;
      if (m) binder_.Detach(m);
    }
}

void NetMemory::LogPlan() const {
  const bool dynamic =
      param_.release() == MemoryOptimizationParameter_Release_DYNAMIC;
  LOG(INFO) << "Memory plan (level " << plan_.level << ", "
            << (dynamic ? "DYNAMIC" : "STATIC") << "), steps 0-"
            << num_steps() - 1 << ":";
  for (size_t i = 0; i < analysis_.requests.size(); ++i) {
    const mem::BufferRequest& r = analysis_.requests[i];
    const Buffer& b = analysis_.buffers[i];
    std::ostringstream s;
    s << "  " << r.name << ": " << r.bytes << " bytes, steps "
      << r.first_step << "-" << r.last_step;
    if (b.pinned) {
      s << ", own memory (" << b.pin_reason << ")";
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

}  // namespace caffe
