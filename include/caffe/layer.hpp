// layer.hpp: the base class every layer derives from.
//
// Contract (template method, as in Caffe 1.0):
//  * SetUp(bottom, top) checks blob counts, calls LayerSetUp (read params,
//    create learnable blobs), then Reshape (size tops and buffers), then sets
//    up loss weights.  Reshape may be called again whenever bottoms change.
//  * Forward(bottom, top) reshapes, runs Forward_cpu/gpu and returns the
//    weighted loss; Backward(top, propagate_down, bottom) runs Backward_cpu/gpu
//    and accumulates nothing unless the layer says so (param diffs accumulate;
//    bottom diffs are overwritten).
//  * Each layer declares its memory contract in one place, Memory(): what
//    its backward reads, whether it may run in place, whether its tops view
//    its bottoms, whether it may run twice (recomputation), and whether it
//    may borrow the previous layer's kept output.  The memory engine's graph
//    builder reads only this; Net::Init refuses an in-place top on a layer
//    whose contract does not allow it, the graph builder refuses an
//    undeclared view, and the declaration tests check backward_reads by
//    poisoning undeclared inputs.  What a layer keeps between forward and
//    backward right now (KeptMemory, InternalBytes) depends on its shapes,
//    so it is asked, not declared.
#ifndef CAFFE_LAYER_HPP_
#define CAFFE_LAYER_HPP_

#include <string>
#include <vector>

#include "caffe/blob.hpp"
#include "caffe/common.hpp"
#include "caffe/layer_factory.hpp"
#include "caffe/memory_contract.hpp"
#include "caffe/proto/caffe.pb.h"
#include "caffe/util/blob_math.hpp"
#include "caffe/util/math_functions.hpp"

namespace caffe {

// A layer with GPU code declares its GPU overrides with this (in its
// protected section) and defines them in its .cu file, which holds kernel
// launches of the bodies its .cpp runs on the CPU.  Empty without CUDA.
#ifdef USE_CUDA
#define DECLARE_GPU_FORWARD_BACKWARD                                     \
  void Forward_gpu(const vector<Blob<Dtype>*>& bottom,                   \
                   const vector<Blob<Dtype>*>& top) override;            \
  void Backward_gpu(const vector<Blob<Dtype>*>& top,                     \
                    const vector<bool>& propagate_down,                  \
                    const vector<Blob<Dtype>*>& bottom) override
#else
#define DECLARE_GPU_FORWARD_BACKWARD static_assert(true, "")
#endif

// A layer whose forward and backward are written once over a launch
// policy (CpuLaunch/GpuLaunch, util/elementwise.hpp) declares them with
// this; <layer>_compute.hpp defines them, its .cpp and .cu instantiate.
#define DECLARE_LAUNCH_POLICY_BODIES                                     \
  template <typename Launch>                                             \
  void ForwardWith(const Launch& launch,                                 \
                   const vector<Blob<Dtype>*>& bottom,                   \
                   const vector<Blob<Dtype>*>& top);                     \
  template <typename Launch>                                             \
  void BackwardWith(const Launch& launch, const vector<Blob<Dtype>*>& top, \
                    const vector<bool>& propagate_down,                  \
                    const vector<Blob<Dtype>*>& bottom)

// A layer that can join a fused chain (net.hpp) also gives its forward
// and backward as channel stages (util/elementwise.hpp ChannelStage), in
// its <layer>_compute.hpp: ForwardStage prepares what runs on the host
// (once per call) and returns the stage, which the caller launches, alone
// (ForwardWith) or composed with the stages of the layers after it.
#define DECLARE_CHANNEL_STAGES                                           \
  template <typename Launch>                                             \
  auto ForwardStage(const Launch& launch,                                \
                    const vector<Blob<Dtype>*>& bottom,                  \
                    const vector<Blob<Dtype>*>& top);                    \
  template <typename Launch>                                             \
  auto BackwardStage(const Launch& launch,                               \
                     const vector<Blob<Dtype>*>& top,                    \
                     const vector<bool>& propagate_down,                 \
                     const vector<Blob<Dtype>*>& bottom)

// A layer whose forward and backward are nothing but its launch-policy
// bodies defines its device pair in one line: this in its .cpp (after
// including its <layer>_compute.hpp and util/elementwise.hpp), and
// DEFINE_GPU_BY_LAUNCH_POLICY (util/gpu_launch.cuh) in its .cu.
#define DEFINE_CPU_BY_LAUNCH_POLICY(classname)                           \
  template <typename Dtype>                                              \
  void classname<Dtype>::Forward_cpu(const vector<Blob<Dtype>*>& bottom, \
                                     const vector<Blob<Dtype>*>& top) {  \
    this->ForwardWith(CpuLaunch(), bottom, top);                         \
  }                                                                      \
  template <typename Dtype>                                              \
  void classname<Dtype>::Backward_cpu(                                   \
      const vector<Blob<Dtype>*>& top, const vector<bool>& propagate_down, \
      const vector<Blob<Dtype>*>& bottom) {                              \
    this->BackwardWith(CpuLaunch(), top, propagate_down, bottom);        \
  }                                                                      \
  static_assert(true, "")

// The two bodies of a layer written once over device-dispatched math
// (see DEFINE_CPU_BY_ON below).
#define DECLARE_ON_BODIES                                                \
  void ForwardOn(bool gpu, const vector<Blob<Dtype>*>& bottom,          \
                 const vector<Blob<Dtype>*>& top);                      \
  void BackwardOn(bool gpu, const vector<Blob<Dtype>*>& top,            \
                  const vector<bool>& propagate_down,                   \
                  const vector<Blob<Dtype>*>& bottom)

// A layer written as ForwardOn(bool gpu, ...) and BackwardOn(bool gpu, ...)
// over device-dispatched math (util/device_math.hpp, device_launch.hpp)
// gets its four device entry points from this, in its .cpp: the CPU pair
// calls them with false, the GPU pair (CUDA builds) with true.
#define DEFINE_CPU_BY_ON(classname)                                      \
  template <typename Dtype>                                              \
  void classname<Dtype>::Forward_cpu(const vector<Blob<Dtype>*>& bottom, \
                                     const vector<Blob<Dtype>*>& top) {  \
    ForwardOn(false, bottom, top);                                       \
  }                                                                      \
  template <typename Dtype>                                              \
  void classname<Dtype>::Backward_cpu(                                   \
      const vector<Blob<Dtype>*>& top, const vector<bool>& propagate_down, \
      const vector<Blob<Dtype>*>& bottom) {                              \
    BackwardOn(false, top, propagate_down, bottom);                      \
  }                                                                      \
  static_assert(true, "")
#ifdef USE_CUDA
#define DEFINE_GPU_BY_ON(classname)                                      \
  template <typename Dtype>                                              \
  void classname<Dtype>::Forward_gpu(const vector<Blob<Dtype>*>& bottom, \
                                     const vector<Blob<Dtype>*>& top) {  \
    ForwardOn(true, bottom, top);                                        \
  }                                                                      \
  template <typename Dtype>                                              \
  void classname<Dtype>::Backward_gpu(                                   \
      const vector<Blob<Dtype>*>& top, const vector<bool>& propagate_down, \
      const vector<Blob<Dtype>*>& bottom) {                              \
    BackwardOn(true, top, propagate_down, bottom);                       \
  }                                                                      \
  static_assert(true, "")
#else
#define DEFINE_GPU_BY_ON(classname) static_assert(true, "")
#endif

#define INSTANTIATE_LAYER_GPU_FUNCS(classname)                          \
  template void classname<float>::Forward_gpu(                          \
      const vector<Blob<float>*>&, const vector<Blob<float>*>&);        \
  template void classname<double>::Forward_gpu(                         \
      const vector<Blob<double>*>&, const vector<Blob<double>*>&);      \
  template void classname<float>::Backward_gpu(                         \
      const vector<Blob<float>*>&, const vector<bool>&,                 \
      const vector<Blob<float>*>&);                                     \
  template void classname<double>::Backward_gpu(                        \
      const vector<Blob<double>*>&, const vector<bool>&,                \
      const vector<Blob<double>*>&)

// What a layer keeps of its output for its backward, lent to the next
// layer (Layer::KeptOutput): a copy of the output, or the input it was
// computed from with the statistics that normalize it, as BatchNorm
// computes y = (input - mean) * (1 / sd) per channel
// (util/normalized_input.hpp).  All null: nothing kept.
template <typename Dtype>
struct LentOutput {
  const Blob<Dtype>* copy = nullptr;
  const Blob<Dtype>* input = nullptr;
  const Blob<Dtype>* mean = nullptr;
  const Blob<Dtype>* sd = nullptr;
  bool empty() const { return copy == nullptr && input == nullptr; }
};

template <typename Dtype>
class Layer {
 public:
  explicit Layer(const LayerParameter& param);
  virtual ~Layer() {}

  void SetUp(const vector<Blob<Dtype>*>& bottom,
             const vector<Blob<Dtype>*>& top);
  virtual void LayerSetUp(const vector<Blob<Dtype>*>& bottom,
                          const vector<Blob<Dtype>*>& top) {}
  virtual void Reshape(const vector<Blob<Dtype>*>& bottom,
                       const vector<Blob<Dtype>*>& top) = 0;

  inline Dtype Forward(const vector<Blob<Dtype>*>& bottom,
                       const vector<Blob<Dtype>*>& top);
  inline void Backward(const vector<Blob<Dtype>*>& top,
                       const vector<bool>& propagate_down,
                       const vector<Blob<Dtype>*>& bottom);

  vector<shared_ptr<Blob<Dtype> > >& blobs() { return blobs_; }
  const LayerParameter& layer_param() const { return layer_param_; }
  // Writes the layer's parameters (and their diffs if write_diff).
  virtual void ToProto(LayerParameter* param, bool write_diff = false);

  Dtype loss(int top_index) const {
    return (loss_.size() > static_cast<size_t>(top_index)) ? loss_[top_index]
                                                          : Dtype(0);
  }
  void set_loss(int top_index, Dtype value) {
    if (loss_.size() <= static_cast<size_t>(top_index))
      loss_.resize(top_index + 1, Dtype(0));
    loss_[top_index] = value;
  }

  virtual const char* type() const { return ""; }

  virtual int ExactNumBottomBlobs() const { return -1; }
  virtual int MinBottomBlobs() const { return -1; }
  virtual int MaxBottomBlobs() const { return -1; }
  virtual int ExactNumTopBlobs() const { return -1; }
  virtual int MinTopBlobs() const { return -1; }
  virtual int MaxTopBlobs() const { return -1; }
  virtual bool EqualNumBottomTopBlobs() const { return false; }
  // Loss layers may be given one more top than they need (Caffe's
  // AutoTopBlobs): the net then creates an anonymous top.
  virtual bool AutoTopBlobs() const { return false; }
  // Whether backward to bottom_index is possible at all (labels are not).
  virtual bool AllowForceBackward(const int bottom_index) const {
    return true;
  }

  // --- Memory contract (see the file comment). ---
  virtual MemoryContract Memory() const { return MemoryContract(); }
  // Bytes of layer-internal memory (masks, saved statistics) the layer keeps
  // between forward and backward; reported by the memory planner.
  virtual size_t InternalBytes() const { return 0; }
  // The part of that internal memory the memory planner may place: each
  // SyncedMemory here is written by Forward before anything reads it and
  // read at most by this layer's Backward, never carried from one
  // iteration to the next.  The planner gives it a lifetime from this
  // layer's forward step to its backward step and may share it with any
  // buffer whose lifetime does not overlap.  Memory a layer keeps across
  // iterations (recurrent state) must not be listed.
  virtual void KeptMemory(vector<SyncedMemory*>* kept) const {}
  // Of that kept memory, what a recomputing forward (recomputing() true)
  // reads instead of writing (BatchNorm's batch statistics): the
  // iteration's first forward writes it and reruns reuse it, so the
  // planner keeps it from that forward to the backward even in a
  // recomputed segment.  A rerun gives the same bits as the forward
  // (the same inputs), so reusing what the forward computed changes no
  // result; it only saves the work.
  virtual void RerunReadsMemory(vector<SyncedMemory*>* reread) const {}
  // Per-call scratch (a column buffer, a library's workspace): memory the
  // layer needs only while its Forward or Backward runs, sized for its
  // current shapes in Reshape.  Null (the default) when it needs none.
  // The memory planner places it in the arena at each step the layer runs
  // and takes it back after; the layer uses it only while placed
  // (SyncedMemory::placed_ptr non-null) and otherwise the thread's shared
  // workspace (util/parallel.hpp), so without a plan nothing changes.
  virtual SyncedMemory* ScratchMemory() const { return nullptr; }
  // The borrowing trait (MemoryContract::borrows_previous_output): a
  // lender returns what it keeps of its output for its backward
  // (BatchNorm's normalized output: a copy, or its input and statistics),
  // empty when it keeps nothing; the net hands it to the next layer when
  // that one declares it may borrow and runs in place on the lender's only
  // top (the lender in place or not), with or without mem_param.  A
  // borrower reads it instead of keeping a copy of its own input.
  virtual LentOutput<Dtype> KeptOutput() const { return LentOutput<Dtype>(); }
  virtual void BorrowPreviousOutput(const LentOutput<Dtype>& output) {
    CAFFE_INTERNAL_CHECK(false) << "layer '" << layer_param_.name()
                                << "' does not declare borrowing";
  }
  // Set by the net before the layer's last Reshape at set-up: bottom 0 is
  // a blob of its own (no view of another) that no later layer reads or
  // writes, so its data stays as this layer's forward saw it until this
  // layer's backward.  A layer may then read it in backward instead of
  // keeping a copy of what it computes from it (BatchNorm's normalized
  // output), declaring the read in Memory().  Off by default.
  void set_bottom_stays_intact(bool value) { bottom_stays_intact_ = value; }
  bool bottom_stays_intact() const { return bottom_stays_intact_; }
  // Set by the net around a recomputing forward: a layer that updates
  // state in Forward (BatchNorm's running statistics) skips the update so
  // it happens once per iteration.
  void set_recomputing(bool value) { recomputing_ = value; }
  bool recomputing() const { return recomputing_; }
  // Set false by the net when it will never call this layer's Backward
  // (no loss depends on the layer, or the net is a TEST net planned for
  // forward passes only): the layer's Reshape may then drop what it keeps
  // only for backward (Scale's copy of an in-place input), and Backward
  // refuses to run.  A layer used on its own may always run backward.
  void set_backward_runs(bool value) { backward_runs_ = value; }
  bool backward_runs() const { return backward_runs_; }
  // Set by the net around a run of this layer's forward that another run
  // follows before its backward (the first forward of a recomputed
  // segment; a nested part's run within its group's recompute): what this
  // run keeps only as a copy for backward is never read, since the later
  // run writes it again.  A layer may then skip writing such a copy
  // (BatchNorm's normalized output, Scale's copy of an in-place input);
  // its outputs and the state a rerun rereads stay as they were.
  void set_rerun_before_backward(bool value) {
    rerun_before_backward_ = value;
  }
  bool rerun_before_backward() const { return rerun_before_backward_; }
  // The most workspace one library call of this layer may use (bytes), set
  // by the net from mem_param.workspace_limit_mb before the layer is set
  // up; a layer choosing among algorithms (cuDNN convolution) keeps to it.
  void set_workspace_limit(size_t bytes) { workspace_limit_ = bytes; }
  size_t workspace_limit() const { return workspace_limit_; }
  // The gradient-aliasing trait (MemoryContract::diff_alias_bottom), set by
  // the net under mem_param: while on, the layer's Reshape makes top 0's
  // diff the declared bottom's diff memory (ShareGradientMemory) and its
  // Backward skips the copy that became a no-op; turned off, Reshape gives
  // top 0 a diff of its own again.  Reshape must run after a change.
  void set_alias_bottom_diff(bool value) { alias_bottom_diff_ = value; }
  bool alias_bottom_diff() const { return alias_bottom_diff_; }

  bool param_propagate_down(const int param_id) const {
    return (param_propagate_down_.size() > static_cast<size_t>(param_id))
               ? param_propagate_down_[param_id]
               : false;
  }
  void set_param_propagate_down(const int param_id, const bool value) {
    if (param_propagate_down_.size() <= static_cast<size_t>(param_id))
      param_propagate_down_.resize(param_id + 1, true);
    param_propagate_down_[param_id] = value;
  }

 protected:
  // Reshape's part of the gradient-aliasing trait: `top` views `bottom`'s
  // diff while the trait is on, and gets a diff of its own when it is off.
  void ShareGradientMemory(const Blob<Dtype>& bottom, Blob<Dtype>* top) const {
    if (alias_bottom_diff_)
      top->ShareDiff(bottom);
    else if (top->diff() && top->diff() == bottom.diff())
      top->SeparateDiff();
  }
  // Adds `blob`'s data memory to `kept` when the blob holds any.
  template <typename T>
  static void KeepBlobMemory(const Blob<T>& blob,
                             vector<SyncedMemory*>* kept) {
    if (blob.count64() > 0 && blob.data()) kept->push_back(blob.data().get());
  }

  virtual void Forward_cpu(const vector<Blob<Dtype>*>& bottom,
                           const vector<Blob<Dtype>*>& top) = 0;
  // Without a GPU kernel the GPU path runs the CPU code.
  virtual void Forward_gpu(const vector<Blob<Dtype>*>& bottom,
                           const vector<Blob<Dtype>*>& top) {
    Forward_cpu(bottom, top);
  }
  virtual void Backward_cpu(const vector<Blob<Dtype>*>& top,
                            const vector<bool>& propagate_down,
                            const vector<Blob<Dtype>*>& bottom) = 0;
  virtual void Backward_gpu(const vector<Blob<Dtype>*>& top,
                            const vector<bool>& propagate_down,
                            const vector<Blob<Dtype>*>& bottom) {
    Backward_cpu(top, propagate_down, bottom);
  }

  // Throws, naming the blob, when a bottom or top holds more than INT_MAX
  // elements and the layer's contract does not say it counts in 64 bits.
  void CheckCountsFit(const vector<Blob<Dtype>*>& bottom,
                      const vector<Blob<Dtype>*>& top) const;
  virtual void CheckBlobCounts(const vector<Blob<Dtype>*>& bottom,
                               const vector<Blob<Dtype>*>& top);
  // Sets loss_ from loss_weight and stores the weight in each top's diff,
  // which the net's backward pass starts from.
  void SetLossWeights(const vector<Blob<Dtype>*>& top);

  LayerParameter layer_param_;
  Phase phase_;
  vector<shared_ptr<Blob<Dtype> > > blobs_;
  vector<bool> param_propagate_down_;
  vector<Dtype> loss_;
  bool recomputing_ = false;
  bool alias_bottom_diff_ = false;
  bool backward_runs_ = true;
  bool rerun_before_backward_ = false;
  bool bottom_stays_intact_ = false;
  size_t workspace_limit_ = size_t(64) << 20;
};

template <typename Dtype>
inline Dtype Layer<Dtype>::Forward(const vector<Blob<Dtype>*>& bottom,
                                   const vector<Blob<Dtype>*>& top) {
  Dtype loss = 0;
  Reshape(bottom, top);
  CheckCountsFit(bottom, top);
  switch (Caffe::mode()) {
    case Caffe::CPU:
      Forward_cpu(bottom, top);
      break;
    case Caffe::GPU:
      Forward_gpu(bottom, top);
      break;
  }
  for (size_t top_id = 0; top_id < top.size(); ++top_id) {
    if (!this->loss(top_id)) continue;
    // Device-neutral: the diff holds the loss weight (SetLossWeights).
    loss += blob_math::Dot(blob_math::Data(top[top_id]),
                           blob_math::Diff(top[top_id]));
  }
  return loss;
}

template <typename Dtype>
inline void Layer<Dtype>::Backward(const vector<Blob<Dtype>*>& top,
                                   const vector<bool>& propagate_down,
                                   const vector<Blob<Dtype>*>& bottom) {
  CAFFE_INTERNAL_CHECK(backward_runs_)
      << "layer '" << layer_param_.name() << "': Backward called after the "
      << "net declared it would never run (set_backward_runs)";
  switch (Caffe::mode()) {
    case Caffe::CPU:
      Backward_cpu(top, propagate_down, bottom);
      break;
    case Caffe::GPU:
      Backward_gpu(top, propagate_down, bottom);
      break;
  }
}

}  // namespace caffe

#endif  // CAFFE_LAYER_HPP_
