// The process-wide GPU arithmetic settings (util/gpu_math_options.hpp).
#include "caffe/util/gpu_math_options.hpp"

#include <atomic>

#include "caffe/common.hpp"

namespace caffe {

namespace {
// Atomics: a setting may be changed by one thread (a Python script) while
// a solver thread of a multi-GPU run reads it.
std::atomic<bool> allow_tf32{false};
std::atomic<bool> allow_nondeterministic{false};
std::atomic<int> conv_algo{static_cast<int>(ConvAlgoSearch::kHeuristic)};
std::atomic<int> channel_split{0};
}  // namespace

void SetAllowTf32(bool allow) { allow_tf32.store(allow); }
bool AllowTf32() { return allow_tf32.load(); }

void SetAllowNondeterministic(bool allow) {
  allow_nondeterministic.store(allow);
}
bool AllowNondeterministic() { return allow_nondeterministic.load(); }

void SetConvAlgo(ConvAlgoSearch search) {
  conv_algo.store(static_cast<int>(search));
}
ConvAlgoSearch ConvAlgo() {
  return static_cast<ConvAlgoSearch>(conv_algo.load());
}

ConvAlgoSearch ParseConvAlgo(const std::string& name) {
  if (name == "heuristic") return ConvAlgoSearch::kHeuristic;
  if (name == "find") return ConvAlgoSearch::kFind;
  throw Error("conv_algo must be 'heuristic' or 'find', not '" + name + "'");
}

const char* ConvAlgoName(ConvAlgoSearch search) {
  return search == ConvAlgoSearch::kFind ? "find" : "heuristic";
}

void SetChannelSplit(int blocks) {
  if (blocks < 0 || blocks > 8) {
    throw Error("the channel split must be 0 (by shape) to 8 blocks, not " +
                std::to_string(blocks));
  }
  channel_split.store(blocks);
}
int ChannelSplit() { return channel_split.load(); }

}  // namespace caffe
