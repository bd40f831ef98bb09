#include "caffe/util/memory_fit.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <sstream>

#include "caffe/mem/net_memory.hpp"
#include "caffe/net.hpp"
#include "caffe/net_graph_builder.hpp"
#include "caffe/util/host_memory_room.hpp"

namespace caffe {

namespace {

thread_local int g_solver_state_copies = 0;

template <typename Dtype>
bool RunsBackward(const Net<Dtype>& net) {
  return net.phase() == TRAIN || net.force_backward();
}

size_t HeldBytes(const SyncedMemory* m) {
  return m->cpu_ptr() && m->owns_cpu_data() ? m->size() : 0;
}

// Adds a buffer once, however many blobs view it.
void AddOnce(const SyncedMemory* m, std::set<const SyncedMemory*>* seen,
             size_t* part, size_t* held) {
  if (!m || !seen->insert(m).second) return;
  *part += m->size();
  *held += HeldBytes(m);
}

// The batch: the first axis of the first bottomless layer's first top
// (0 when the net has none).
template <typename Dtype>
int BatchOf(const Net<Dtype>& net) {
  for (size_t i = 0; i < net.layers().size(); ++i) {
    if (!net.bottom_vecs()[i].empty() || net.top_vecs()[i].empty()) continue;
    const Blob<Dtype>& top = *net.top_vecs()[i][0];
    return top.num_axes() > 0 ? top.shape(0) : 0;
  }
  return 0;
}

// Buffers of blobs whose first axis is the batch.
template <typename Dtype>
std::map<const SyncedMemory*, bool> GrowsWithBatch(const Net<Dtype>& net,
                                                   int batch) {
  std::map<const SyncedMemory*, bool> grows;
  for (const auto& blob : net.blobs()) {
    const bool g = blob->num_axes() > 0 && blob->shape(0) == batch;
    grows[blob->data().get()] = g;
    grows[blob->diff().get()] = g;
  }
  return grows;
}

size_t Scaled(size_t bytes, bool grows, int b, int batch) {
  if (!grows) return bytes;
  return static_cast<size_t>(
      std::ceil(static_cast<double>(bytes) * b / batch));
}

// Activation bytes at batch b, as the net's own settings would place them:
// its memory plan's lifetimes planned again with scaled sizes, or every
// buffer once without one.
template <typename Dtype>
class BatchScaler {
 public:
  BatchScaler(const Net<Dtype>& net, int batch)
      : net_(net), batch_(batch), grows_(GrowsWithBatch(net, batch)) {}

  size_t ActivationsAt(int b) const {
    if (const NetMemory* memory = net_.memory()) {
      std::vector<mem::BufferRequest> requests = memory->requests();
      for (size_t i = 0; i < requests.size(); ++i) {
        const SyncedMemory* m =
            memory->graph().memories[memory->buffers()[i].memory].memory;
        auto it = grows_.find(m);
        requests[i].bytes = Scaled(requests[i].bytes,
                                   it == grows_.end() || it->second, b, batch_);
      }
      return mem::MakePlan(requests, memory->param().level()).total_bytes();
    }
    const bool backward = RunsBackward(net_);
    std::set<const SyncedMemory*> seen;
    size_t total = 0;
    for (size_t i = 0; i < net_.blobs().size(); ++i) {
      const Blob<Dtype>& blob = *net_.blobs()[i];
      const SyncedMemory* d = blob.data().get();
      if (d && seen.insert(d).second)
        total += Scaled(d->size(), grows_.at(d), b, batch_);
      const SyncedMemory* g = blob.diff().get();
      if (backward && net_.blob_need_backward()[i] && g &&
          seen.insert(g).second)
        total += Scaled(g->size(), grows_.at(g), b, batch_);
    }
    return total;
  }

 private:
  const Net<Dtype>& net_;
  int batch_;
  std::map<const SyncedMemory*, bool> grows_;
};

// Layers' own buffers, and the part of them a plan places (kept memory).
template <typename Dtype>
size_t LayerBuffers(const Net<Dtype>& net) {
  size_t internal = 0;
  for (size_t i = 0; i < net.layers().size(); ++i)
    if (!net.borrows_kept_output(static_cast<int>(i)))
      internal += net.layers()[i]->InternalBytes();
  return internal;
}

// Layers' scratch outside a plan: the thread's shared workspace, which
// grows to the largest layer's need.
template <typename Dtype>
size_t SharedScratchBytes(const Net<Dtype>& net) {
  size_t largest = 0;
  for (const auto& layer : net.layers())
    if (const SyncedMemory* s = layer->ScratchMemory())
      largest = std::max(largest, s->size());
  return largest;
}

size_t PlannedKeptBytes(const NetMemory& memory) {
  size_t kept = 0;
  for (const mem::GraphLayer& layer : memory.graph().layers)
    for (int k : layer.kept) kept += memory.graph().memories[k].bytes;
  return kept;
}

// Activations plus the layer buffers left outside the plan.
template <typename Dtype>
size_t PlannedNetBytes(const Net<Dtype>& net, const NetMemory& memory) {
  const size_t internal = LayerBuffers(net);
  return memory.plan().total_bytes() + internal -
         std::min(PlannedKeptBytes(memory), internal);
}

MemoryOptimizationParameter OptimizedParam(const NetMemory* memory,
                                           Phase phase) {
  MemoryOptimizationParameter mp;
  if (memory) mp = memory->param();
  mp.set_optimize_train(phase == TRAIN);
  mp.set_optimize_test(phase == TEST);
  if (!memory) mp.set_level(2);
  return mp;
}

// The net's lifetimes planned with `mp` (nothing bound); throws caffe::Error
// when mp asks for a recompute budget nothing meets.
template <typename Dtype>
std::unique_ptr<NetMemory> PlanWith(
    const Net<Dtype>& net, const MemoryOptimizationParameter& mp,
    std::unique_ptr<NetGraphSource<Dtype> >* source) {
  source->reset(new NetGraphSource<Dtype>(&net));
  std::unique_ptr<NetMemory> memory(new NetMemory(source->get(), mp));
  memory->Plan();
  return memory;
}

std::string MemParamText(const MemoryOptimizationParameter& mp, Phase phase,
                         size_t budget_mb) {
  std::ostringstream s;
  s << "mem_param { " << (phase == TRAIN ? "optimize_train" : "optimize_test")
    << ": true";
  if (mp.level() != 2) s << " level: " << mp.level();
  if (budget_mb)
    s << " recompute { auto: BUDGET memory_budget_mb: " << budget_mb << " }";
  s << " }";
  return s.str();
}

// What would fit in `avail` bytes, one suggestion per line.
template <typename Dtype>
std::vector<std::string> WhatWouldFit(const Net<Dtype>& net,
                                      const MemoryNeed& need, size_t avail) {
  std::vector<std::string> fits;
  // What no plan changes: parameters, gradients, solver state, test nets.
  const size_t base = need.params + need.param_diffs + need.solver_state +
                      need.other_nets;
  if (base >= avail) return fits;
  const size_t budget = avail - base;  // for this net's activations+buffers
  const Phase phase = net.phase();
  const NetMemory* memory = net.memory();
  const MemoryOptimizationParameter mp = OptimizedParam(memory, phase);
  // The net's lifetimes planned with mem_param on (its own plan when it
  // has one): the first suggestion, and which layer buffers a plan places.
  std::unique_ptr<NetGraphSource<Dtype> > source;
  std::unique_ptr<NetMemory> own;
  if (!memory) own = PlanWith(net, mp, &source);
  const NetMemory& planned = memory ? *memory : *own;
  if (!memory && PlannedNetBytes(net, planned) <= budget)
    fits.push_back(MemParamText(mp, phase, 0) + " (activations planned in " +
                   FormatBytes(planned.plan().total_bytes()) + ")");
  const size_t outside_plan = PlannedNetBytes(net, planned) -
                              planned.plan().total_bytes();
  if (RunsBackward(net) && fits.empty() && budget > outside_plan) {
    MemoryOptimizationParameter rp = mp;
    const size_t budget_mb = (budget - outside_plan) >> 20;
    rp.mutable_recompute()->set_auto_(RecomputeParameter_Auto_BUDGET);
    rp.mutable_recompute()->set_memory_budget_mb(budget_mb);
    rp.mutable_recompute()->clear_checkpoint();
    try {
      std::unique_ptr<NetGraphSource<Dtype> > rsource;
      std::unique_ptr<NetMemory> recomputing = PlanWith(net, rp, &rsource);
      std::ostringstream s;
      s << MemParamText(rp, phase, budget_mb) << " (activations planned in "
        << FormatBytes(recomputing->plan().total_bytes()) << ", about "
        << static_cast<int>(recomputing->extra_forward_fraction() * 100 + 0.5)
        << "% more forward work)";
      if (budget_mb) fits.push_back(s.str());
    } catch (const Error&) {
      // No recomputation plan meets the budget: nothing to suggest.
    }
  }
  const int batch = BatchOf(net);
  if (batch > 1) {
    BatchScaler<Dtype> scaler(net, batch);
    int lo = 0, hi = batch - 1;  // largest b in [1, hi] that fits, 0: none
    while (lo < hi) {
      const int mid = lo + (hi - lo + 1) / 2;
      if (scaler.ActivationsAt(mid) +
              Scaled(need.layer_buffers, true, mid, batch) <=
          budget)
        lo = mid;
      else
        hi = mid - 1;
    }
    if (lo > 0) {
      std::ostringstream s;
      s << "a batch of " << lo << " instead of " << batch
        << (memory ? " with the same mem_param" : "") << " (activations "
        << FormatBytes(scaler.ActivationsAt(lo)) << ")";
      fits.push_back(s.str());
    }
  }
  return fits;
}

}  // namespace

SolverStateScope::SolverStateScope(int copies)
    : previous_(g_solver_state_copies) {
  g_solver_state_copies = copies;
}

SolverStateScope::~SolverStateScope() {
  g_solver_state_copies = previous_;
}

template <typename Dtype>
MemoryNeed NetMemoryNeed(const Net<Dtype>& net) {
  MemoryNeed need;
  const bool backward = RunsBackward(net);
  std::set<const SyncedMemory*> seen;
  for (const auto& p : net.params())
    AddOnce(p->data().get(), &seen, &need.params, &need.held);
  if (backward)
    for (Blob<Dtype>* p : net.learnable_params())
      AddOnce(p->diff().get(), &seen, &need.param_diffs, &need.held);
  if (net.phase() == TRAIN)
    for (Blob<Dtype>* p : net.learnable_params())
      need.solver_state += g_solver_state_copies * p->count() * sizeof(Dtype);
  size_t planned_kept = 0;
  if (const NetMemory* memory = net.memory()) {
    need.activations = memory->plan().total_bytes();
    need.activations_held = std::min(memory->bound_bytes(), need.activations);
    planned_kept = PlannedKeptBytes(*memory);
  } else {
    for (size_t i = 0; i < net.blobs().size(); ++i) {
      const Blob<Dtype>& blob = *net.blobs()[i];
      AddOnce(blob.data().get(), &seen, &need.activations,
              &need.activations_held);
      if (backward && net.blob_need_backward()[i])
        AddOnce(blob.diff().get(), &seen, &need.activations,
                &need.activations_held);
    }
  }
  need.held += need.activations_held;
  const size_t internal = LayerBuffers(net);
  need.layer_buffers = internal - std::min(planned_kept, internal);
  // Level 2 plans the layers' scratch; otherwise it is the shared workspace.
  if (!net.memory() || net.memory()->param().level() < 2)
    need.layer_buffers += SharedScratchBytes(net);
  return need;
}

template <typename Dtype>
void CheckMemoryFits(const Net<Dtype>& net, const MemoryNeed& need,
                     const std::string& context) {
  // In GPU mode activations live on the device, not here: the device
  // resource refuses an allocation the card cannot hold, naming its free
  // memory and what to try (memory_resource.hpp).
  if (Caffe::mode() == Caffe::GPU) return;
  const size_t wanted = need.total() - std::min(need.held, need.total());
  const HostRoom room = HostMemoryRoom();
  if (wanted <= room.bytes) return;
  const size_t avail = room.bytes + need.held;
  std::ostringstream s;
  s << context << " does not fit in host memory: it needs "
    << FormatBytes(need.total()) << " (activations and gradients "
    << FormatBytes(need.activations);
  if (need.other_nets)
    s << ", test nets " << FormatBytes(need.other_nets);
  s << ", parameters " << FormatBytes(need.params);
  if (need.param_diffs)
    s << ", parameter gradients " << FormatBytes(need.param_diffs);
  if (need.solver_state)
    s << ", solver state " << FormatBytes(need.solver_state);
  s << ", layer buffers " << FormatBytes(need.layer_buffers) << ") and "
    << FormatBytes(avail) << " is there (" << FormatBytes(room.bytes)
    << " free";
  if (need.held) s << " plus " << FormatBytes(need.held) << " it holds";
  s << "), limited by " << room.limited_by << ".";
  const std::vector<std::string> fits = WhatWouldFit(net, need, avail);
  if (fits.empty()) {
    const size_t base = need.params + need.param_diffs + need.solver_state +
                        need.other_nets;
    s << " Nothing tried fits (mem_param, recomputation, a batch of 1): ";
    if (base >= avail)
      s << "the parameters, their gradients, the solver state and the test "
           "nets alone take " << FormatBytes(base) << ".";
    else
      s << "each needs more than the " << FormatBytes(avail - base)
        << " left beside the parameters, their gradients, the solver state "
           "and the test nets.";
  } else {
    s << " What would fit:";
    for (size_t i = 0; i < fits.size(); ++i)
      s << (i ? "; or " : " ") << fits[i];
    s << ".";
  }
  throw Error(s.str());
}

template MemoryNeed NetMemoryNeed(const Net<float>&);
template MemoryNeed NetMemoryNeed(const Net<double>&);
template void CheckMemoryFits(const Net<float>&, const MemoryNeed&,
                              const std::string&);
template void CheckMemoryFits(const Net<double>&, const MemoryNeed&,
                              const std::string&);

}  // namespace caffe
