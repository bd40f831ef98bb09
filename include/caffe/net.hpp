// net.hpp: a directed acyclic graph of layers, built from a NetParameter.
//
// Contract (Caffe 1.0 semantics):
//  * Init filters layers by the NetState (phase, level, stages), inserts
//    Split layers for blobs with several consumers, creates and sets up each
//    layer in order, and works out which layers need backward.
//  * Blobs are shared by name; in-place layers reuse their bottom blob.
//    Parameters are shared by ParamSpec name between layers.
//  * Any user error during construction (unknown type, unknown bottom,
//    mismatched shapes) throws caffe::Error whose message starts with the
//    offending layer's name and type.
//  * Forward returns the output blobs; the loss is the sum of loss_weight *
//    top over all loss tops.  Backward accumulates into parameter diffs;
//    callers clear them with ClearParamDiffs.
//  * Callbacks (Caffe master's Net::Callback): before_forward and
//    after_forward callbacks run around each layer's forward, before and
//    after_backward ones around each layer's backward, in the order added,
//    with the layer's index.  They run while that layer's memory is bound
//    (mem_param), so they may read its bottoms and tops.  Backward
//    callbacks also run for layers whose backward is skipped (nothing
//    below needs gradients), as in Caffe; recomputation (mem_param
//    recompute) runs forwards again without calling them.  Gradient
//    reduction across ranks is one such after_backward callback.
#ifndef CAFFE_NET_HPP_
#define CAFFE_NET_HPP_

#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "caffe/blob.hpp"
#include "caffe/common.hpp"
#include "caffe/fused_steps.hpp"
#include "caffe/layer.hpp"
#include "caffe/mem/net_memory.hpp"
#include "caffe/net_graph_builder.hpp"
#include "caffe/step_hook.hpp"
#include "caffe/proto/caffe.pb.h"

namespace caffe {

template <typename Dtype>
class Net {
 public:
  explicit Net(const NetParameter& param);
  // Reads a prototxt (upgrading legacy formats) and builds it for `phase`.
  Net(const string& param_file, Phase phase, const int level = 0,
      const vector<string>* stages = nullptr);
  virtual ~Net() {}

  void Init(const NetParameter& param);

  const vector<Blob<Dtype>*>& Forward(Dtype* loss = nullptr);
  Dtype ForwardFromTo(int start, int end);
  Dtype ForwardFrom(int start);
  Dtype ForwardTo(int end);
  void ClearParamDiffs();
  void Backward();
  void BackwardFromTo(int start, int end);
  void BackwardFrom(int start);
  void BackwardTo(int end);
  // Propagates new input shapes through every layer.
  void Reshape();
  Dtype ForwardBackward() {
    Dtype loss;
    Forward(&loss);
    Backward();
    return loss;
  }
  // data -= diff for every learnable parameter (after the solver scaled it).
  void Update();
  void ShareWeights();

  void ShareTrainedLayersWith(const Net* other);
  void CopyTrainedLayersFrom(const NetParameter& param);
  // Reads .caffemodel (binary) or .caffemodel.h5 (HDF5) by extension.
  void CopyTrainedLayersFrom(const string& trained_filename);
  void CopyTrainedLayersFromBinaryProto(const string& trained_filename);
  void CopyTrainedLayersFromHDF5(const string& trained_filename);
  void ToProto(NetParameter* param, bool write_diff = false) const;
  void ToHDF5(const string& filename, bool write_diff = false) const;

  const string& name() const { return name_; }
  const vector<string>& layer_names() const { return layer_names_; }
  const vector<string>& blob_names() const { return blob_names_; }
  const vector<shared_ptr<Blob<Dtype> > >& blobs() const { return blobs_; }
  const vector<shared_ptr<Layer<Dtype> > >& layers() const { return layers_; }
  Phase phase() const { return phase_; }
  const vector<vector<Blob<Dtype>*> >& bottom_vecs() const {
    return bottom_vecs_;
  }
  const vector<vector<Blob<Dtype>*> >& top_vecs() const { return top_vecs_; }
  const vector<int>& top_ids(int i) const { return top_id_vecs_[i]; }
  const vector<int>& bottom_ids(int i) const { return bottom_id_vecs_[i]; }
  const vector<vector<bool> >& bottom_need_backward() const {
    return bottom_need_backward_;
  }
  const vector<Dtype>& blob_loss_weights() const { return blob_loss_weights_; }
  const vector<bool>& blob_need_backward() const {
    return blob_need_backward_;
  }
  const vector<bool>& layer_need_backward() const {
    return layer_need_backward_;
  }
  const vector<shared_ptr<Blob<Dtype> > >& params() const { return params_; }
  const vector<Blob<Dtype>*>& learnable_params() const {
    return learnable_params_;
  }
  const vector<float>& params_lr() const { return params_lr_; }
  const vector<bool>& has_params_lr() const { return has_params_lr_; }
  const vector<float>& params_weight_decay() const {
    return params_weight_decay_;
  }
  const vector<bool>& has_params_decay() const { return has_params_decay_; }
  const map<string, int>& param_names_index() const {
    return param_names_index_;
  }
  const vector<int>& param_owners() const { return param_owners_; }
  // The params() indices of layer `layer_id`'s blobs.
  const vector<int>& param_ids(int layer_id) const {
    return param_id_vecs_[layer_id];
  }
  // For each params() index, its learnable_params() index (a shared
  // parameter maps to its owner's).
  const vector<int>& learnable_param_ids() const {
    return learnable_param_ids_;
  }
  const vector<string>& param_display_names() const {
    return param_display_names_;
  }
  int num_inputs() const { return static_cast<int>(net_input_blobs_.size()); }
  int num_outputs() const {
    return static_cast<int>(net_output_blobs_.size());
  }
  const vector<Blob<Dtype>*>& input_blobs() const { return net_input_blobs_; }
  const vector<Blob<Dtype>*>& output_blobs() const {
    return net_output_blobs_;
  }
  const vector<int>& input_blob_indices() const {
    return net_input_blob_indices_;
  }
  const vector<int>& output_blob_indices() const {
    return net_output_blob_indices_;
  }
  bool has_blob(const string& blob_name) const;
  const shared_ptr<Blob<Dtype> > blob_by_name(const string& blob_name) const;
  bool has_layer(const string& layer_name) const;
  const shared_ptr<Layer<Dtype> > layer_by_name(
      const string& layer_name) const;
  void set_debug_info(const bool value) { debug_info_ = value; }
  // Per-layer wall time, accumulated over passes while enabled (for
  // `caffe time`): forward, backward, and forward again for recomputation.
  void set_layer_timing(bool value);
  const vector<double>& forward_ms() const { return forward_ms_; }
  const vector<double>& backward_ms() const { return backward_ms_; }
  const vector<double>& recompute_ms() const { return recompute_ms_; }

  // Fused chains (fused_steps.hpp): in-place BatchNorm -> Scale -> ReLU
  // runs (two or three of them, fused_chain.hpp) and an Eltwise SUM of two
  // bottoms with a ReLU in place on its top (fused_sum_relu.hpp) compute
  // as one pass per direction, bit-identical to running the layers one
  // by one on the same device.  On by default, on both devices.
  // A chain runs layer by layer anyway with debug_info, while
  // a step hook other than the memory plan's watches (the non-finite
  // scan), while forward callbacks are set (for forward), when only part
  // of it is in a ForwardFromTo/BackwardFromTo range, and across
  // recomputed segments.  A fused step runs the hooks and callbacks of all
  // its members before it and after it, so a backward callback between
  // members sees the chain's result (data-parallel reduction reads only
  // parameter gradients, which are final then).  Timing: the whole chain's
  // time is the first member's (forward) or last member's (backward).
  // A net starts with fusion on unless the environment has
  // LEANCAFFE_FUSE_CHAINS=0.
  void set_fuse_chains(bool value) { fuse_chains_ = value; }
  bool fuse_chains() const { return fuse_chains_; }
  // The layer whose time includes layer_id's when it runs fused (the
  // chain's first layer for forward, last for backward), or -1 (also when
  // chains run layer by layer now, with debug_info say).
  int fused_forward_into(int layer_id) const;
  int fused_backward_into(int layer_id) const;

  // The memory plan mem_param asked for, or null when the net is not
  // optimized (no mem_param, or optimize_train/optimize_test off).
  const NetMemory* memory() const { return memory_.get(); }
  NetMemory* mutable_memory() { return memory_.get(); }
  // Hooks called around every step the net runs (step_hook.hpp): before a
  // step in the order added, after it in reverse order, so the memory plan
  // (added first, at Init) binds before and poisons after every other hook.
  // Not owned; remove a hook before it is destroyed.
  void AddStepHook(StepHook* hook) { hooks_.push_back(hook); }

  // Called with a layer's index around its forward or backward (see the
  // contract above).  The add_* methods take callbacks the caller keeps
  // alive (as in Caffe); the shared_ptr overloads make the net own them.
  class Callback {
   public:
    virtual ~Callback() {}
    virtual void run(int layer) = 0;
  };
  const vector<Callback*>& before_forward() const { return before_forward_; }
  const vector<Callback*>& after_forward() const { return after_forward_; }
  const vector<Callback*>& before_backward() const {
    return before_backward_;
  }
  const vector<Callback*>& after_backward() const { return after_backward_; }
  void add_before_forward(Callback* c) { before_forward_.push_back(c); }
  void add_after_forward(Callback* c) { after_forward_.push_back(c); }
  void add_before_backward(Callback* c) { before_backward_.push_back(c); }
  void add_after_backward(Callback* c) { after_backward_.push_back(c); }
  void add_before_forward(shared_ptr<Callback> c) {
    add_before_forward(Own(c));
  }
  void add_after_forward(shared_ptr<Callback> c) { add_after_forward(Own(c)); }
  void add_before_backward(shared_ptr<Callback> c) {
    add_before_backward(Own(c));
  }
  void add_after_backward(shared_ptr<Callback> c) {
    add_after_backward(Own(c));
  }
  // Removes c from every list (a callback about to be destroyed).
  void RemoveCallback(Callback* c);
  void RemoveStepHook(StepHook* hook);
  // The step indices hooks see: the memory plan's schedule, or forward of
  // layer i at step i and its backward at step 2L-1-i without one.
  int ForwardStepOf(int layer_id) const;
  int BackwardStepOf(int layer_id) const;
  // The step (layer and kind) at index `step` of that schedule.
  mem::Step StepAt(int step) const;
  // Empty when blob_name's data (diff, with diff true) may be read now;
  // otherwise the error reading it throws (BlobNotReadable), naming the
  // buffer that reuses its memory and the fix.
  string BlobReadableError(const string& blob_name, bool diff = false) const;
  // Asking for blobs under mem_param (no effect without it); unknown names
  // are a caffe::Error.
  //  * KeepBlobs: these blobs' data and diffs stay readable after every
  //    later pass, as mem_param.exclude_blob keeps them, without editing
  //    the prototxt.  Adds to the kept set and plans the memory again, so
  //    values computed before the call are not kept.
  //  * RequestBlobs: the blobs whose data (diff true: diffs) the caller
  //    reads after the coming passes.  Each gets memory of its own outside
  //    the plan at once (a live value is copied over), so it may be called
  //    mid-pass, e.g. between Forward and Backward.  Replaces the previous
  //    request of the same kind.
  //  * Both end the gradient aliasing (AliasGradients) of the blobs named:
  //    a diff asked for holds Caffe's value from the next Backward on.
  void KeepBlobs(const vector<string>& blob_names);
  vector<string> kept_blobs() const;
  void RequestBlobs(const vector<string>& blob_names, bool diff);
  bool force_backward() const { return force_backward_; }
  // Whether layer `layer_id` reads the previous layer's kept output
  // instead of keeping its own copy (layer.hpp KeptOutput).
  bool borrows_kept_output(int layer_id) const {
    return static_cast<size_t>(layer_id) < borrows_kept_output_.size() &&
           borrows_kept_output_[layer_id];
  }
  bool blob_readable(const string& blob_name) const {
    return BlobReadableError(blob_name).empty();
  }

  // Removes layers the NetState excludes.
  // The blob names the same prototxt gives in the other phase (TRAIN for
  // a TEST net and vice versa); mem_param checks name against both.
  static vector<string> OtherPhaseBlobNames(const NetParameter& param);
  static void FilterNet(const NetParameter& param,
                        NetParameter* param_filtered);
  static bool StateMeetsRule(const NetState& state, const NetStateRule& rule,
                             const string& layer_name);

 protected:
  void AppendTop(const NetParameter& param, const int layer_id,
                 const int top_id, set<string>* available_blobs,
                 map<string, int>* blob_name_to_idx);
  int AppendBottom(const NetParameter& param, const int layer_id,
                   const int bottom_id, set<string>* available_blobs,
                   map<string, int>* blob_name_to_idx);
  void AppendParam(const NetParameter& param, const int layer_id,
                   const int param_id);
  // Runs layers begin..end forward again for recomputation (run 0: a
  // group's run; 1: a nested part's third run, NetMemory::RecomputeStep),
  // replaying the random draws their first forward made.
  void Recompute(int begin, int end, int run);
  // Calls every hook before / after step `step`.
  void BeforeStep(int step);
  void AfterStep(int step);
  static void RunCallbacks(const vector<Callback*>& callbacks, int layer);
  Callback* Own(shared_ptr<Callback> c) {
    owned_callbacks_.push_back(c);
    return c.get();
  }
  bool ReplayStartsAt(int layer_id) const;
  // The layer sits in a recomputed segment and runs again before its
  // backward, so its first forward's copies kept for backward are never
  // read (Layer::set_rerun_before_backward).
  bool RerunBeforeBackward(int layer_id) const;
  // The same for recompute run `run` (Recompute's numbering): a nested
  // part's layers run again after their group's run.
  bool RerunAfter(int layer_id, int run) const;
  // Refuses an in-place top the layer's memory contract does not allow.
  void CheckInPlace(int layer_id, const string& context) const;
  // Layer::set_bottom_stays_intact, given before the layer's SetUp: its
  // bottom 0 is read by no other layer (`readers`: how many layers read
  // each blob name) and an earlier layer made it (`producer`, by blob id)
  // as memory of its own.  With or without mem_param.
  bool BottomStaysIntact(int layer_id, const map<string, int>& readers,
                         const vector<int>& producer) const;
  // The borrowing trait (layer.hpp KeptOutput): a Scale in place right
  // after a BatchNorm reads what BatchNorm keeps of its normalized output
  // instead of its own copy (with or without mem_param).
  void LendKeptOutputs();
  // The gradient-aliasing trait under mem_param with share_diff
  // (MemoryContract::diff_alias_bottom): on for every layer that declares
  // it, except where the caller reads one of the two diffs (`readable`:
  // net inputs and outputs, data layer tops, losses, exclude_blob), since
  // the layers below overwrite the shared memory in place.
  void AliasGradients(const std::set<int>& readable);
  // Ends the aliasing of layers whose aliased top or bottom is in
  // `blob_ids`: the top gets diff memory of its own at once (outside the
  // plan until the next forward plans again), so it may run mid-pass.
  void EndGradientAliases(const std::set<int>& blob_ids);
  // Finds the fused chains (at Init), and the chain that may run fused
  // now from layer i forward (up to `end`) or from layer i backward (down
  // to `end`), or null.
  void FindFusedChains();
  FusedSteps<Dtype>* FusedForwardAt(int i, int end);
  FusedSteps<Dtype>* FusedBackwardAt(int i, int end);
  // The chain from layer i that recomputation run `run` may run fused
  // (every member run again, none past `end`), or null.
  FusedSteps<Dtype>* FusedRecomputeAt(int i, int end, int run);
  void RecomputeFused(FusedSteps<Dtype>* chain, int run);
  // Resets the generator to its state before layer_id's first forward
  // where a replayed run starts (ReplayStartsAt).
  void ReplayFrom(int layer_id);
  // Run a chain with every member's hooks and callbacks around it.
  void ForwardFused(FusedSteps<Dtype>* chain);
  void BackwardFused(FusedSteps<Dtype>* chain);
  // What follows layer k's backward, run alone or as a fused member: its
  // aliased top's diff marked stale, the after-backward callbacks, the
  // step hooks.
  void AfterMemberBackward(int k);
  bool OnlyPlanWatches() const;
  // Fusion is on and nothing watches the members one by one (no
  // debug_info, no step hook but the plan's), forward and backward alike.
  bool MayFuse() const;
  // The blobs of this net's layer named like a source layer of trained
  // weights, or null (logged: the source layer is ignored).
  vector<shared_ptr<Blob<Dtype> > >* TargetBlobs(
      const string& source_layer_name);
  void ForwardDebugInfo(const int layer_id);
  void BackwardDebugInfo(const int layer_id);
  void UpdateDebugInfo(const int param_id);
  // Prefix for errors raised while running layer i.
  string LayerContext(int layer_id) const;

  string name_;
  Phase phase_;
  bool force_backward_ = false;
  vector<shared_ptr<Layer<Dtype> > > layers_;
  vector<string> layer_names_;
  map<string, int> layer_names_index_;
  vector<bool> layer_need_backward_;
  vector<shared_ptr<Blob<Dtype> > > blobs_;
  vector<string> blob_names_;
  map<string, int> blob_names_index_;
  vector<bool> blob_need_backward_;
  vector<vector<Blob<Dtype>*> > bottom_vecs_;
  vector<vector<int> > bottom_id_vecs_;
  vector<vector<bool> > bottom_need_backward_;
  vector<vector<Blob<Dtype>*> > top_vecs_;
  vector<vector<int> > top_id_vecs_;
  vector<Dtype> blob_loss_weights_;
  vector<vector<int> > param_id_vecs_;
  vector<int> param_owners_;
  vector<string> param_display_names_;
  vector<pair<int, int> > param_layer_indices_;
  map<string, int> param_names_index_;
  vector<int> net_input_blob_indices_;
  vector<int> net_output_blob_indices_;
  vector<Blob<Dtype>*> net_input_blobs_;
  vector<Blob<Dtype>*> net_output_blobs_;
  vector<shared_ptr<Blob<Dtype> > > params_;
  vector<Blob<Dtype>*> learnable_params_;
  vector<int> learnable_param_ids_;
  vector<float> params_lr_;
  vector<bool> has_params_lr_;
  vector<float> params_weight_decay_;
  vector<bool> has_params_decay_;
  bool debug_info_;
  // Activation elements counted at Init (what Caffe 1.0 logs).
  size_t memory_used_;
  std::unique_ptr<NetGraphSource<Dtype> > graph_source_;
  std::unique_ptr<NetMemory> memory_;
  vector<StepHook*> hooks_;
  vector<Callback*> before_forward_, after_forward_;
  vector<Callback*> before_backward_, after_backward_;
  vector<shared_ptr<Callback> > owned_callbacks_;
  vector<bool> borrows_kept_output_;
  // Per aliasing layer, the message its top's diff gives once stale.
  vector<shared_ptr<const string> > stale_diff_note_;
  // chain_from_[i] / chain_to_[i]: the fused chain whose first / last
  // layer is i, or null.
  vector<shared_ptr<FusedSteps<Dtype> > > chain_from_, chain_to_;
  bool fuse_chains_ = true;
  // The random generator's state in the last forward pass where each run
  // of recomputed layers began, by layer.
  std::map<int, Caffe::RNG> replay_rng_;
  bool layer_timing_ = false;
  vector<double> forward_ms_, backward_ms_, recompute_ms_;

  DISABLE_COPY_AND_ASSIGN(Net);
};

}  // namespace caffe

#endif  // CAFFE_NET_HPP_
