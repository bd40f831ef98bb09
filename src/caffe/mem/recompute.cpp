#include "caffe/mem/recompute.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <stdexcept>
#include <string>

namespace caffe {
namespace mem {

std::vector<Segment> MakeSegments(int num_layers,
                                  const std::vector<int>& boundaries) {
  std::vector<Segment> segments;
  int begin = 0;
  for (int b : boundaries) {
    if (b < begin || b >= num_layers - 1)
      throw std::invalid_argument(
          "recompute boundary " + std::to_string(b) +
          " is not increasing or not inside layers 0.." +
          std::to_string(num_layers - 2));
    Segment s;
    s.begin = begin;
    s.end = b;
    s.recompute = true;
    s.group = static_cast<int>(segments.size());
    segments.push_back(s);
    begin = b + 1;
  }
  if (begin < num_layers) {
    Segment last;
    last.begin = begin;
    last.end = num_layers - 1;
    last.group = static_cast<int>(segments.size());
    segments.push_back(last);
  }
  return segments;
}

std::vector<Segment> MakeNestedSegments(int num_layers,
                                        const std::vector<int>& boundaries,
                                        const std::vector<int>& inner) {
  const std::vector<Segment> outer = MakeSegments(num_layers, boundaries);
  std::vector<Segment> parts;
  size_t next = 0;  // the first inner boundary not yet used
  for (size_t g = 0; g < outer.size(); ++g) {
    Segment part = outer[g];
    part.group = static_cast<int>(g);
    while (next < inner.size() && inner[next] < outer[g].end) {
      const int b = inner[next];
      if (!outer[g].recompute || b < part.begin)
        throw std::invalid_argument(
            "inner recompute boundary " + std::to_string(b) +
            " is not increasing or not inside a recomputed segment");
      Segment cut = part;
      cut.end = b;
      cut.nested = true;
      parts.push_back(cut);
      part.begin = b + 1;
      ++next;
    }
    parts.push_back(part);
  }
  if (next < inner.size())
    throw std::invalid_argument("inner recompute boundary " +
                                std::to_string(inner[next]) +
                                " ends a segment or lies past the last one");
  return parts;
}

std::vector<Step> MakeSchedule(const std::vector<Segment>& segments,
                               const std::vector<bool>& recomputable) {
  std::vector<Step> steps;
  int num_layers = segments.empty() ? 0 : segments.back().end + 1;
  for (int i = 0; i < num_layers; ++i) steps.push_back({i, Step::kForward});
  int run = 0;
  auto recompute = [&](int begin, int end) {
    ++run;
    for (int i = begin; i <= end; ++i)
      if (recomputable[i]) steps.push_back({i, Step::kRecompute, run});
  };
  for (int last = static_cast<int>(segments.size()) - 1; last >= 0;) {
    int first = last;  // the group's first part
    while (first > 0 && segments[first - 1].group == segments[last].group)
      --first;
    if (segments[last].recompute)
      recompute(segments[first].begin, segments[last].end);
    for (int p = last; p >= first; --p) {
      if (segments[p].nested) recompute(segments[p].begin, segments[p].end);
      for (int i = segments[p].end; i >= segments[p].begin; --i)
        steps.push_back({i, Step::kBackward});
    }
    last = first - 1;
  }
  return steps;
}

double ExtraForwardFraction(const std::vector<Segment>& segments,
                            const std::vector<bool>& recomputable,
                            const std::vector<double>& layer_cost) {
  double total = 0, extra = 0;
  for (double c : layer_cost) total += c;
  for (const Segment& s : segments)
    if (s.recompute)
      for (int i = s.begin; i <= s.end; ++i)
        if (recomputable[i]) extra += layer_cost[i] * (s.nested ? 2 : 1);
  return total > 0 ? extra / total : 0.0;
}

std::vector<int> EqualBytesBoundaries(const std::vector<int>& candidates,
                                      const std::vector<double>& layer_bytes,
                                      int last, int k) {
  std::vector<double> prefix(layer_bytes.size() + 1, 0.0);
  for (size_t i = 0; i < layer_bytes.size(); ++i)
    prefix[i + 1] = prefix[i] + layer_bytes[i];
  const double total = prefix[last + 1];
  std::vector<int> out;
  size_t next = 0;  // candidates before it are used or passed
  for (int j = 1; j < k; ++j) {
    const double target = total * j / k;
    // The candidate whose cumulative bytes lie closest to the target.
    int best = -1;
    double best_gap = std::numeric_limits<double>::max();
    for (size_t c = next; c < candidates.size() && candidates[c] < last;
         ++c) {
      const double gap = std::fabs(prefix[candidates[c] + 1] - target);
      if (gap < best_gap) {
        best_gap = gap;
        best = static_cast<int>(c);
      }
    }
    if (best < 0) break;
    out.push_back(candidates[best]);
    next = best + 1;
  }
  return out;
}

std::vector<int> EqualBytesCuts(const std::vector<int>& candidates,
                                const std::vector<double>& layer_bytes,
                                int first, int last, int k) {
  std::vector<int> inside;
  for (int c : candidates)
    if (c >= first && c < last) inside.push_back(c);
  std::vector<double> bytes(layer_bytes.begin(),
                            layer_bytes.begin() + last + 1);
  std::fill(bytes.begin(), bytes.begin() + first, 0.0);
  return EqualBytesBoundaries(inside, bytes, last, k);
}

std::vector<int> SqrtBoundaries(const std::vector<int>& candidates,
                                const std::vector<double>& layer_bytes) {
  if (candidates.empty() || layer_bytes.empty()) return {};
  const int k = std::max(
      2, static_cast<int>(std::lround(std::sqrt(candidates.size() + 1.0))));
  return EqualBytesBoundaries(candidates, layer_bytes,
                              static_cast<int>(layer_bytes.size()) - 1, k);
}

std::vector<int> ThresholdBoundaries(const std::vector<int>& candidates,
                                     const std::vector<double>& layer_bytes,
                                     const std::vector<double>& crossing_bytes,
                                     double threshold) {
  std::vector<int> out;
  std::vector<bool> is_candidate(layer_bytes.size(), false);
  for (int c : candidates) is_candidate[c] = true;
  double sum = 0;
  int best = -1;  // the cheapest cut seen in the current window
  for (size_t i = 0; i + 1 < layer_bytes.size(); ++i) {
    sum += layer_bytes[i];
    if (is_candidate[i] && sum >= threshold / 4 &&
        (best < 0 || crossing_bytes[i] <= crossing_bytes[best]))
      best = static_cast<int>(i);
    if (sum >= threshold && best >= 0) {
      out.push_back(best);
      // What lies after the cut starts the next segment's sum.
      sum = 0;
      for (size_t j = best + 1; j <= i; ++j) sum += layer_bytes[j];
      best = -1;
    }
  }
  return out;
}

std::vector<std::vector<int> > SublinearSplits(
    const std::vector<int>& candidates, const std::vector<double>& layer_bytes,
    const std::vector<double>& crossing_bytes) {
  double total = 0;
  for (double b : layer_bytes) total += b;
  std::vector<std::vector<int> > splits;
  auto add = [&](const std::vector<int>& b) {
    if (!b.empty() && std::find(splits.begin(), splits.end(), b) ==
                          splits.end())
      splits.push_back(b);
  };
  add(SqrtBoundaries(candidates, layer_bytes));
  // Segment sizes from half the net down to 1/128 of it.
  for (double t = total / 2; t >= total / 128; t /= 1.1)
    add(ThresholdBoundaries(candidates, layer_bytes, crossing_bytes, t));
  // The model-optimal splits ending at 16 cuts spread over the net.
  const int n = static_cast<int>(candidates.size());
  const int kLasts = 16;
  for (int k = 1; k <= kLasts && n > 0; ++k)
    add(MinModelPeakSplit(candidates, layer_bytes, crossing_bytes,
                          candidates[std::min(n - 1, (n * k) / kLasts)]));
  return splits;
}

std::vector<int> BestSublinearBoundaries(
    const std::vector<int>& candidates, const std::vector<double>& layer_bytes,
    const std::vector<double>& crossing_bytes,
    const std::function<size_t(const std::vector<int>&)>& peak_of) {
  std::vector<int> best;
  size_t best_peak = peak_of({});
  for (const std::vector<int>& b :
       SublinearSplits(candidates, layer_bytes, crossing_bytes)) {
    const size_t p = peak_of(b);
    if (p < best_peak) {
      best_peak = p;
      best = b;
    }
  }
  return best;
}

namespace {

// Bytes layers [a + 1, b] write, from prefix sums.
double Interior(const std::vector<double>& prefix, int a, int b) {
  return prefix[b + 1] - prefix[a + 1];
}

std::vector<double> Prefix(const std::vector<double>& layer_bytes) {
  std::vector<double> prefix(layer_bytes.size() + 1, 0.0);
  for (size_t i = 0; i < layer_bytes.size(); ++i)
    prefix[i + 1] = prefix[i] + layer_bytes[i];
  return prefix;
}

}  // namespace

double ModelPeak(const std::vector<int>& boundaries,
                 const std::vector<double>& layer_bytes,
                 const std::vector<double>& crossing_bytes) {
  const std::vector<double> prefix = Prefix(layer_bytes);
  const int num_layers = static_cast<int>(layer_bytes.size());
  double kept = 0, peak = 0;
  int begin = -1;  // the cut before the segment
  for (int b : boundaries) {
    peak = std::max(peak, kept + Interior(prefix, begin, b));
    kept += crossing_bytes[b];
    begin = b;
  }
  return std::max(peak, kept + Interior(prefix, begin, num_layers - 1));
}

std::vector<int> MinModelPeakSplit(const std::vector<int>& candidates,
                                   const std::vector<double>& layer_bytes,
                                   const std::vector<double>& crossing_bytes,
                                   int last) {
  const std::vector<double> prefix = Prefix(layer_bytes);
  const int num_layers = static_cast<int>(layer_bytes.size());
  std::vector<int> cuts;  // the candidates up to last: the DP's nodes
  for (int c : candidates)
    if (c <= last) cuts.push_back(c);
  if (cuts.empty() || cuts.back() != last) return {last};
  const int m = static_cast<int>(cuts.size());
  const double inf = std::numeric_limits<double>::infinity();
  // kept[j]: the least crossing bytes kept after cut j over the splits
  // reaching it with every segment's term within the cap; from[j]: the
  // cut before (-1: the start).
  std::vector<double> kept(m);
  std::vector<int> from(m);
  auto feasible = [&](double cap) {
    for (int j = 0; j < m; ++j) {
      kept[j] = inf;
      if (Interior(prefix, -1, cuts[j]) <= cap) {
        kept[j] = crossing_bytes[cuts[j]];
        from[j] = -1;
      }
      for (int i = 0; i < j; ++i) {
        if (kept[i] == inf) continue;
        if (kept[i] + Interior(prefix, cuts[i], cuts[j]) > cap) continue;
        const double k = kept[i] + crossing_bytes[cuts[j]];
        if (k < kept[j]) {
          kept[j] = k;
          from[j] = i;
        }
      }
    }
    return kept[m - 1] != inf &&
           kept[m - 1] + Interior(prefix, last, num_layers - 1) <= cap;
  };
  double lo = 0, hi = prefix[num_layers] * 2 + 1;
  for (double c : crossing_bytes) hi += c;
  for (int it = 0; it < 200 && hi - lo > 1e-9 * hi; ++it) {
    const double mid = (lo + hi) / 2;
    if (feasible(mid)) {
      hi = mid;
    } else {
      lo = mid;
    }
  }
  feasible(hi);
  std::vector<int> split;
  for (int j = m - 1; j >= 0; j = from[j]) split.push_back(cuts[j]);
  std::reverse(split.begin(), split.end());
  return split;
}

BudgetResult FitBudget(
    const std::vector<int>& candidates, const std::vector<double>& layer_bytes,
    size_t budget,
    const std::function<size_t(const std::vector<int>&)>& peak_of,
    const std::vector<double>* crossing_bytes) {
  BudgetResult result;
  const size_t none = peak_of({});
  result.smallest_peak = none;
  if (none <= budget) {
    result.fits = true;
    result.peak = none;
    return result;
  }
  if (candidates.empty()) return result;
  // The best split with candidates[t] as the last boundary.
  std::map<int, std::pair<size_t, std::vector<int> > > memo;
  auto best_with_last = [&](int t) -> const std::pair<size_t, std::vector<int> >& {
    auto it = memo.find(t);
    if (it != memo.end()) return it->second;
    const std::vector<int> before(candidates.begin(), candidates.begin() + t);
    const int max_k = std::min(
        16, std::max(1, static_cast<int>(std::ceil(2 * std::sqrt(t + 1.0)))));
    std::pair<size_t, std::vector<int> > best(
        std::numeric_limits<size_t>::max(), {});
    std::vector<int> previous;
    for (int k = 1; k <= max_k; ++k) {
      std::vector<int> b =
          EqualBytesBoundaries(before, layer_bytes, candidates[t], k);
      b.push_back(candidates[t]);
      if (k > 1 && b == previous) continue;  // no new split at this k
      previous = b;
      const size_t p = peak_of(b);
      if (p < best.first) best = {p, b};
    }
    if (crossing_bytes) {
      const std::vector<int> b = MinModelPeakSplit(
          candidates, layer_bytes, *crossing_bytes, candidates[t]);
      const size_t p = peak_of(b);
      if (p < best.first) best = {p, b};
    }
    result.smallest_peak = std::min(result.smallest_peak, best.first);
    return memo.emplace(t, best).first->second;
  };
  int lo = 0, hi = static_cast<int>(candidates.size()) - 1;
  if (best_with_last(hi).first > budget) return result;
  while (lo < hi) {
    const int mid = (lo + hi) / 2;
    if (best_with_last(mid).first <= budget) {
      hi = mid;
    } else {
      lo = mid + 1;
    }
  }
  const auto& chosen = best_with_last(lo);
  result.fits = true;
  result.boundaries = chosen.second;
  result.peak = chosen.first;
  return result;
}

}  // namespace mem
}  // namespace caffe
