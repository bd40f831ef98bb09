#include "caffe/mem/refine_cuts.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

namespace caffe {
namespace mem {

namespace {

struct Cut {
  int at;
  bool inner;
};

std::vector<Cut> Merged(const Cuts& c) {
  std::vector<Cut> m;
  for (int b : c.outer) m.push_back({b, false});
  for (int b : c.inner) m.push_back({b, true});
  std::sort(m.begin(), m.end(),
            [](const Cut& a, const Cut& b) { return a.at < b.at; });
  return m;
}

Cuts Split(const std::vector<Cut>& m) {
  Cuts c;
  for (const Cut& x : m) (x.inner ? c.inner : c.outer).push_back(x.at);
  return c;
}

// Inner cuts at or past the last outer boundary would lie in the segment
// that never runs twice: drop them (removing the last boundary removes the
// cuts inside its segment with it).
void DropStrandedInner(Cuts* c) {
  const int last = c->outer.empty() ? -1 : c->outer.back();
  c->inner.erase(std::remove_if(c->inner.begin(), c->inner.end(),
                                [last](int b) { return b >= last; }),
                 c->inner.end());
}

// The plans one move away from `cur` (valid ones only, no duplicates).
std::vector<Cuts> Moves(const Cuts& cur, const std::vector<int>& candidates,
                        int num_layers, const RefineOptions& o) {
  const std::vector<Cut> m = Merged(cur);
  std::vector<Cuts> out;
  auto add = [&](Cuts c) {
    if (!o.allow_inner && !c.inner.empty()) return;
    if (c == cur || !ValidCuts(c, candidates, num_layers)) return;
    if (std::find(out.begin(), out.end(), c) == out.end()) out.push_back(c);
  };
  const int n_c = static_cast<int>(candidates.size());
  for (size_t k = 0; k < m.size(); ++k) {
    const int lo = k > 0 ? m[k - 1].at : -1;
    const int hi = k + 1 < m.size() ? m[k + 1].at : num_layers - 1;
    const int ci = static_cast<int>(
        std::lower_bound(candidates.begin(), candidates.end(), m[k].at) -
        candidates.begin());
    for (int d = 1; d <= o.reach; ++d) {
      for (int to : {ci - d, ci + d}) {
        if (to < 0 || to >= n_c) continue;
        const int at = candidates[to];
        if (at <= lo || at >= hi) continue;
        std::vector<Cut> moved = m;
        moved[k].at = at;
        add(Split(moved));
      }
    }
    std::vector<Cut> removed = m;
    removed.erase(removed.begin() + k);
    Cuts r = Split(removed);
    DropStrandedInner(&r);
    add(r);
    std::vector<Cut> toggled = m;
    toggled[k].inner = !toggled[k].inner;
    add(Split(toggled));
  }
  return out;
}

}  // namespace

bool ValidCuts(const Cuts& c, const std::vector<int>& candidates,
               int num_layers) {
  auto sorted_distinct = [](const std::vector<int>& v) {
    for (size_t i = 1; i < v.size(); ++i)
      if (v[i] <= v[i - 1]) return false;
    return true;
  };
  if (!sorted_distinct(c.outer) || !sorted_distinct(c.inner)) return false;
  for (const std::vector<int>* v : {&c.outer, &c.inner})
    for (int b : *v)
      if (b < 0 || b > num_layers - 2 ||
          !std::binary_search(candidates.begin(), candidates.end(), b))
        return false;
  if (c.inner.empty()) return true;
  // Inner cuts lie inside recomputed segments, never at a segment's end.
  if (c.outer.empty() || c.inner.back() >= c.outer.back()) return false;
  for (int b : c.inner)
    if (std::binary_search(c.outer.begin(), c.outer.end(), b)) return false;
  return true;
}

Cuts RefineCuts(const std::vector<int>& candidates, int num_layers,
                const Cuts& start,
                const std::function<double(const Cuts&)>& cost,
                const std::function<bool(const Cuts&)>& fits,
                const RefineOptions& options) {
  Cuts cur = start;
  double cur_cost = cost(cur);
  int asked = 0;
  while (asked < options.max_fits_asked) {
    std::vector<std::pair<double, Cuts> > cheaper;
    const double eps = 1e-12 * std::max(1.0, std::fabs(cur_cost));
    for (Cuts& c : Moves(cur, candidates, num_layers, options)) {
      const double k = cost(c);
      if (k < cur_cost - eps) cheaper.push_back({k, std::move(c)});
    }
    std::stable_sort(cheaper.begin(), cheaper.end(),
                     [](const std::pair<double, Cuts>& a,
                        const std::pair<double, Cuts>& b) {
                       return a.first < b.first;
                     });
    bool moved = false;
    for (const std::pair<double, Cuts>& c : cheaper) {
      if (asked >= options.max_fits_asked) break;
      ++asked;
      if (fits(c.second)) {
        cur = c.second;
        cur_cost = c.first;
        moved = true;
        break;
      }
    }
    if (!moved) break;
  }
  return cur;
}

}  // namespace mem
}  // namespace caffe
