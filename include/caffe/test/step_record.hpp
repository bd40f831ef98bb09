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
//  * Record(mode, net, iters, &want) is the same run forced onto another
//    run's path: before each layer's forward its bottoms' data, and before
//    each backward its tops' diffs, are set to the values `want` (recorded
//    in the same order, on the CPU say) had there.  Each layer then
//    computes from the CPU's inputs, and a departure is that layer's own:
//    an unforced deep net amplifies rounding wherever a ReLU's input is
//    near 0 or a max-pooling window nearly ties, so its first departure
//    can name a correct layer (it did on the H200: caffenet's pool5,
//    resnet50's res5c_relu, one element each).  Parameters are not forced:
//    after an update they differ in their last bits only.
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
#include <map>
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
  enum Kind { kTop, kBottomDiff, kParamDiff };
  int iteration;
  std::string where;  // "layer 'x' forward top 'y'" and the like
  std::vector<float> values;
  Kind kind;
  std::string blob;  // the top's or bottom's name
};

// Writes `values` over a buffer through the head the current mode
// computes on (the GPU's in GPU mode), as the layer's own writes would.
inline void Overwrite(SyncedMemory* m, const std::vector<float>& values) {
  const size_t bytes = values.size() * sizeof(float);
  if (bytes > m->size()) return;
  if (Caffe::mode() == Caffe::GPU) {
    DeviceMemory()->Copy(m->mutable_gpu_data(), values.data(), bytes);
  } else {
    std::memcpy(m->mutable_cpu_data(), values.data(), bytes);
  }
}

// Sets a layer's inputs to what another run's record had at this point
// (see Record's contract): bottoms' data before forward, tops' diffs
// before backward.
class Forcer : public Net<float>::Callback {
 public:
  Forcer(const Net<float>* net, bool forward,
         const std::vector<Produced>* want, const std::vector<Produced>* got)
      : net_(net), forward_(forward), want_(want), got_(got) {}

  void run(int layer) override {
    // Catch up with the records this run has made so far; stop forcing
    // once the runs differ in their steps (FirstDeparture reports that).
    for (; seen_ < got_->size() && seen_ < want_->size(); ++seen_) {
      const Produced& w = (*want_)[seen_];
      if (w.where != (*got_)[seen_].where) return;
      if (w.kind == Produced::kTop) data_[w.blob] = &w.values;
      if (w.kind == Produced::kBottomDiff) diff_[w.blob] = &w.values;
    }
    if (seen_ < got_->size()) return;
    const std::vector<Blob<float>*>& blobs =
        forward_ ? net_->bottom_vecs()[layer] : net_->top_vecs()[layer];
    const std::vector<int>& ids =
        forward_ ? net_->bottom_ids(layer) : net_->top_ids(layer);
    auto& latest = forward_ ? data_ : diff_;
    for (size_t b = 0; b < blobs.size(); ++b) {
      auto it = latest.find(net_->blob_names()[ids[b]]);
      if (it == latest.end()) continue;
      Overwrite(forward_ ? blobs[b]->data().get() : blobs[b]->diff().get(),
                *it->second);
    }
  }

 private:
  const Net<float>* net_;
  bool forward_;
  const std::vector<Produced>* want_;
  const std::vector<Produced>* got_;
  size_t seen_ = 0;
  std::map<std::string, const std::vector<float>*> data_, diff_;
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
      for (size_t t = 0; t < tops.size(); ++t) {
        const std::string& blob = net_->blob_names()[net_->top_ids(layer)[t]];
        Add(name + " forward top '" + blob + "'", Produced::kTop, blob,
            tops[t]->data(), tops[t]->count());
      }
      return;
    }
    const std::vector<Blob<float>*>& bottoms = net_->bottom_vecs()[layer];
    for (size_t b = 0; b < bottoms.size(); ++b) {
      if (!net_->bottom_need_backward()[layer][b]) continue;
      const std::string& blob =
          net_->blob_names()[net_->bottom_ids(layer)[b]];
      Add(name + " backward bottom diff '" + blob + "'",
          Produced::kBottomDiff, blob, bottoms[b]->diff(),
          bottoms[b]->count());
    }
    const auto& params = net_->layers()[layer]->blobs();
    for (size_t p = 0; p < params.size(); ++p)
      Add(name + " backward param diff " + std::to_string(p),
          Produced::kParamDiff, "", params[p]->diff(), params[p]->count());
  }

 private:
  void Add(const std::string& where, Produced::Kind kind,
           const std::string& blob,
           const std::shared_ptr<SyncedMemory>& memory, int count) {
    std::vector<float> values(count, 0.0f);
    if (memory && count > 0) {
      std::vector<char> bytes(memory->size());
      Peek(*memory, bytes.data());
      std::memcpy(values.data(), bytes.data(), count * sizeof(float));
    }
    out_->push_back({*iteration_, where, std::move(values), kind, blob});
  }
  const Net<float>* net_;
  bool forward_;
  const int* iteration_;
  std::vector<Produced>* out_;
};

inline std::vector<Produced> Record(
    Caffe::Brew mode, const NetParameter& net, int iters,
    const std::vector<Produced>* want = nullptr) {
  ModeScope scope(mode);
  std::unique_ptr<Solver<float> > solver(SolverRegistry<float>::CreateSolver(
      TrajectorySolver(net, nullptr, iters)));
  Net<float>* train = solver->net().get();
  // Fused chains report a chain's result after each member; one by one,
  // each member's own output is seen.
  train->set_fuse_chains(false);
  std::vector<Produced> out;
  int iteration = 0;
  if (want) {
    train->add_before_forward(
        std::make_shared<Forcer>(train, true, want, &out));
    train->add_before_backward(
        std::make_shared<Forcer>(train, false, want, &out));
  }
  train->add_after_forward(std::make_shared<Recorder>(train, true,
                                                      &iteration, &out));
  train->add_after_backward(std::make_shared<Recorder>(train, false,
                                                       &iteration, &out));
  for (; iteration < iters; ++iteration) solver->Step(1);
  return out;
}

// "" when one record holds the other's values within tolerance, else why
// not (see the contract; NaN is out of tolerance).
inline std::string BlobDeparture(const Produced& g, const Produced& c) {
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
  if (std::sqrt(diff2) <= 1e-3 * std::sqrt(norm2) + 1e-7 * std::sqrt(count))
    return "";
  at << ": relative L2 error " << std::sqrt(diff2) / std::sqrt(norm2)
     << " (norm " << std::sqrt(norm2) << "); worst element " << worst_at
     << " of " << c.values.size() << ": " << g.values[worst_at]
     << " on the GPU, " << c.values[worst_at] << " on the CPU";
  return at.str();
}

// Every record out of tolerance, by index (the records compared pairwise).
inline std::vector<size_t> Departures(const std::vector<Produced>& gpu,
                                      const std::vector<Produced>& cpu) {
  std::vector<size_t> out;
  for (size_t k = 0; k < std::min(gpu.size(), cpu.size()); ++k)
    if (!BlobDeparture(gpu[k], cpu[k]).empty()) out.push_back(k);
  return out;
}

inline std::string FirstDeparture(const std::vector<Produced>& gpu,
                                  const std::vector<Produced>& cpu) {
  const std::vector<size_t> parted = Departures(gpu, cpu);
  if (!parted.empty()) return BlobDeparture(gpu[parted[0]], cpu[parted[0]]);
  if (gpu.size() != cpu.size())
    return "the GPU recorded " + std::to_string(gpu.size()) + " outputs, "
           "the CPU " + std::to_string(cpu.size());
  return "";
}

}  // namespace caffe

#endif  // CAFFE_TEST_STEP_RECORD_HPP_
