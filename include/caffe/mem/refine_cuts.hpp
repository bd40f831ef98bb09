// refine_cuts.hpp: a local search that moves a recomputation plan's cuts
// to where rerunning costs less, while the plan still fits its budget.
//
// A pure module like recompute.hpp: the net is a sequence of layers
// 0..num_layers-1, a plan is its outer boundaries and inner cuts
// (MakeNestedSegments's arguments), and the caller supplies what a plan
// costs and whether it fits, so the search is tested on synthetic chains.
//
// Why: BUDGET's splits place cuts by bytes (equal-bytes and threshold
// splits), then weigh their costs.  Where a cut lands inside a costly
// stretch (ResNet-50's stem: a 7x7 convolution and a max pooling), a cut a
// few layers away can save a third run of that stretch for a few MiB.  The
// splits cannot see that; a search over nearby cuts, judged by the real
// planner, can.
//
// Contract:
//  * RefineCuts starts from `start`, which must fit, and returns a plan
//    that fits and costs no more than it.
//  * Each round it lists the moves of a plan: every cut moved to one of
//    the `reach` nearest candidates on either side (never past a
//    neighbouring cut), every cut removed, an inner cut made an outer
//    boundary and an outer boundary made an inner cut (only with
//    `allow_inner`).  Moves that would not lower the cost are dropped;
//    the rest are tried, the largest saving first, and the first that fits
//    is taken.  It stops when no move fits or after `max_fits_asked` calls
//    of `fits`.
//  * Every plan handed to `cost` and `fits` is valid for
//    MakeNestedSegments, with every cut among `candidates`.
#ifndef CAFFE_MEM_REFINE_CUTS_HPP_
#define CAFFE_MEM_REFINE_CUTS_HPP_

#include <functional>
#include <vector>

namespace caffe {
namespace mem {

struct Cuts {
  std::vector<int> outer;  // boundaries, ascending
  std::vector<int> inner;  // cuts inside recomputed segments, ascending
  bool operator==(const Cuts& o) const {
    return outer == o.outer && inner == o.inner;
  }
};

struct RefineOptions {
  int reach = 3;             // candidates a cut may move each way per move
  bool allow_inner = true;   // false: single-level plans only
  int max_fits_asked = 300;  // bound on planner calls
};

// True when `c` is a plan MakeNestedSegments accepts and every cut is in
// `candidates` (sorted).
bool ValidCuts(const Cuts& c, const std::vector<int>& candidates,
               int num_layers);

Cuts RefineCuts(const std::vector<int>& candidates, int num_layers,
                const Cuts& start,
                const std::function<double(const Cuts&)>& cost,
                const std::function<bool(const Cuts&)>& fits,
                const RefineOptions& options = RefineOptions());

}  // namespace mem
}  // namespace caffe

#endif  // CAFFE_MEM_REFINE_CUTS_HPP_
