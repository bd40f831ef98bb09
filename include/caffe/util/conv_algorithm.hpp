// conv_algorithm.hpp: choosing a convolution algorithm under a workspace
// limit -- a pure function, so it is tested with made-up candidate lists
// on machines without a GPU.
//
// Contract: `ranked` is what the library's heuristic returned (cuDNN's
// Get*Algorithm_v7), best first.  ChooseAlgorithm returns the index of the
// first candidate that succeeded, is deterministic when `deterministic`
// is asked for (the bit-identity promise of mem_param and recomputation
// needs it), uses tensor-core math only when `allow_tensor_core` (TF32
// for floats: util/gpu_math_options.hpp), and whose workspace fits
// `workspace_limit` -- so with a limit of 0 the best zero-workspace
// algorithm wins -- or -1 when none does (the caller then runs its own
// im2col path).  The ranking is the heuristic's or, with conv_algo find,
// measured times: this function does not care which.
//
// Each direction of a convolution (forward, backward to the data, backward
// to the filter) is chosen on its own, and where no algorithm fits for the
// whole batch, LargestFittingChunk looks for a smaller number of images
// per call for which one does: cuDNN's workspace grows with the batch for
// many algorithms, and images are independent in forward and backward to
// the data (the filter's gradient adds the chunks in order, a fixed order).
#ifndef CAFFE_UTIL_CONV_ALGORITHM_HPP_
#define CAFFE_UTIL_CONV_ALGORITHM_HPP_

#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

namespace caffe {

struct ConvAlgorithmCandidate {
  int algo = 0;                // the library's enum value
  bool ok = true;              // the library can run it for these shapes
  bool deterministic = true;
  bool tensor_core = false;    // reduced-precision products (TF32)
  size_t workspace_bytes = 0;
};

// Whether `c` may be chosen at all, whatever its workspace: the one rule
// that both ChooseAlgorithm and LeastEligibleWorkspace apply.
inline bool EligibleAlgorithm(const ConvAlgorithmCandidate& c,
                              bool deterministic, bool allow_tensor_core) {
  if (!c.ok || (deterministic && !c.deterministic)) return false;
  return allow_tensor_core || !c.tensor_core;
}

inline int ChooseAlgorithm(const std::vector<ConvAlgorithmCandidate>& ranked,
                           size_t workspace_limit, bool deterministic,
                           bool allow_tensor_core = false) {
  for (size_t i = 0; i < ranked.size(); ++i) {
    const ConvAlgorithmCandidate& c = ranked[i];
    if (EligibleAlgorithm(c, deterministic, allow_tensor_core) &&
        c.workspace_bytes <= workspace_limit)
      return static_cast<int>(i);
  }
  return -1;
}

// The least workspace of any candidate ChooseAlgorithm could take under
// some limit, or SIZE_MAX when none is eligible: what a log says when a
// direction has no algorithm within its limit.
inline size_t LeastEligibleWorkspace(
    const std::vector<ConvAlgorithmCandidate>& ranked, bool deterministic,
    bool allow_tensor_core = false) {
  size_t least = SIZE_MAX;
  for (const ConvAlgorithmCandidate& c : ranked) {
    if (EligibleAlgorithm(c, deterministic, allow_tensor_core) &&
        c.workspace_bytes < least)
      least = c.workspace_bytes;
  }
  return least;
}

// For the log: every candidate in ranked order, as "algorithm: workspace
// bytes" with what rules it out of a deterministic choice (failed,
// nondeterministic) or marks it (TF32), e.g.
// "1: 4096 B; 0: 0 B nondeterministic; 6: 134217728 B TF32".
inline std::string DescribeCandidates(
    const std::vector<ConvAlgorithmCandidate>& ranked) {
  std::ostringstream s;
  for (size_t i = 0; i < ranked.size(); ++i) {
    const ConvAlgorithmCandidate& c = ranked[i];
    if (i > 0) s << "; ";
    s << c.algo << ": " << c.workspace_bytes << " B";
    if (!c.ok) s << " failed";
    if (!c.deterministic) s << " nondeterministic";
    if (c.tensor_core) s << " TF32";
  }
  return ranked.empty() ? "none offered" : s.str();
}

// The three directions of a convolution, each with its own algorithm.
enum class ConvDirection { kForward = 0, kData = 1, kFilter = 2 };
constexpr int kConvDirections = 3;
inline const char* ConvDirectionName(ConvDirection d) {
  switch (d) {
    case ConvDirection::kForward: return "forward";
    case ConvDirection::kData: return "backward to the data";
    case ConvDirection::kFilter: return "backward to the filter";
  }
  return "?";
}

// The number of images per call for a batch of `num`: `first` (at most
// num) and then its halvings, rounded up, down to 1, the first `c` for
// which `fits(c)` holds and, when c does not divide num, `fits(num % c)`
// for the shorter last call too (workspaces need not grow with the batch).
// 0 when none does: that direction takes the layer's own path.  `fits` may
// be asked about one size more than once (a tail may equal a later chunk).
template <typename Fits>
int LargestFittingChunk(int num, int first, Fits fits) {
  for (int c = first < num ? first : num; c >= 1; c = (c + 1) / 2) {
    if (fits(c) && (num % c == 0 || fits(num % c))) return c;
    if (c == 1) break;
  }
  return 0;
}

}  // namespace caffe

#endif  // CAFFE_UTIL_CONV_ALGORITHM_HPP_
