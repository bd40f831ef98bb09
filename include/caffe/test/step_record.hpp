// step_record.hpp: what every layer of a net produced in every training
// iteration -- its tops after its forward, its bottoms' and parameters'
// gradients after its backward -- in the order the net ran them, and the
// first place where two such records part (test_gpu_steps.cpp compares a
// GPU run with a CPU run this way; test_step_record.cpp tests the pieces
// on the CPU).
//
// Contract:
//  * Record(mode, net, iters) trains `net` with TrajectorySolver for
//    `iters` iterations in `mode`, fused chains off (a fused chain would
//    report the chain's result after each member), and returns one
//    Produced per top, propagated bottom diff and parameter diff.  It
//    reads each blob without changing its heads (Peek): reading through
//    cpu_data() would add host copies the plain run does not make, and so
//    could hide a missing one.
//  * FirstDeparture(gpu, cpu) returns "" when the records agree, else
//    where and how they first part: a different step, size, or a blob
//    whose |gpu - cpu| exceeds 1e-3 |cpu| + 1e-7 sqrt(n) in L2 norm
//    (relative, so gradients of 1e-4 are held as tightly as activations of
//    1), with its worst element.  NaN counts as out of tolerance.
#ifndef CAFFE_TEST_STEP_RECORD_HPP_
#define CAFFE_TEST_STEP_RECORD_HPP_

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "caffe/caffe.hpp"
#include "caffe/memory_resource.hpp"
#include "caffe/test/gpu_test_util.hpp"
#include "caffe/test/mem_trajectory_util.hpp"

namespace caffe {

// Copies a buffer's current bytes (from whichever head is current; zeros
// before the first write) into `dst`, leaving its heads, their state and
// the readability mark as they were.
inline void Peek(const SyncedMemory& m, void* dst) {
  switch (m.head()) {
    case SyncedMemory::UNINITIALIZED:
      std::memset(dst, 0, m.size());
      break;
    case SyncedMemory::HEAD_AT_CPU:
    case SyncedMemory::SYNCED:
      std::memcpy(dst, m.cpu_ptr(), m.size());
      break;
    case SyncedMemory::HEAD_AT_GPU:
      DeviceMemory()->Copy(dst, m.gpu_ptr(), m.size());
      break;
  }
}

// One layer's output in one iteration.
struct Produced {
  int iteration;
  std::string where;  // "layer 'x' forward top 'y'" and the like
  std::vector<float> values;
};

// Records what each layer produced, from the net's callbacks.
class Recorder : public Net<float>::Callback {
 public:
  Recorder(const Net<float>* net, bool forward, const int* iteration,
           std::vector<Produced>* out)
      : net_(net), forward_(forward), iteration_(iteration), out_(out) {}

  void run(int layer) override {
    const std::string name = "layer '" + net_->layer_names()[layer] + "' (" +
                             net_->layers()[layer]->type() + ")";
    if (forward_) {
      const std::vector<Blob<float>*>& tops = net_->top_vecs()[layer];
      for (size_t t = 0; t < tops.size(); ++t)
        Add(name + " forward top '" +
                net_->blob_names()[net_->top_ids(layer)[t]] + "'",
            tops[t]->data(), tops[t]->count());
      return;
    }
    const std::vector<Blob<float>*>& bottoms = net_->bottom_vecs()[layer];
    for (size_t b = 0; b < bottoms.size(); ++b) {
      if (!net_->bottom_need_backward()[layer][b]) continue;
      Add(name + " backward bottom diff '" +
              net_->blob_names()[net_->bottom_ids(layer)[b]] + "'",
          bottoms[b]->diff(), bottoms[b]->count());
    }
    const auto& params = net_->layers()[layer]->blobs();
    for (size_t p = 0; p < params.size(); ++p)
      Add(name + " backward param diff " + std::to_string(p),
          params[p]->diff(), params[p]->count());
  }

 private:
  void Add(const std::string& where,
           const std::shared_ptr<SyncedMemory>& memory, int count) {
    std::vector<float> values(count, 0.0f);
    if (memory && count > 0) {
      std::vector<char> bytes(memory->size());
      Peek(*memory, bytes.data());
      std::memcpy(values.data(), bytes.data(), count * sizeof(float));
    }
    out_->push_back({*iteration_, where, std::move(values)});
  }
  const Net<float>* net_;
  bool forward_;
  const int* iteration_;
  std::vector<Produced>* out_;
};

inline std::vector<Produced> Record(Caffe::Brew mode, const NetParameter& net,
                             int iters) {
  ModeScope scope(mode);
  std::unique_ptr<Solver<float> > solver(SolverRegistry<float>::CreateSolver(
      TrajectorySolver(net, nullptr, iters)));
  Net<float>* train = solver->net().get();
  // Fused chains report a chain's result after each member; one by one,
  // each member's own output is seen.
  train->set_fuse_chains(false);
  std::vector<Produced> out;
  int iteration = 0;
  train->add_after_forward(std::make_shared<Recorder>(train, true,
                                                      &iteration, &out));
  train->add_after_backward(std::make_shared<Recorder>(train, false,
                                                       &iteration, &out));
  for (; iteration < iters; ++iteration) solver->Step(1);
  return out;
}

inline std::string FirstDeparture(const std::vector<Produced>& gpu,
                           const std::vector<Produced>& cpu) {
  const size_t n = std::min(gpu.size(), cpu.size());
  for (size_t k = 0; k < n; ++k) {
    const Produced& g = gpu[k];
    const Produced& c = cpu[k];
    std::ostringstream at;
    at << "iteration " << c.iteration << ", " << c.where;
    if (g.where != c.where || g.iteration != c.iteration)
      return at.str() + ": the GPU ran " + g.where + " here";
    if (g.values.size() != c.values.size())
      return at.str() + ": " + std::to_string(g.values.size()) +
             " values on the GPU, " + std::to_string(c.values.size()) +
             " on the CPU";
    double diff2 = 0, norm2 = 0, worst = -1;
    size_t worst_at = 0;
    for (size_t i = 0; i < c.values.size(); ++i) {
      const double d = double(g.values[i]) - c.values[i];
      diff2 += d * d;
      norm2 += double(c.values[i]) * c.values[i];
      const double e = std::isnan(d) ? HUGE_VAL : std::fabs(d);
      if (e > worst) {
        worst = e;
        worst_at = i;
      }
    }
    const double count = static_cast<double>(c.values.size());
    if (!(std::sqrt(diff2) <=
          1e-3 * std::sqrt(norm2) + 1e-7 * std::sqrt(count))) {
      at << ": relative L2 error " << std::sqrt(diff2) / std::sqrt(norm2)
         << " (norm " << std::sqrt(norm2) << "); worst element " << worst_at
         << " of " << c.values.size() << ": " << g.values[worst_at]
         << " on the GPU, " << c.values[worst_at] << " on the CPU";
      return at.str();
    }
  }
  if (gpu.size() != cpu.size())
    return "the GPU recorded " + std::to_string(gpu.size()) + " outputs, "
           "the CPU " + std::to_string(cpu.size());
  return "";
}

}  // namespace caffe

#endif  // CAFFE_TEST_STEP_RECORD_HPP_
