// net_run.cpp: how a Net runs its steps -- forward and backward layer by
// layer or as fused steps, the recomputation a memory plan schedules, the
// step hooks and callbacks around every step, per-layer timing and debug
// output.  Split from net.cpp, which builds the net; net_weights.cpp reads
// and writes its weights.
#include "caffe/net.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <exception>
#include <string>

namespace caffe {

namespace {

double MsSince(std::chrono::steady_clock::time_point start) {
  Caffe::Synchronize();  // time GPU work, not its launch
  return std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now() - start)
      .count();
}

// Holds Layer::rerun_before_backward for the layers [first, last] while
// their steps run, hooks and callbacks included, and clears it on every
// exit: the flag must never outlive the run it describes, error paths
// included (a layer run on its own later would skip a copy nobody
// rewrites).
template <typename Dtype>
class ScopedRerunFlags {
 public:
  ScopedRerunFlags(const vector<shared_ptr<Layer<Dtype> > >& layers,
                   int first, int last)
      : layers_(layers), first_(first), last_(last) {}
  ~ScopedRerunFlags() {
    for (int k = first_; k <= last_; ++k)
      layers_[k]->set_rerun_before_backward(false);
  }
  void Set(int k, bool value) {
    layers_[k]->set_rerun_before_backward(value);
  }

 private:
  ScopedRerunFlags(const ScopedRerunFlags&) = delete;
  ScopedRerunFlags& operator=(const ScopedRerunFlags&) = delete;
  const vector<shared_ptr<Layer<Dtype> > >& layers_;
  const int first_;
  const int last_;
};

}  // namespace

template <typename Dtype>
void Net<Dtype>::RemoveStepHook(StepHook* hook) {
  CAFFE_CHECK(hook != memory_.get())
      << "net '" << name_ << "': the memory plan's hook cannot be removed";
  hooks_.erase(std::remove(hooks_.begin(), hooks_.end(), hook), hooks_.end());
}

template <typename Dtype>
int Net<Dtype>::ForwardStepOf(int layer_id) const {
  return memory_ ? memory_->ForwardStep(layer_id) : layer_id;
}

template <typename Dtype>
int Net<Dtype>::BackwardStepOf(int layer_id) const {
  return memory_ ? memory_->BackwardStep(layer_id)
                 : 2 * static_cast<int>(layers_.size()) - 1 - layer_id;
}

template <typename Dtype>
mem::Step Net<Dtype>::StepAt(int step) const {
  if (memory_) return memory_->schedule().at(step);
  const int num_layers = static_cast<int>(layers_.size());
  mem::Step s;
  s.kind = step < num_layers ? mem::Step::kForward : mem::Step::kBackward;
  s.layer = step < num_layers ? step : 2 * num_layers - 1 - step;
  return s;
}

template <typename Dtype>
void Net<Dtype>::RemoveCallback(Callback* c) {
  for (vector<Callback*>* list : {&before_forward_, &after_forward_,
                                  &before_backward_, &after_backward_})
    list->erase(std::remove(list->begin(), list->end(), c), list->end());
}

template <typename Dtype>
void Net<Dtype>::RunCallbacks(const vector<Callback*>& callbacks,
                              int layer) {
  // A callback may add callbacks; those run from the next layer on.
  const size_t n = callbacks.size();
  for (size_t k = 0; k < n; ++k) callbacks[k]->run(layer);
}

template <typename Dtype>
void Net<Dtype>::BeforeStep(int step) {
  for (StepHook* hook : hooks_) hook->BeforeStep(step);
}

template <typename Dtype>
void Net<Dtype>::AfterStep(int step) {
  for (auto it = hooks_.rbegin(); it != hooks_.rend(); ++it)
    (*it)->AfterStep(step);
}

template <typename Dtype>
Dtype Net<Dtype>::ForwardFromTo(int start, int end) {
  CAFFE_CHECK_GE(start, 0);
  CAFFE_CHECK_LT(end, static_cast<int>(layers_.size()));
  // A layer may have grown a blob (new input size): plan again.
  if (memory_ && start == 0 && !memory_->StillApplied()) {
    Reshape();
  }
  Dtype loss = 0;
  for (int i = start; i <= end; ++i) {
    if (FusedSteps<Dtype>* chain = FusedForwardAt(i, end)) {
      ForwardFused(chain);  // its members have no loss
      i = chain->last();
      continue;
    }
    if (ReplayStartsAt(i)) replay_rng_[i] = Caffe::rng();
    const int step = ForwardStepOf(i);
    // Hooks and callbacks around the step see the flag too.
    ScopedRerunFlags<Dtype> rerun(layers_, i, i);
    rerun.Set(i, RerunBeforeBackward(i));
    BeforeStep(step);
    RunCallbacks(before_forward_, i);
    if (layer_timing_) Caffe::Synchronize();  // GPU work is asynchronous
    const auto start_time = std::chrono::steady_clock::now();
    try {
      loss += layers_[i]->Forward(bottom_vecs_[i], top_vecs_[i]);
    } catch (const std::exception& e) {
      RethrowWithContext(LayerContext(i), e);
    }
    if (layer_timing_) forward_ms_[i] += MsSince(start_time);
    if (debug_info_) ForwardDebugInfo(i);
    RunCallbacks(after_forward_, i);
    AfterStep(step);
  }
  return loss;
}

template <typename Dtype>
Dtype Net<Dtype>::ForwardFrom(int start) {
  return ForwardFromTo(start, static_cast<int>(layers_.size()) - 1);
}

template <typename Dtype>
Dtype Net<Dtype>::ForwardTo(int end) {
  return ForwardFromTo(0, end);
}

template <typename Dtype>
const vector<Blob<Dtype>*>& Net<Dtype>::Forward(Dtype* loss) {
  Dtype l = ForwardFromTo(0, static_cast<int>(layers_.size()) - 1);
  if (loss != nullptr) *loss = l;
  return net_output_blobs_;
}

template <typename Dtype>
void Net<Dtype>::BackwardFromTo(int start, int end) {
  CAFFE_CHECK_GE(end, 0);
  CAFFE_CHECK_LT(start, static_cast<int>(layers_.size()));
  CAFFE_CHECK(!memory_ || !memory_->forward_only())
      << "net '" << name_ << "' is a TEST-phase net whose memory was planned "
      << "for forward passes only; set force_backward: true in the net (its "
      << "plan then covers backward) or mem_param { optimize_test: false } "
      << "to run backward on it";
  int recomputed = -1;  // the group recomputed last in this pass
  int nested = -1;      // the nested part recomputed last
  for (int i = start; i >= end; --i) {
    if (memory_ && memory_->recomputes()) {
      const int s = memory_->SegmentOf(i);
      const mem::Segment& seg = memory_->segments()[s];
      if (seg.recompute && seg.group != recomputed) {
        Recompute(memory_->GroupBegin(s), memory_->GroupEnd(s), 0);
        recomputed = seg.group;
      }
      if (seg.nested && s != nested) {
        Recompute(seg.begin, seg.end, 1);
        nested = s;
      }
    }
    if (!layer_need_backward_[i]) {
      RunCallbacks(before_backward_, i);
      RunCallbacks(after_backward_, i);
      continue;
    }
    if (FusedSteps<Dtype>* chain = FusedBackwardAt(i, end)) {
      BackwardFused(chain);
      i = chain->first();
      continue;
    }
    const int step = BackwardStepOf(i);
    BeforeStep(step);
    RunCallbacks(before_backward_, i);
    if (layer_timing_) Caffe::Synchronize();  // GPU work is asynchronous
    const auto start_time = std::chrono::steady_clock::now();
    try {
      layers_[i]->Backward(top_vecs_[i], bottom_need_backward_[i],
                           bottom_vecs_[i]);
    } catch (const std::exception& e) {
      RethrowWithContext(LayerContext(i), e);
    }
    if (layer_timing_) backward_ms_[i] += MsSince(start_time);
    if (debug_info_) BackwardDebugInfo(i);
    AfterMemberBackward(i);
  }
}

template <typename Dtype>
void Net<Dtype>::AfterMemberBackward(int k) {
  // From here the layers below overwrite an aliased top's diff memory (an
  // Eltwise SUM's, under mem_param), whether k ran alone or fused.
  if (layers_[k]->alias_bottom_diff())
    top_vecs_[k][0]->MarkDiffStale(stale_diff_note_[k]);
  RunCallbacks(after_backward_, k);
  AfterStep(BackwardStepOf(k));
}

template <typename Dtype>
bool Net<Dtype>::OnlyPlanWatches() const {
  for (const StepHook* hook : hooks_)
    if (hook != memory_.get()) return false;
  return true;
}

template <typename Dtype>
bool Net<Dtype>::MayFuse() const {
  return fuse_chains_ && !debug_info_ && OnlyPlanWatches();
}

template <typename Dtype>
FusedSteps<Dtype>* Net<Dtype>::FusedForwardAt(int i, int end) {
  FusedSteps<Dtype>* chain = chain_from_.empty() ? nullptr
                                                 : chain_from_[i].get();
  if (!chain || chain->last() > end || !MayFuse() ||
      !before_forward_.empty() || !after_forward_.empty())
    return nullptr;
  if (!chain->in_place() && memory_ &&
      memory_->HandsOverWithin(ForwardStepOf(chain->first()),
                               ForwardStepOf(chain->last())))
    return nullptr;
  return chain->Fits(true) ? chain : nullptr;
}

template <typename Dtype>
FusedSteps<Dtype>* Net<Dtype>::FusedRecomputeAt(int i, int end, int run) {
  FusedSteps<Dtype>* chain = chain_from_.empty() ? nullptr
                                                 : chain_from_[i].get();
  if (!chain || chain->last() > end || !MayFuse()) return nullptr;
  for (int k = chain->first(); k <= chain->last(); ++k)
    if (!memory_->recomputable(k)) return nullptr;
  if (!chain->in_place() &&
      memory_->HandsOverWithin(memory_->RecomputeStep(chain->first(), run),
                               memory_->RecomputeStep(chain->last(), run)))
    return nullptr;
  return chain->Fits(true) ? chain : nullptr;
}

template <typename Dtype>
FusedSteps<Dtype>* Net<Dtype>::FusedBackwardAt(int i, int end) {
  FusedSteps<Dtype>* chain = chain_to_.empty() ? nullptr : chain_to_[i].get();
  if (!chain || chain->first() < end || !MayFuse())
    return nullptr;
  for (int k = chain->first(); k <= chain->last(); ++k) {
    if (!layer_need_backward_[k]) return nullptr;
    for (bool down : bottom_need_backward_[k])
      if (!down) return nullptr;
  }
  // A recomputed segment boundary inside the chain would recompute the
  // lower members' inputs after their backward.
  if (memory_ && memory_->recomputes() &&
      memory_->SegmentOf(chain->first()) != memory_->SegmentOf(chain->last()))
    return nullptr;
  if (!chain->in_place() && memory_ &&
      memory_->HandsOverWithin(BackwardStepOf(chain->last()),
                               BackwardStepOf(chain->first())))
    return nullptr;
  // Backward uses the layout of the last forward, which ran the members
  // (fused or not) at the current shapes.
  return chain->Fits(false) ? chain : nullptr;
}

template <typename Dtype>
void Net<Dtype>::ForwardFused(FusedSteps<Dtype>* chain) {
  ScopedRerunFlags<Dtype> rerun(layers_, chain->first(), chain->last());
  for (int k = chain->first(); k <= chain->last(); ++k) {
    if (ReplayStartsAt(k)) replay_rng_[k] = Caffe::rng();
    rerun.Set(k, RerunBeforeBackward(k));
    BeforeStep(ForwardStepOf(k));
  }
  if (layer_timing_) Caffe::Synchronize();  // GPU work is asynchronous
  const auto start_time = std::chrono::steady_clock::now();
  try {
    chain->Forward();
  } catch (const std::exception& e) {
    RethrowWithContext(LayerContext(chain->first()) +
                           " (run fused with the layers after it, up to '" +
                           layer_names_[chain->last()] + "')",
                       e);
  }
  if (layer_timing_) forward_ms_[chain->first()] += MsSince(start_time);
  for (int k = chain->first(); k <= chain->last(); ++k)
    AfterStep(ForwardStepOf(k));
}

template <typename Dtype>
void Net<Dtype>::BackwardFused(FusedSteps<Dtype>* chain) {
  for (int k = chain->last(); k >= chain->first(); --k) {
    BeforeStep(BackwardStepOf(k));
    RunCallbacks(before_backward_, k);
  }
  if (layer_timing_) Caffe::Synchronize();  // GPU work is asynchronous
  const auto start_time = std::chrono::steady_clock::now();
  try {
    chain->Backward();
  } catch (const std::exception& e) {
    RethrowWithContext(LayerContext(chain->last()) +
                           " (run fused with the layers before it, down to '" +
                           layer_names_[chain->first()] + "')",
                       e);
  }
  if (layer_timing_) backward_ms_[chain->last()] += MsSince(start_time);
  for (int k = chain->last(); k >= chain->first(); --k)
    AfterMemberBackward(k);
}

template <typename Dtype>
int Net<Dtype>::fused_forward_into(int layer_id) const {
  for (int k = layer_id; k >= 0 && k < static_cast<int>(chain_from_.size());
       --k) {
    const FusedSteps<Dtype>* c = chain_from_[k].get();
    if (c) return (MayFuse() && c->last() >= layer_id) ? k : -1;
  }
  return -1;
}

template <typename Dtype>
int Net<Dtype>::fused_backward_into(int layer_id) const {
  const int n = static_cast<int>(chain_to_.size());
  for (int k = layer_id; k >= 0 && k < n; ++k) {
    const FusedSteps<Dtype>* c = chain_to_[k].get();
    if (c) return (MayFuse() && c->first() <= layer_id) ? k : -1;
  }
  return -1;
}

template <typename Dtype>
void Net<Dtype>::set_layer_timing(bool value) {
  layer_timing_ = value;
  forward_ms_.assign(layers_.size(), 0.0);
  backward_ms_.assign(layers_.size(), 0.0);
  recompute_ms_.assign(layers_.size(), 0.0);
}

template <typename Dtype>
bool Net<Dtype>::RerunBeforeBackward(int layer_id) const {
  if (!memory_ || !memory_->recomputes()) return false;
  const mem::Segment& seg = memory_->segments()[memory_->SegmentOf(layer_id)];
  return seg.recompute && memory_->recomputable(layer_id);
}

template <typename Dtype>
bool Net<Dtype>::RerunAfter(int layer_id, int run) const {
  // A group's recompute (run 0) is followed by a third run of every
  // nested part before its backward (BackwardFromTo).
  return run == 0 &&
         memory_->segments()[memory_->SegmentOf(layer_id)].nested;
}

template <typename Dtype>
bool Net<Dtype>::ReplayStartsAt(int layer_id) const {
  // Layers run again draw the same random numbers as the first time (and
  // so the same Dropout masks) when the generator is reset wherever a run
  // of them starts: layers in between (data layers) are not run again.
  if (!memory_ || !memory_->recomputes()) return false;
  const mem::Segment& seg = memory_->segments()[memory_->SegmentOf(layer_id)];
  return seg.recompute && memory_->recomputable(layer_id) &&
         (layer_id == seg.begin || !memory_->recomputable(layer_id - 1));
}

template <typename Dtype>
void Net<Dtype>::ReplayFrom(int layer_id) {
  if (!ReplayStartsAt(layer_id)) return;
  auto it = replay_rng_.find(layer_id);
  CAFFE_CHECK(it != replay_rng_.end())
      << "net '" << name_ << "': Backward with recomputation needs a "
      << "full Forward first";
  Caffe::rng() = it->second;
}

template <typename Dtype>
void Net<Dtype>::RecomputeFused(FusedSteps<Dtype>* chain, int run) {
  ScopedRerunFlags<Dtype> rerun(layers_, chain->first(), chain->last());
  for (int k = chain->first(); k <= chain->last(); ++k) {
    ReplayFrom(k);  // the members draw nothing; kept for what follows
    rerun.Set(k, RerunAfter(k, run));
    BeforeStep(memory_->RecomputeStep(k, run));
    layers_[k]->set_recomputing(true);
  }
  if (layer_timing_) Caffe::Synchronize();  // GPU work is asynchronous
  const auto start_time = std::chrono::steady_clock::now();
  std::exception_ptr failed;
  try {
    chain->Forward();
  } catch (...) {
    failed = std::current_exception();
  }
  for (int k = chain->first(); k <= chain->last(); ++k)
    layers_[k]->set_recomputing(false);
  if (failed) std::rethrow_exception(failed);
  if (layer_timing_) recompute_ms_[chain->first()] += MsSince(start_time);
  for (int k = chain->first(); k <= chain->last(); ++k)
    AfterStep(memory_->RecomputeStep(k, run));
}

template <typename Dtype>
void Net<Dtype>::Recompute(int begin, int end, int run) {
  Caffe::RNG after_forward = Caffe::rng();
  for (int i = begin; i <= end; ++i) {
    if (!memory_->recomputable(i)) continue;
    if (FusedSteps<Dtype>* chain = FusedRecomputeAt(i, end, run)) {
      try {
        RecomputeFused(chain, run);
      } catch (const std::exception& e) {
        Caffe::rng() = after_forward;
        RethrowWithContext(LayerContext(i) +
                               " (recomputing, run fused with the layers "
                               "after it, up to '" +
                               layer_names_[chain->last()] + "')",
                           e);
      }
      i = chain->last();
      continue;
    }
    ReplayFrom(i);
    const int step = memory_->RecomputeStep(i, run);
    ScopedRerunFlags<Dtype> rerun(layers_, i, i);
    rerun.Set(i, RerunAfter(i, run));
    BeforeStep(step);
    layers_[i]->set_recomputing(true);
    if (layer_timing_) Caffe::Synchronize();  // GPU work is asynchronous
    const auto start_time = std::chrono::steady_clock::now();
    try {
      layers_[i]->Forward(bottom_vecs_[i], top_vecs_[i]);
    } catch (const std::exception& e) {
      layers_[i]->set_recomputing(false);
      Caffe::rng() = after_forward;
      RethrowWithContext(LayerContext(i) + " (recomputing)", e);
    }
    layers_[i]->set_recomputing(false);
    if (layer_timing_) recompute_ms_[i] += MsSince(start_time);
    AfterStep(step);
  }
  Caffe::rng() = after_forward;
}

template <typename Dtype>
void Net<Dtype>::BackwardFrom(int start) {
  BackwardFromTo(start, 0);
}

template <typename Dtype>
void Net<Dtype>::BackwardTo(int end) {
  BackwardFromTo(static_cast<int>(layers_.size()) - 1, end);
}

template <typename Dtype>
void Net<Dtype>::Backward() {
  BackwardFromTo(static_cast<int>(layers_.size()) - 1, 0);
  if (debug_info_) {
    Dtype asum_data = 0, asum_diff = 0, sumsq_data = 0, sumsq_diff = 0;
    for (Blob<Dtype>* p : learnable_params_) {
      asum_data += p->asum_data();
      asum_diff += p->asum_diff();
      sumsq_data += p->sumsq_data();
      sumsq_diff += p->sumsq_diff();
    }
    LOG(INFO) << "    [Backward] All net params (data, diff): L1 norm = ("
              << asum_data << ", " << asum_diff << "); L2 norm = ("
              << std::sqrt(sumsq_data) << ", " << std::sqrt(sumsq_diff)
              << ")";
  }
}

template <typename Dtype>
void Net<Dtype>::ForwardDebugInfo(const int layer_id) {
  for (size_t t = 0; t < top_vecs_[layer_id].size(); ++t) {
    const Blob<Dtype>& blob = *top_vecs_[layer_id][t];
    const string& blob_name = blob_names_[top_id_vecs_[layer_id][t]];
    const Dtype data_abs_val_mean = blob.asum_data() / blob.count64();
    LOG(INFO) << "    [Forward] Layer " << layer_names_[layer_id]
              << ", top blob " << blob_name << " data: " << data_abs_val_mean;
  }
  for (size_t p = 0; p < layers_[layer_id]->blobs().size(); ++p) {
    const Blob<Dtype>& blob = *layers_[layer_id]->blobs()[p];
    const int net_param_id = param_id_vecs_[layer_id][p];
    LOG(INFO) << "    [Forward] Layer " << layer_names_[layer_id]
              << ", param blob " << param_display_names_[net_param_id]
              << " data: " << blob.asum_data() / blob.count64();
  }
}

template <typename Dtype>
void Net<Dtype>::BackwardDebugInfo(const int layer_id) {
  const vector<Blob<Dtype>*>& bottom_vec = bottom_vecs_[layer_id];
  for (size_t b = 0; b < bottom_vec.size(); ++b) {
    if (!bottom_need_backward_[layer_id][b]) continue;
    const Blob<Dtype>& blob = *bottom_vec[b];
    LOG(INFO) << "    [Backward] Layer " << layer_names_[layer_id]
              << ", bottom blob " << blob_names_[bottom_id_vecs_[layer_id][b]]
              << " diff: " << blob.asum_diff() / blob.count64();
  }
  for (size_t p = 0; p < layers_[layer_id]->blobs().size(); ++p) {
    if (!layers_[layer_id]->param_propagate_down(p)) continue;
    const Blob<Dtype>& blob = *layers_[layer_id]->blobs()[p];
    LOG(INFO) << "    [Backward] Layer " << layer_names_[layer_id]
              << ", param blob " << p
              << " diff: " << blob.asum_diff() / blob.count64();
  }
}

template <typename Dtype>
void Net<Dtype>::UpdateDebugInfo(const int param_id) {
  const Blob<Dtype>& blob = *params_[param_id];
  LOG(INFO) << "    [Update] param " << param_display_names_[param_id]
            << " data: " << blob.asum_data() / blob.count64()
            << "; diff: " << blob.asum_diff() / blob.count64();
}

#define INSTANTIATE_NET_RUN(Dtype)                                           \
  template void Net<Dtype>::RemoveStepHook(StepHook*);                     \
  template int Net<Dtype>::ForwardStepOf(int) const;                       \
  template int Net<Dtype>::BackwardStepOf(int) const;                      \
  template mem::Step Net<Dtype>::StepAt(int) const;                        \
  template void Net<Dtype>::RemoveCallback(Callback*);                     \
  template void Net<Dtype>::RunCallbacks(const vector<Callback*>&, int);   \
  template void Net<Dtype>::BeforeStep(int);                               \
  template void Net<Dtype>::AfterStep(int);                                \
  template Dtype Net<Dtype>::ForwardFromTo(int, int);                      \
  template Dtype Net<Dtype>::ForwardFrom(int);                             \
  template Dtype Net<Dtype>::ForwardTo(int);                               \
  template const vector<Blob<Dtype>*>& Net<Dtype>::Forward(Dtype*);        \
  template void Net<Dtype>::BackwardFromTo(int, int);                      \
  template void Net<Dtype>::AfterMemberBackward(int);                      \
  template bool Net<Dtype>::OnlyPlanWatches() const;                       \
  template bool Net<Dtype>::MayFuse() const;                               \
  template FusedSteps<Dtype>* Net<Dtype>::FusedForwardAt(int, int);        \
  template FusedSteps<Dtype>* Net<Dtype>::FusedRecomputeAt(int, int, int); \
  template FusedSteps<Dtype>* Net<Dtype>::FusedBackwardAt(int, int);       \
  template void Net<Dtype>::ForwardFused(FusedSteps<Dtype>*);              \
  template void Net<Dtype>::BackwardFused(FusedSteps<Dtype>*);             \
  template int Net<Dtype>::fused_forward_into(int) const;                  \
  template int Net<Dtype>::fused_backward_into(int) const;                 \
  template void Net<Dtype>::set_layer_timing(bool);                        \
  template bool Net<Dtype>::RerunBeforeBackward(int) const;                \
  template bool Net<Dtype>::RerunAfter(int, int) const;                    \
  template bool Net<Dtype>::ReplayStartsAt(int) const;                     \
  template void Net<Dtype>::ReplayFrom(int);                               \
  template void Net<Dtype>::RecomputeFused(FusedSteps<Dtype>*, int);       \
  template void Net<Dtype>::Recompute(int, int, int);                      \
  template void Net<Dtype>::BackwardFrom(int);                             \
  template void Net<Dtype>::BackwardTo(int);                               \
  template void Net<Dtype>::Backward();                                    \
  template void Net<Dtype>::ForwardDebugInfo(const int);                   \
  template void Net<Dtype>::BackwardDebugInfo(const int);                  \
  template void Net<Dtype>::UpdateDebugInfo(const int)

INSTANTIATE_NET_RUN(float);
INSTANTIATE_NET_RUN(double);

}  // namespace caffe
