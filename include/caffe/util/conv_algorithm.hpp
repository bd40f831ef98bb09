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
#ifndef CAFFE_UTIL_CONV_ALGORITHM_HPP_
#define CAFFE_UTIL_CONV_ALGORITHM_HPP_

#include <cstddef>
#include <vector>

namespace caffe {

struct ConvAlgorithmCandidate {
  int algo = 0;                // the library's enum value
  bool ok = true;              // the library can run it for these shapes
  bool deterministic = true;
  bool tensor_core = false;    // reduced-precision products (TF32)
  size_t workspace_bytes = 0;
};

inline int ChooseAlgorithm(const std::vector<ConvAlgorithmCandidate>& ranked,
                           size_t workspace_limit, bool deterministic,
                           bool allow_tensor_core = false) {
  for (size_t i = 0; i < ranked.size(); ++i) {
    const ConvAlgorithmCandidate& c = ranked[i];
    if (!c.ok || (deterministic && !c.deterministic)) continue;
    if (c.tensor_core && !allow_tensor_core) continue;
    if (c.workspace_bytes <= workspace_limit) return static_cast<int>(i);
  }
  return -1;
}

}  // namespace caffe

#endif  // CAFFE_UTIL_CONV_ALGORITHM_HPP_
