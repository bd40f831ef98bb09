#include "caffe/mem/mem_param_check.hpp"

#include <algorithm>
#include <numeric>

#include "caffe/common.hpp"

namespace caffe {
namespace mem {

namespace {

size_t EditDistance(const std::string& a, const std::string& b) {
  std::vector<size_t> row(b.size() + 1);
  std::iota(row.begin(), row.end(), 0);
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1,
                         diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = up;
    }
  }
  return row[b.size()];
}

bool Contains(const std::vector<std::string>& names, const std::string& n) {
  return std::find(names.begin(), names.end(), n) != names.end();
}

// Checks one blob name a field gives; returns a warning or "".
std::string CheckName(const char* field, const std::string& name,
                      const NetNames& names) {
  if (Contains(names.blobs, name)) return "";
  const std::string other = names.phase == "TRAIN" ? "TEST" : "TRAIN";
  if (Contains(names.other_phase_blobs, name))
    return std::string(field) + " '" + name + "' is a blob of net '" +
           names.net + "' only in the " + other + " phase; the " +
           names.phase + " plan ignores it";
  std::string nearest;
  for (const std::string& n : NearestNames(name, names.blobs, 3))
    nearest += (nearest.empty() ? "'" : ", '") + n + "'";
  CAFFE_THROW() << field << " '" << name << "': net '" << names.net
                << "' (" << names.phase << ") has no blob of that name"
                << (nearest.empty() ? std::string()
                                    : "; nearest: " + nearest);
  return "";
}

}  // namespace

std::vector<std::string> NearestNames(const std::string& name,
                                      const std::vector<std::string>& names,
                                      size_t n) {
  std::vector<std::pair<size_t, size_t> > scored;  // distance, index
  for (size_t i = 0; i < names.size(); ++i)
    scored.emplace_back(EditDistance(name, names[i]), i);
  std::stable_sort(scored.begin(), scored.end(),
                   [](const std::pair<size_t, size_t>& a,
                      const std::pair<size_t, size_t>& b) {
                     return a.first < b.first;
                   });
  std::vector<std::string> out;
  for (size_t i = 0; i < scored.size() && out.size() < n; ++i)
    if (!Contains(out, names[scored[i].second]))
      out.push_back(names[scored[i].second]);
  return out;
}

size_t WorkspaceLimitBytes(const MemoryOptimizationParameter& p,
                           const std::string& net) {
  const double mb = p.workspace_limit_mb();
  CAFFE_CHECK(mb > 0 && mb < 1e12)
      << "mem_param.workspace_limit_mb of net '" << net << "' is " << mb
      << "; it must be a positive number of MB";
  return static_cast<size_t>(mb * 1024.0 * 1024.0);
}

std::vector<std::string> CheckMemParam(const MemoryOptimizationParameter& p,
                                       const NetNames& names) {
  CAFFE_CHECK(p.level() >= 0 && p.level() <= 2)
      << "mem_param.level of net '" << names.net << "' is " << p.level()
      << "; it must be 0 (same-size reuse), 1 (best fit) or 2 (one arena)";
  const RecomputeParameter& rp = p.recompute();
  if (rp.has_memory_budget_mb())
    CAFFE_CHECK(rp.memory_budget_mb() > 0)
        << "mem_param.recompute.memory_budget_mb of net '" << names.net
        << "' is " << rp.memory_budget_mb() << "; it must be positive (MB)";
  CAFFE_CHECK(rp.auto_() != RecomputeParameter_Auto_BUDGET ||
              rp.has_memory_budget_mb())
      << "mem_param.recompute of net '" << names.net
      << "': auto: BUDGET needs memory_budget_mb (a positive number of MB)";
  CAFFE_CHECK(rp.levels() == 1 || rp.levels() == 2)
      << "mem_param.recompute.levels of net '" << names.net << "' is "
      << rp.levels() << "; it must be 1 (segments) or 2 (segments cut again)";
  CAFFE_CHECK(rp.levels() == 1 ||
              ((rp.auto_() == RecomputeParameter_Auto_SQRT ||
                rp.auto_() == RecomputeParameter_Auto_BUDGET) &&
               rp.checkpoint_size() == 0))
      << "mem_param.recompute of net '" << names.net
      << "': levels: 2 needs auto: SQRT or BUDGET and no checkpoint list";
  CAFFE_CHECK(!rp.has_cheap_multiply_adds() ||
              (rp.auto_() == RecomputeParameter_Auto_CHEAP &&
               rp.checkpoint_size() == 0))
      << "mem_param.recompute of net '" << names.net
      << "': cheap_multiply_adds needs auto: CHEAP and no checkpoint list";
  std::vector<std::string> warnings;
  for (const std::string& name : p.exclude_blob()) {
    std::string w = CheckName("mem_param.exclude_blob", name, names);
    if (!w.empty()) warnings.push_back(w);
  }
  for (const std::string& name : rp.checkpoint()) {
    std::string w = CheckName("mem_param.recompute.checkpoint", name, names);
    if (!w.empty()) warnings.push_back(w);
  }
  return warnings;
}

}  // namespace mem
}  // namespace caffe
