// net.cpp: building a Net -- filtering the NetParameter by state, creating
// and setting up its layers, wiring blobs and shared parameters, finding
// the fused steps and what needs backward, the memory plan's set-up and
// the blobs kept readable.  net_run.cpp runs the steps; net_weights.cpp
// reads and writes the weights.
#include "caffe/net.hpp"

#include <algorithm>
#include <cstdlib>
#include <exception>
#include <string>

#include "caffe/fused_chain.hpp"
#include "caffe/fused_sum_relu.hpp"
#include "caffe/layer_factory.hpp"
#include "caffe/mem/mem_param_check.hpp"
#include "caffe/util/blob_math.hpp"
#include "caffe/util/expensive_layers.hpp"
#include "caffe/util/insert_splits.hpp"
#include "caffe/util/io.hpp"
#include "caffe/util/math_functions.hpp"
#include "caffe/util/memory_fit.hpp"
#include "caffe/util/upgrade_proto.hpp"

namespace caffe {

namespace {

// Fused steps are on unless LEANCAFFE_FUSE_CHAINS=0 says otherwise: a way
// to run every layer on its own in any front end (`caffe train`, pycaffe,
// matcaffe), to compare, or to step around a fused step that misbehaves
// on a device it has not run on.
bool FuseChainsByDefault() {
  const char* env = std::getenv("LEANCAFFE_FUSE_CHAINS");
  return !(env && std::string(env) == "0");
}

}  // namespace

template <typename Dtype>
Net<Dtype>::Net(const NetParameter& param) {
  Init(param);
}

template <typename Dtype>
Net<Dtype>::Net(const string& param_file, Phase phase, const int level,
                const vector<string>* stages) {
  NetParameter param;
  ReadNetParamsFromTextFileOrDie(param_file, &param);
  param.mutable_state()->set_phase(phase);
  if (stages != nullptr) {
    for (const string& s : *stages) param.mutable_state()->add_stage(s);
  }
  param.mutable_state()->set_level(level);
  try {
    Init(param);
  } catch (const std::exception& e) {
    RethrowWithContext(param_file + ": ", e);
  }
}

template <typename Dtype>
vector<string> Net<Dtype>::OtherPhaseBlobNames(const NetParameter& param) {
  NetParameter other_phase = param;
  other_phase.mutable_state()->set_phase(param.state().phase() == TRAIN
                                             ? TEST
                                             : TRAIN);
  NetParameter filtered;
  FilterNet(other_phase, &filtered);
  vector<string> names(filtered.input().begin(), filtered.input().end());
  for (const LayerParameter& layer : filtered.layer())
    names.insert(names.end(), layer.top().begin(), layer.top().end());
  return names;
}

template <typename Dtype>
string Net<Dtype>::LayerContext(int layer_id) const {
  return "layer '" + layer_names_[layer_id] + "' (type " +
         layers_[layer_id]->type() + "): ";
}

template <typename Dtype>
void Net<Dtype>::Init(const NetParameter& in_param) {
  phase_ = in_param.state().phase();
  fuse_chains_ = FuseChainsByDefault();
  NetParameter filtered_param;
  FilterNet(in_param, &filtered_param);
  {
    // recompute { auto: CHEAP } keeps expensive layers' outputs, so an
    // in-place chain after one starts out of place (expensive_layers.hpp).
    const MemoryOptimizationParameter& mp = in_param.mem_param();
    const bool backward = phase_ == TRAIN || in_param.force_backward();
    if (in_param.has_mem_param() && backward &&
        (phase_ == TRAIN ? mp.optimize_train() : mp.optimize_test()) &&
        mp.recompute().auto_() == RecomputeParameter_Auto_CHEAP)
      KeepExpensiveOutputs(&filtered_param);
  }
  NetParameter param;
  InsertSplits(filtered_param, &param);
  name_ = param.name();
  debug_info_ = param.debug_info();
  force_backward_ = param.force_backward();
  const size_t workspace_limit =
      mem::WorkspaceLimitBytes(param.mem_param(), name_);
  map<string, int> blob_name_to_idx;
  set<string> available_blobs;
  memory_used_ = 0;
  bottom_vecs_.resize(param.layer_size());
  top_vecs_.resize(param.layer_size());
  bottom_id_vecs_.resize(param.layer_size());
  param_id_vecs_.resize(param.layer_size());
  top_id_vecs_.resize(param.layer_size());
  bottom_need_backward_.resize(param.layer_size());
  // For BottomStaysIntact: how many layers read each blob, and by blob id
  // the layer that made it.
  map<string, int> readers;
  for (const LayerParameter& layer : param.layer())
    for (const string& bottom : layer.bottom()) ++readers[bottom];
  vector<int> producer;
  for (int layer_id = 0; layer_id < param.layer_size(); ++layer_id) {
    // Layers inherit the net's phase unless they set one.
    if (!param.layer(layer_id).has_phase())
      param.mutable_layer(layer_id)->set_phase(phase_);
    const LayerParameter& layer_param = param.layer(layer_id);
    const string context = "layer '" + layer_param.name() + "' (type " +
                           layer_param.type() + "): ";
    if (layer_param.propagate_down_size() > 0) {
      CAFFE_CHECK_EQ(layer_param.propagate_down_size(),
                     layer_param.bottom_size())
          << context << "propagate_down must be given once per bottom";
    }
    try {
      layers_.push_back(LayerRegistry<Dtype>::CreateLayer(layer_param));
    } catch (const Error& e) {
      throw Error(e.what());  // the registry's message names the layer
    }
    layers_.back()->set_workspace_limit(workspace_limit);
    layer_names_.push_back(layer_param.name());
    bool need_backward = false;
    for (int bottom_id = 0; bottom_id < layer_param.bottom_size();
         ++bottom_id) {
      int blob_id;
      try {
        blob_id = AppendBottom(param, layer_id, bottom_id, &available_blobs,
                               &blob_name_to_idx);
      } catch (const Error& e) {
        RethrowWithContext(context, e);
      }
      need_backward |= blob_need_backward_[blob_id];
    }
    const int num_top = layer_param.top_size();
    for (int top_id = 0; top_id < num_top; ++top_id)
      AppendTop(param, layer_id, top_id, &available_blobs, &blob_name_to_idx);
    // Loss layers may get an anonymous extra top they need.
    Layer<Dtype>* layer = layers_[layer_id].get();
    if (layer->AutoTopBlobs()) {
      const int needed = std::max(layer->MinTopBlobs(),
                                  layer->ExactNumTopBlobs());
      for (int i = num_top; i < needed; ++i)
        AppendTop(param, layer_id, i, nullptr, nullptr);
    }
    layer->set_bottom_stays_intact(
        BottomStaysIntact(layer_id, readers, producer));
    for (int blob : top_id_vecs_[layer_id]) {
      if (producer.size() <= static_cast<size_t>(blob))
        producer.resize(blob + 1, -1);
      if (producer[blob] < 0) producer[blob] = layer_id;
    }
    try {
      layer->SetUp(bottom_vecs_[layer_id], top_vecs_[layer_id]);
    } catch (const std::exception& e) {
      RethrowWithContext(context, e);
    }
    CheckInPlace(layer_id, context);
    for (size_t top_id = 0; top_id < top_vecs_[layer_id].size(); ++top_id) {
      const int blob = top_id_vecs_[layer_id][top_id];
      if (blob_loss_weights_.size() <= static_cast<size_t>(blob))
        blob_loss_weights_.resize(blob + 1, Dtype(0));
      blob_loss_weights_[blob] = layer->loss(top_id);
      LOG_IF(INFO, Caffe::root_solver())
          << "Top shape: " << top_vecs_[layer_id][top_id]->shape_string();
      memory_used_ += top_vecs_[layer_id][top_id]->count64();
    }
    const int param_size = layer_param.param_size();
    const int num_param_blobs = static_cast<int>(layer->blobs().size());
    CAFFE_CHECK_LE(param_size, num_param_blobs)
        << context << "too many param specs: " << param_size
        << " given, the layer has " << num_param_blobs << " parameter blobs";
    ParamSpec default_spec;
    for (int param_id = 0; param_id < num_param_blobs; ++param_id) {
      const ParamSpec* spec = (param_id < param_size)
                                  ? &layer_param.param(param_id)
                                  : &default_spec;
      const bool param_need_backward = spec->lr_mult() != 0;
      need_backward |= param_need_backward;
      layer->set_param_propagate_down(param_id, param_need_backward);
    }
    for (int param_id = 0; param_id < num_param_blobs; ++param_id) {
      try {
        AppendParam(param, layer_id, param_id);
      } catch (const Error& e) {
        RethrowWithContext(context, e);
      }
    }
    layer_need_backward_.push_back(need_backward);
    if (need_backward) {
      for (size_t top_id = 0; top_id < top_id_vecs_[layer_id].size();
           ++top_id)
        blob_need_backward_[top_id_vecs_[layer_id][top_id]] = true;
    }
  }

  // Walk backward: a layer needs backward only if some loss depends on it.
  set<string> blobs_under_loss;
  set<string> blobs_skip_backp;
  for (int layer_id = static_cast<int>(layers_.size()) - 1; layer_id >= 0;
       --layer_id) {
    bool layer_contributes_loss = false;
    bool layer_skip_propagate_down = true;
    for (size_t top_id = 0; top_id < top_vecs_[layer_id].size(); ++top_id) {
      const string& blob_name = blob_names_[top_id_vecs_[layer_id][top_id]];
      if (layers_[layer_id]->loss(top_id) ||
          blobs_under_loss.count(blob_name))
        layer_contributes_loss = true;
      if (!blobs_skip_backp.count(blob_name))
        layer_skip_propagate_down = false;
      if (layer_contributes_loss && !layer_skip_propagate_down) break;
    }
    // A layer whose tops all stop gradients needs no backward.
    if (layer_need_backward_[layer_id] && layer_skip_propagate_down) {
      layer_need_backward_[layer_id] = false;
      for (size_t b = 0; b < bottom_vecs_[layer_id].size(); ++b)
        bottom_need_backward_[layer_id][b] = false;
    }
    if (!layer_contributes_loss) layer_need_backward_[layer_id] = false;
    for (size_t b = 0; b < bottom_vecs_[layer_id].size(); ++b) {
      if (layer_contributes_loss) {
        blobs_under_loss.insert(blob_names_[bottom_id_vecs_[layer_id][b]]);
      } else {
        bottom_need_backward_[layer_id][b] = false;
      }
      if (!bottom_need_backward_[layer_id][b])
        blobs_skip_backp.insert(blob_names_[bottom_id_vecs_[layer_id][b]]);
    }
  }
  // force_backward: every layer that can, does.
  if (param.force_backward()) {
    for (size_t layer_id = 0; layer_id < layers_.size(); ++layer_id) {
      layer_need_backward_[layer_id] = true;
      for (size_t b = 0; b < bottom_need_backward_[layer_id].size(); ++b) {
        bottom_need_backward_[layer_id][b] =
            bottom_need_backward_[layer_id][b] ||
            layers_[layer_id]->AllowForceBackward(b);
        blob_need_backward_[bottom_id_vecs_[layer_id][b]] =
            blob_need_backward_[bottom_id_vecs_[layer_id][b]] ||
            bottom_need_backward_[layer_id][b];
      }
      for (size_t p = 0; p < layers_[layer_id]->blobs().size(); ++p)
        layers_[layer_id]->set_param_propagate_down(p, true);
    }
  }
  // Layers whose backward never runs may drop what they keep only for it:
  // those no loss depends on, and all of a TEST net planned for forward
  // passes only (it refuses backward; NetGraph's forward_only).  They are
  // reshaped again so the plan sees their smaller kept memory -- except
  // data layers (no bottoms), which keep nothing for backward and may
  // have a prefetch thread running.
  const MemoryOptimizationParameter& mp = param.mem_param();
  const bool planned =
      param.has_mem_param() &&
      (phase_ == TRAIN ? mp.optimize_train() : mp.optimize_test());
  const bool forward_only_plan =
      planned && phase_ == TEST && !param.force_backward();
  for (size_t layer_id = 0; layer_id < layers_.size(); ++layer_id) {
    if (layer_need_backward_[layer_id] && !forward_only_plan) continue;
    layers_[layer_id]->set_backward_runs(false);
    if (bottom_vecs_[layer_id].empty()) continue;
    try {
      layers_[layer_id]->Reshape(bottom_vecs_[layer_id], top_vecs_[layer_id]);
    } catch (const std::exception& e) {
      RethrowWithContext(LayerContext(static_cast<int>(layer_id)), e);
    }
  }
  // Blobs nobody consumed are the net's outputs.
  for (const string& blob_name : available_blobs) {
    net_output_blobs_.push_back(blobs_[blob_name_to_idx[blob_name]].get());
    net_output_blob_indices_.push_back(blob_name_to_idx[blob_name]);
  }
  for (size_t blob_id = 0; blob_id < blob_names_.size(); ++blob_id)
    blob_names_index_[blob_names_[blob_id]] = blob_id;
  for (size_t layer_id = 0; layer_id < layer_names_.size(); ++layer_id)
    layer_names_index_[layer_names_[layer_id]] = layer_id;
  ShareWeights();
  LOG_IF(INFO, Caffe::root_solver())
      << "Network '" << name_ << "' initialized; activations: "
      << memory_used_ * sizeof(Dtype) << " bytes";
  if (param.has_mem_param()) {
    mem::NetNames names;
    names.net = name_;
    names.phase = phase_ == TRAIN ? "TRAIN" : "TEST";
    names.blobs = blob_names_;
    names.other_phase_blobs = OtherPhaseBlobNames(in_param);
    for (const string& warning : mem::CheckMemParam(mp, names))
      LOG_IF(WARNING, Caffe::root_solver()) << warning;
  }
  const string fit_context = "net '" + name_ + "' (" +
                            (phase_ == TRAIN ? "TRAIN" : "TEST") + ")";
  // Refused here, before activations are allocated, when it cannot fit
  // (util/memory_fit.hpp); a planned net is checked before its plan binds.
  // Borrowing changes no value, only where one copy lives, so it is on
  // with or without mem_param: an unoptimized net saves the copy's memory
  // and the pass that writes it too.
  LendKeptOutputs();
  if (!planned) CheckMemoryFits(*this, NetMemoryNeed(*this), fit_context);
  if (planned) {
    if (mp.share_diff()) {
      // What the caller reads stays its own: the blobs the plan pins and
      // each exclude_blob.
      std::set<int> readable;
      const std::vector<std::string> pins = NetBlobPins(*this);
      for (size_t id = 0; id < pins.size(); ++id)
        if (!pins[id].empty()) readable.insert(static_cast<int>(id));
      for (const string& name : mp.exclude_blob()) {
        auto it = blob_names_index_.find(name);
        if (it != blob_names_index_.end()) readable.insert(it->second);
      }
      AliasGradients(readable);
    }
    graph_source_.reset(new NetGraphSource<Dtype>(this));
    if (mp.has_recompute() && mp.recompute().has_layer_costs())
      graph_source_->SetLayerCosts(
          ReadLayerCosts(mp.recompute().layer_costs()));
    // The plan binds where this net will run: the GPU's memory when the
    // net is made in GPU mode (as Caffe users set the mode first).
    memory_.reset(new NetMemory(
        graph_source_.get(), mp,
        Caffe::mode() == Caffe::GPU ? DeviceMemory() : HostMemory()));
    memory_->Plan();
    CheckMemoryFits(*this, NetMemoryNeed(*this), fit_context);
    memory_->Apply();
    hooks_.insert(hooks_.begin(), memory_.get());
    const mem::Plan& plan = memory_->plan();
    LOG_IF(INFO, Caffe::root_solver())
        << "Memory plan for '" << name_ << "' ("
        << (phase_ == TRAIN ? "TRAIN" : "TEST") << ", level " << plan.level
        << "): " << plan.total_bytes() << " bytes of activations and "
        << "gradients instead of " << plan.unshared_bytes << " ("
        << plan.shared_bytes << " shared, " << plan.pinned_bytes
        << " pinned; lower bound " << plan.lower_bound << ")";
    if (mp.print_log()) memory_->LogPlan();
  }
  FindFusedChains();
}

template <typename Dtype>
string Net<Dtype>::BlobReadableError(const string& blob_name,
                                     bool diff) const {
  auto it = blob_names_index_.find(blob_name);
  if (it == blob_names_index_.end())
    return "Unknown blob name '" + blob_name + "'";
  const Blob<Dtype>& blob = *blobs_[it->second];
  if (diff && blob.diff_stale()) return *blob.diff_stale();
  const shared_ptr<SyncedMemory>& m = diff ? blob.diff() : blob.data();
  return m ? m->NotReadableMessage() : "";
}

namespace {
template <typename Dtype>
std::set<int> BlobIds(const Net<Dtype>& net, const vector<string>& names) {
  std::set<int> ids;
  for (const string& name : names) {
    CAFFE_CHECK(net.has_blob(name))
        << "net '" << net.name() << "' has no blob '" << name << "'";
    const vector<string>& all = net.blob_names();
    ids.insert(static_cast<int>(std::find(all.begin(), all.end(), name) -
                                all.begin()));
  }
  return ids;
}
}  // namespace

template <typename Dtype>
void Net<Dtype>::KeepBlobs(const vector<string>& blob_names) {
  std::set<int> ids = BlobIds(*this, blob_names);
  if (!memory_) return;
  EndGradientAliases(ids);
  ids.insert(memory_->kept().begin(), memory_->kept().end());
  memory_->SetKept(ids);
}

template <typename Dtype>
vector<string> Net<Dtype>::kept_blobs() const {
  vector<string> names;
  if (memory_)
    for (int id : memory_->kept()) names.push_back(blob_names_[id]);
  return names;
}

template <typename Dtype>
void Net<Dtype>::RequestBlobs(const vector<string>& blob_names, bool diff) {
  const std::set<int> ids = BlobIds(*this, blob_names);
  if (!memory_) return;
  if (diff) EndGradientAliases(ids);
  memory_->Request(ids, diff);
}

template <typename Dtype>
void Net<Dtype>::FilterNet(const NetParameter& param,
                           NetParameter* param_filtered) {
  const NetState& net_state = param.state();
  param_filtered->CopyFrom(param);
  param_filtered->clear_layer();
  for (int i = 0; i < param.layer_size(); ++i) {
    const LayerParameter& layer_param = param.layer(i);
    const string& layer_name = layer_param.name();
    CAFFE_CHECK(layer_param.include_size() == 0 ||
                layer_param.exclude_size() == 0)
        << "layer '" << layer_name
        << "' specifies both include and exclude rules; use one";
    // No include rules means included unless an exclude rule matches.
    bool layer_included = (layer_param.include_size() == 0);
    for (int j = 0; layer_included && j < layer_param.exclude_size(); ++j)
      if (StateMeetsRule(net_state, layer_param.exclude(j), layer_name))
        layer_included = false;
    for (int j = 0; !layer_included && j < layer_param.include_size(); ++j)
      if (StateMeetsRule(net_state, layer_param.include(j), layer_name))
        layer_included = true;
    if (layer_included) param_filtered->add_layer()->CopyFrom(layer_param);
  }
}

template <typename Dtype>
bool Net<Dtype>::StateMeetsRule(const NetState& state,
                                const NetStateRule& rule,
                                const string& layer_name) {
  if (rule.has_phase() && rule.phase() != state.phase()) return false;
  if (rule.has_min_level() && state.level() < rule.min_level()) return false;
  if (rule.has_max_level() && state.level() > rule.max_level()) return false;
  for (int i = 0; i < rule.stage_size(); ++i) {
    bool has_stage = false;
    for (int j = 0; !has_stage && j < state.stage_size(); ++j)
      has_stage = rule.stage(i) == state.stage(j);
    if (!has_stage) return false;
  }
  for (int i = 0; i < rule.not_stage_size(); ++i) {
    for (int j = 0; j < state.stage_size(); ++j)
      if (rule.not_stage(i) == state.stage(j)) return false;
  }
  return true;
}

template <typename Dtype>
void Net<Dtype>::AppendTop(const NetParameter& param, const int layer_id,
                           const int top_id, set<string>* available_blobs,
                           map<string, int>* blob_name_to_idx) {
  const LayerParameter& layer_param = param.layer(layer_id);
  const string blob_name = (layer_param.top_size() > top_id)
                               ? layer_param.top(top_id)
                               : "(automatic)";
  const bool in_place = blob_name_to_idx &&
                        layer_param.bottom_size() > top_id &&
                        blob_name == layer_param.bottom(top_id);
  if (in_place) {
    const int idx = (*blob_name_to_idx)[blob_name];
    top_vecs_[layer_id].push_back(blobs_[idx].get());
    top_id_vecs_[layer_id].push_back(idx);
  } else {
    CAFFE_CHECK(!blob_name_to_idx || !blob_name_to_idx->count(blob_name))
        << "layer '" << layer_param.name() << "': top blob '" << blob_name
        << "' is produced by more than one layer (only in-place use of a "
           "layer's own bottom may repeat a name)";
    shared_ptr<Blob<Dtype> > blob(new Blob<Dtype>());
    const int blob_id = static_cast<int>(blobs_.size());
    blobs_.push_back(blob);
    blob_names_.push_back(blob_name);
    blob_need_backward_.push_back(false);
    if (blob_name_to_idx) (*blob_name_to_idx)[blob_name] = blob_id;
    top_id_vecs_[layer_id].push_back(blob_id);
    top_vecs_[layer_id].push_back(blob.get());
    // A top of an Input layer is a net input.
    if (layer_param.type() == "Input") {
      net_input_blob_indices_.push_back(blob_id);
      net_input_blobs_.push_back(blob.get());
    }
  }
  if (available_blobs) available_blobs->insert(blob_name);
}

template <typename Dtype>
int Net<Dtype>::AppendBottom(const NetParameter& param, const int layer_id,
                             const int bottom_id,
                             set<string>* available_blobs,
                             map<string, int>* blob_name_to_idx) {
  const LayerParameter& layer_param = param.layer(layer_id);
  const string& blob_name = layer_param.bottom(bottom_id);
  CAFFE_CHECK(available_blobs->count(blob_name))
      << "unknown bottom blob '" << blob_name << "' (bottom index "
      << bottom_id << "); no earlier layer produces it";
  const int blob_id = (*blob_name_to_idx)[blob_name];
  bottom_vecs_[layer_id].push_back(blobs_[blob_id].get());
  bottom_id_vecs_[layer_id].push_back(blob_id);
  available_blobs->erase(blob_name);
  bool need_backward = blob_need_backward_[blob_id];
  if (layer_param.propagate_down_size() > 0)
    need_backward = layer_param.propagate_down(bottom_id);
  bottom_need_backward_[layer_id].push_back(need_backward);
  return blob_id;
}

template <typename Dtype>
void Net<Dtype>::AppendParam(const NetParameter& param, const int layer_id,
                             const int param_id) {
  const LayerParameter& layer_param = layers_[layer_id]->layer_param();
  const int param_size = layer_param.param_size();
  const string param_name =
      (param_size > param_id) ? layer_param.param(param_id).name() : "";
  if (!param_name.empty()) {
    param_display_names_.push_back(param_name);
  } else {
    ostringstream s;
    s << param_id;
    param_display_names_.push_back(s.str());
  }
  const int net_param_id = static_cast<int>(params_.size());
  params_.push_back(layers_[layer_id]->blobs()[param_id]);
  param_id_vecs_[layer_id].push_back(net_param_id);
  param_layer_indices_.push_back(make_pair(layer_id, param_id));
  ParamSpec default_spec;
  const ParamSpec* spec = (param_size > param_id)
                              ? &layer_param.param(param_id)
                              : &default_spec;
  if (!param_size || param_name.empty() ||
      !param_names_index_.count(param_name)) {
    // This layer owns the parameter.
    param_owners_.push_back(-1);
    if (!param_name.empty()) param_names_index_[param_name] = net_param_id;
    const int learnable_param_id = static_cast<int>(learnable_params_.size());
    learnable_params_.push_back(params_[net_param_id].get());
    learnable_param_ids_.push_back(learnable_param_id);
    has_params_lr_.push_back(spec->has_lr_mult());
    has_params_decay_.push_back(spec->has_decay_mult());
    params_lr_.push_back(spec->lr_mult());
    params_weight_decay_.push_back(spec->decay_mult());
  } else {
    // Shared with an earlier layer's parameter of the same name.
    const int owner_net_param_id = param_names_index_[param_name];
    param_owners_.push_back(owner_net_param_id);
    const pair<int, int>& owner_index =
        param_layer_indices_[owner_net_param_id];
    const int owner_layer_id = owner_index.first;
    const int owner_param_id = owner_index.second;
    Blob<Dtype>* this_blob = layers_[layer_id]->blobs()[param_id].get();
    Blob<Dtype>* owner_blob =
        layers_[owner_layer_id]->blobs()[owner_param_id].get();
    const int param_size2 = layer_param.param_size();
    if (param_size2 > param_id && (layer_param.param(param_id).share_mode() ==
                                   ParamSpec_DimCheckMode_PERMISSIVE)) {
      CAFFE_CHECK_EQ(this_blob->count(), owner_blob->count())
          << "cannot share param '" << param_name << "' owned by layer '"
          << layer_names_[owner_layer_id] << "' with layer '"
          << layer_names_[layer_id] << "'; count mismatch. Owner shape is "
          << owner_blob->shape_string() << "; sharing shape is "
          << this_blob->shape_string();
    } else {
      CAFFE_CHECK(this_blob->shape() == owner_blob->shape())
          << "cannot share param '" << param_name << "' owned by layer '"
          << layer_names_[owner_layer_id] << "' with layer '"
          << layer_names_[layer_id] << "'; shape mismatch. Owner shape is "
          << owner_blob->shape_string() << "; sharing shape is "
          << this_blob->shape_string();
    }
    const int learnable_param_id = learnable_param_ids_[owner_net_param_id];
    learnable_param_ids_.push_back(learnable_param_id);
    if (spec->has_lr_mult()) {
      if (has_params_lr_[learnable_param_id]) {
        CAFFE_CHECK_EQ(spec->lr_mult(), params_lr_[learnable_param_id])
            << "shared param '" << param_name
            << "' has mismatched lr_mult.";
      } else {
        has_params_lr_[learnable_param_id] = true;
        params_lr_[learnable_param_id] = spec->lr_mult();
      }
    }
    if (spec->has_decay_mult()) {
      if (has_params_decay_[learnable_param_id]) {
        CAFFE_CHECK_EQ(spec->decay_mult(),
                       params_weight_decay_[learnable_param_id])
            << "shared param '" << param_name
            << "' has mismatched decay_mult.";
      } else {
        has_params_decay_[learnable_param_id] = true;
        params_weight_decay_[learnable_param_id] = spec->decay_mult();
      }
    }
  }
}

template <typename Dtype>
void Net<Dtype>::CheckInPlace(int layer_id, const string& context) const {
  // Its memory contract (layer.hpp) says whether a layer may write its
  // output over its input; layers that may not would compute garbage.
  const MemoryContract contract = layers_[layer_id]->Memory();
  for (size_t k = 0; k < top_vecs_[layer_id].size(); ++k) {
    const Blob<Dtype>* top = top_vecs_[layer_id][k];
    for (const Blob<Dtype>* bottom : bottom_vecs_[layer_id])
      CAFFE_CHECK(bottom != top || contract.in_place)
          << context << "cannot run in place: top '"
          << blob_names_[top_id_vecs_[layer_id][k]]
          << "' is also its bottom, and this layer type (with these "
          << "parameters) overwrites what it still needs; give the top a "
          << "name of its own";
  }
}

template <typename Dtype>
bool Net<Dtype>::BottomStaysIntact(int layer_id,
                                   const map<string, int>& readers,
                                   const vector<int>& producer) const {
  // After InsertSplits a blob that several layers read goes through a
  // Split, whose tops view its memory, and an in-place layer reads the
  // blob it writes.  So a bottom that only this layer reads, made by an
  // earlier layer whose top is memory of its own, keeps its data until
  // this layer's backward.  Data layers are left out: a top of theirs may
  // show memory their caller owns (MemoryData's arrays).
  if (bottom_id_vecs_[layer_id].empty()) return false;
  const int b = bottom_id_vecs_[layer_id][0];
  const auto r = readers.find(blob_names_[b]);
  if (r == readers.end() || r->second != 1) return false;
  const int p = static_cast<size_t>(b) < producer.size() ? producer[b] : -1;
  return p >= 0 && p < layer_id && !bottom_vecs_[p].empty() &&
         !layers_[p]->Memory().top_views_bottom;
}

template <typename Dtype>
void Net<Dtype>::LendKeptOutputs() {
  // A layer that may borrow (MemoryContract::borrows_previous_output)
  // reads the output the layer before it keeps for backward, when it runs
  // in place on that layer's only top: one activation-sized copy less.
  // The lender itself may write a top of its own (auto: CHEAP's rewrite
  // gives BatchNorm one); no recompute cut falls between the two, since
  // the borrower writes the lender's top again (recompute_study.cpp).
  borrows_kept_output_.assign(layers_.size(), false);
  for (size_t i = 0; i + 1 < layers_.size(); ++i) {
    Layer<Dtype>& lender = *layers_[i];
    Layer<Dtype>& borrower = *layers_[i + 1];
    if (!borrower.Memory().borrows_previous_output ||
        lender.KeptOutput().empty() || bottom_vecs_[i].size() != 1 ||
        bottom_vecs_[i + 1].size() != 1 || top_vecs_[i].size() != 1 ||
        top_vecs_[i + 1].size() != 1)
      continue;
    Blob<Dtype>* y = top_vecs_[i][0];
    if (bottom_vecs_[i + 1][0] != y || top_vecs_[i + 1][0] != y) continue;
    borrower.BorrowPreviousOutput(lender.KeptOutput());
    borrower.Reshape(bottom_vecs_[i + 1], top_vecs_[i + 1]);
    borrows_kept_output_[i + 1] = true;
  }
}

template <typename Dtype>
void Net<Dtype>::AliasGradients(const std::set<int>& readable) {
  stale_diff_note_.assign(layers_.size(), nullptr);
  for (size_t i = 0; i < layers_.size(); ++i) {
    Layer<Dtype>& layer = *layers_[i];
    const int k = layer.Memory().diff_alias_bottom;
    if (k < 0 || k >= static_cast<int>(bottom_vecs_[i].size()) ||
        top_vecs_[i].empty() || top_vecs_[i][0] == bottom_vecs_[i][k] ||
        readable.count(top_id_vecs_[i][0]) ||
        readable.count(bottom_id_vecs_[i][k]))
      continue;
    layer.set_alias_bottom_diff(true);
    const string& top = blob_names_[top_id_vecs_[i][0]];
    stale_diff_note_[i] = std::make_shared<const string>(
        "blob '" + top + "' diff is not readable: under mem_param its "
        "gradient memory is '" + blob_names_[bottom_id_vecs_[i][k]] +
        "''s (layer '" + layer_names_[i] + "' only copies the gradient), "
        "which the layers below have overwritten. Add exclude_blob: '" +
        top + "' to mem_param, keep it (Net::KeepBlobs, pycaffe "
        "net.keep) or ask for it (pycaffe backward(diffs=[...])).");
    // In forward order, so a chain of aliases (Split -> Eltwise -> Split)
    // ends up on one memory.
    layer.Reshape(bottom_vecs_[i], top_vecs_[i]);
  }
}

template <typename Dtype>
void Net<Dtype>::EndGradientAliases(const std::set<int>& blob_ids) {
  for (size_t i = 0; i < layers_.size(); ++i) {
    Layer<Dtype>& layer = *layers_[i];
    if (!layer.alias_bottom_diff()) continue;
    const int k = layer.Memory().diff_alias_bottom;
    if (!blob_ids.count(top_id_vecs_[i][0]) &&
        !blob_ids.count(bottom_id_vecs_[i][k]))
      continue;
    layer.set_alias_bottom_diff(false);
    // The layer's backward copies again wherever the two diffs differ;
    // every later alias of the old memory still holds its values only
    // while the plan says so, as before.
    top_vecs_[i][0]->SeparateDiff();
  }
}

template <typename Dtype>
void Net<Dtype>::FindFusedChains() {
  const int n = static_cast<int>(layers_.size());
  chain_from_.assign(n, nullptr);
  chain_to_.assign(n, nullptr);
  for (int i = 0; i < n; ++i) {
    shared_ptr<FusedSteps<Dtype> > chain =
        FusedChain<Dtype>::Find(layers_, bottom_vecs_, top_vecs_, i);
    if (!chain)
      chain = FusedSumReLU<Dtype>::Find(layers_, bottom_vecs_, top_vecs_, i);
    if (!chain) continue;
    chain_from_[i] = chain;
    chain_to_[chain->last()] = chain;
    i = chain->last();
  }
}


template <typename Dtype>
void Net<Dtype>::Reshape() {
  for (size_t i = 0; i < layers_.size(); ++i) {
    try {
      layers_[i]->Reshape(bottom_vecs_[i], top_vecs_[i]);
    } catch (const std::exception& e) {
      RethrowWithContext(LayerContext(i), e);
    }
  }
  if (memory_) memory_->PlanAndApply();
}

template <typename Dtype>
void Net<Dtype>::Update() {
  for (Blob<Dtype>* p : learnable_params_) p->Update();
}

template <typename Dtype>
void Net<Dtype>::ClearParamDiffs() {
  for (Blob<Dtype>* blob : learnable_params_)
    blob_math::Set(Dtype(0), blob_math::Diff(blob));
}

template <typename Dtype>
void Net<Dtype>::ShareWeights() {
  for (size_t i = 0; i < params_.size(); ++i) {
    if (param_owners_[i] < 0) continue;
    params_[i]->ShareData(*params_[param_owners_[i]]);
    params_[i]->ShareDiff(*params_[param_owners_[i]]);
  }
}

template <typename Dtype>
bool Net<Dtype>::has_blob(const string& blob_name) const {
  return blob_names_index_.count(blob_name) > 0;
}

template <typename Dtype>
const shared_ptr<Blob<Dtype> > Net<Dtype>::blob_by_name(
    const string& blob_name) const {
  auto it = blob_names_index_.find(blob_name);
  CAFFE_CHECK(it != blob_names_index_.end())
      << "Unknown blob name '" << blob_name << "'";
  return blobs_[it->second];
}

template <typename Dtype>
bool Net<Dtype>::has_layer(const string& layer_name) const {
  return layer_names_index_.count(layer_name) > 0;
}

template <typename Dtype>
const shared_ptr<Layer<Dtype> > Net<Dtype>::layer_by_name(
    const string& layer_name) const {
  auto it = layer_names_index_.find(layer_name);
  CAFFE_CHECK(it != layer_names_index_.end())
      << "Unknown layer name '" << layer_name << "'";
  return layers_[it->second];
}

INSTANTIATE_CLASS(Net);

}  // namespace caffe
