// recompute.hpp: where to cut a net into segments that are run forward again
// during backward, and the order of steps that results.
//
// A pure module like planner.hpp: layers are numbered 0..L-1 in forward
// order and described only by numbers (bytes each produces, forward cost,
// whether it may run twice), so it is tested on synthetic sequences.
//
// Contract:
//  * A boundary b ends a segment after layer b.  Boundaries b_1 < ... < b_k
//    cut the layers into k + 1 segments; every segment but the last is
//    recomputed: its forward runs again, from the values kept at its
//    inputs, just before its layers' backward.  The last segment's values
//    are still live when backward starts, so it is never run twice.
//  * MakeSchedule lists one iteration's steps: forward of every layer, then
//    group by group from the last, the recompute steps of the group's
//    recomputable layers and, part by part from its last, a nested part's
//    recompute steps again and the backward steps of all the part's layers
//    (layers L-1 down to 0 overall, as without recomputation).
//  * Nested recomputation (MakeNestedSegments): inner boundaries cut a
//    recomputed segment again into parts.  Its recomputation still runs
//    all its layers once; the values of every part but the last are then
//    dropped after their last forward read, and each such part runs a
//    third time just before its own backward, from the values kept at its
//    inputs.  Only one part's interior is live during the segment's
//    backward, for the cost of one more forward pass over those parts.
//    The parts are Segments of their own, with the segment's `group`.
//  * Extra forward work is the cost of the recomputed layers over the cost
//    of one forward pass (nested parts count twice).  It depends only on the last boundary: every
//    layer before it runs twice whatever the other boundaries are; those
//    only trade the memory of kept inputs against segment interiors.
//  * SqrtBoundaries: about sqrt(n) segments of equal bytes (Chen et al.
//    2016, "Training Deep Nets with Sublinear Memory Cost").
//    BestSublinearBoundaries (auto: SQRT) keeps the best of that and of
//    Chen's threshold greedy over a grid of thresholds, cutting where the
//    fewest bytes cross; none when no split lowers the planned peak.
//  * FitBudget: the least extra forward work whose planned peak fits.  It
//    searches the last boundary exactly by bisection over the candidates,
//    which assumes that moving the last boundary later never raises the
//    best peak (recomputing more keeps less); the boundaries before it are
//    an equal-bytes split, the best of k = 1..K segments, or the split
//    that is optimal for Chen's segment model (ModelPeak).  So the extra
//    work is minimal among the plans tried; the peak is the planner's.
#ifndef CAFFE_MEM_RECOMPUTE_HPP_
#define CAFFE_MEM_RECOMPUTE_HPP_

#include <cstddef>
#include <functional>
#include <vector>

namespace caffe {
namespace mem {

struct Segment {
  int begin = 0;  // first layer
  int end = 0;    // last layer (inclusive)
  bool recompute = false;
  // A part of a recomputed segment that runs a third time, just before
  // its backward (every part but the segment's last).
  bool nested = false;
  // Parts of one recomputed segment share its group and are recomputed in
  // one run; without inner boundaries each segment is a group of its own.
  int group = 0;
};

struct Step {
  enum Kind { kForward, kRecompute, kBackward };
  int layer = 0;
  Kind kind = kForward;
  // Recompute steps: which run of recomputation, numbered from 1 in
  // schedule order (a group's run, then each nested part's run); 0 for
  // forward and backward steps.  A memory filled again by a later run
  // starts a new lifetime (analyze.hpp).
  int run = 0;
};

// Throws std::invalid_argument for boundaries out of [0, num_layers - 2].
std::vector<Segment> MakeSegments(int num_layers,
                                  const std::vector<int>& boundaries);

// `boundaries` as MakeSegments; each of `inner` (ascending) cuts the
// recomputed segment that holds it, before that segment's last layer.
// Throws std::invalid_argument for an inner boundary outside every
// recomputed segment or at a segment's end.
std::vector<Segment> MakeNestedSegments(int num_layers,
                                        const std::vector<int>& boundaries,
                                        const std::vector<int>& inner);

// recomputable[i] false: layer i is never run twice (data layers, layers
// whose forward changes state); its outputs are kept instead.
std::vector<Step> MakeSchedule(const std::vector<Segment>& segments,
                               const std::vector<bool>& recomputable);

// Cost of the recomputed layers over the cost of all layers.
double ExtraForwardFraction(const std::vector<Segment>& segments,
                            const std::vector<bool>& recomputable,
                            const std::vector<double>& layer_cost);

// Boundaries, chosen among `candidates` (sorted), that cut layers
// [0, last] into at most k segments of about equal bytes (`last` itself
// is not returned as a boundary).
std::vector<int> EqualBytesBoundaries(const std::vector<int>& candidates,
                                      const std::vector<double>& layer_bytes,
                                      int last, int k);

// Cuts, among `candidates` in [first, last - 1], that split layers
// [first, last] into at most k parts of about equal bytes.
std::vector<int> EqualBytesCuts(const std::vector<int>& candidates,
                                const std::vector<double>& layer_bytes,
                                int first, int last, int k);

// About sqrt(n) segments of equal bytes over the whole net.
std::vector<int> SqrtBoundaries(const std::vector<int>& candidates,
                                const std::vector<double>& layer_bytes);

// Chen et al.'s greedy split with a threshold: walk the layers adding up
// their bytes; once the sum since the last cut reaches `threshold`, cut at
// the candidate, among those passed since the sum reached a quarter of it,
// where the fewest bytes cross (crossing_bytes[b]: bytes written at or
// before layer b and read by a forward after it, which the next segment's
// recomputation needs kept).
std::vector<int> ThresholdBoundaries(const std::vector<int>& candidates,
                                     const std::vector<double>& layer_bytes,
                                     const std::vector<double>& crossing_bytes,
                                     double threshold);

// The distinct non-empty splits of the sublinear family: the equal-bytes
// sqrt split, threshold splits over a geometric grid of thresholds, and
// the model-optimal splits (MinModelPeakSplit) ending at 16 cuts spread
// over the net.
std::vector<std::vector<int> > SublinearSplits(
    const std::vector<int>& candidates, const std::vector<double>& layer_bytes,
    const std::vector<double>& crossing_bytes);

// The split with the smallest peak_of among SublinearSplits; empty when
// none beats no recomputation.
std::vector<int> BestSublinearBoundaries(
    const std::vector<int>& candidates, const std::vector<double>& layer_bytes,
    const std::vector<double>& crossing_bytes,
    const std::function<size_t(const std::vector<int>&)>& peak_of);

// Chen et al.'s segment model of a split's peak: while segment j's
// backward runs, the bytes crossing every cut before it (what the
// recomputations still to come need) and segment j's interior (the
// layer_bytes it writes) are live; when backward starts, every cut's
// crossing bytes and the last segment, which is never recomputed.
// `boundaries` ascending; the peak is the largest of those sums.
double ModelPeak(const std::vector<int>& boundaries,
                 const std::vector<double>& layer_bytes,
                 const std::vector<double>& crossing_bytes);

// The split of layers [0, last] into segments, `last` ending the last
// recomputed one, with the least ModelPeak over every choice of cuts
// among `candidates` (sorted; must hold `last`): a dynamic program over
// the cuts for a cap on the peak, the cap found by bisection, so the
// result is optimal for the model (exact up to a relative 1e-9).
// Returned ascending, ending with `last`.
std::vector<int> MinModelPeakSplit(const std::vector<int>& candidates,
                                   const std::vector<double>& layer_bytes,
                                   const std::vector<double>& crossing_bytes,
                                   int last);

struct BudgetResult {
  bool fits = false;
  std::vector<int> boundaries;    // the choice when it fits
  size_t peak = 0;                // its planned peak
  size_t smallest_peak = 0;       // the least peak found (when none fits)
};

// peak_of(boundaries) is the planned peak of that choice.  With
// crossing_bytes, the split before each last boundary tried includes the
// model-optimal one (MinModelPeakSplit) besides the equal-bytes splits.
BudgetResult FitBudget(
    const std::vector<int>& candidates, const std::vector<double>& layer_bytes,
    size_t budget,
    const std::function<size_t(const std::vector<int>&)>& peak_of,
    const std::vector<double>* crossing_bytes = nullptr);

}  // namespace mem
}  // namespace caffe

#endif  // CAFFE_MEM_RECOMPUTE_HPP_
