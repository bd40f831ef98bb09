#include "caffe/layers/recurrent_layer.hpp"

#include <set>
#include <string>
#include <vector>

#include "caffe/syncedmem.hpp"
#include "caffe/util/math_functions.hpp"

namespace caffe {

namespace {
// Net::Init logs every top shape; an unrolled net has hundreds of them and
// is rebuilt whenever T changes, so its construction runs as a non-root
// solver, which Net keeps quiet.  Caffe's settings are per thread, so this
// does not silence other threads.
class QuietNetLogs {
 public:
  QuietNetLogs() : was_root_(Caffe::root_solver()) {
    if (was_root_) Caffe::set_solver_rank(1);
  }
  ~QuietNetLogs() {
    if (was_root_) Caffe::set_solver_rank(0);
  }

 private:
  bool was_root_;
};

BlobShape ToBlobShape(const vector<int>& shape) {
  BlobShape s;
  for (int d : shape) s.add_dim(d);
  return s;
}
}  // namespace

template <typename Dtype>
string RecurrentLayer<Dtype>::Context() const {
  return string(this->type()) + " layer '" + this->layer_param_.name() +
         "': ";
}

template <typename Dtype>
int RecurrentLayer<Dtype>::num_hidden_exposed() const {
  if (!this->layer_param_.recurrent_param().expose_hidden()) return 0;
  vector<string> names;
  RecurrentInputBlobNames(&names);
  return static_cast<int>(names.size());
}

template <typename Dtype>
int RecurrentLayer<Dtype>::MinBottomBlobs() const {
  return 2 + num_hidden_exposed();
}

template <typename Dtype>
int RecurrentLayer<Dtype>::ExactNumTopBlobs() const {
  vector<string> outputs;
  OutputBlobNames(&outputs);
  int num_tops = static_cast<int>(outputs.size());
  if (this->layer_param_.recurrent_param().expose_hidden()) {
    vector<string> hidden;
    RecurrentOutputBlobNames(&hidden);
    num_tops += static_cast<int>(hidden.size());
  }
  return num_tops;
}

template <typename Dtype>
bool RecurrentLayer<Dtype>::AllowForceBackward(const int bottom_index) const {
  // x and x_static carry gradients; cont and the hidden state inputs do not.
  return bottom_index == 0 || (bottom_index == 2 && static_input_);
}

template <typename Dtype>
void RecurrentLayer<Dtype>::CheckBottomShapes(
    const vector<Blob<Dtype>*>& bottom) {
  const Blob<Dtype>& x = *bottom[0];
  const Blob<Dtype>& cont = *bottom[1];
  CAFFE_CHECK_GE(x.num_axes(), 2)
      << Context() << "bottom[0] (x) must have at least 2 axes, T x N x ...; "
      << "got " << x.shape_string();
  CAFFE_CHECK(x.shape(0) > 0 && x.shape(1) > 0)
      << Context() << "bottom[0] (x) needs at least one time step and one "
      << "stream; got " << x.shape_string();
  CAFFE_CHECK(cont.num_axes() == 2 && cont.shape(0) == x.shape(0) &&
              cont.shape(1) == x.shape(1))
      << Context() << "bottom[1] (cont) must be T x N = " << x.shape(0)
      << " x " << x.shape(1) << " to match x " << x.shape_string()
      << "; got " << cont.shape_string();
  N_ = x.shape(1);
  if (static_input_) {
    const Blob<Dtype>& x_static = *bottom[2];
    CAFFE_CHECK(x_static.num_axes() >= 1 && x_static.shape(0) == N_)
        << Context() << "bottom[2] (x_static) must be N x ... with N = "
        << N_ << " as in x " << x.shape_string() << "; got "
        << x_static.shape_string();
  }
  if (expose_hidden_) {
    vector<BlobShape> shapes;
    RecurrentInputShapes(&shapes);
    const int offset = 2 + static_input_;
    for (size_t j = 0; j < shapes.size(); ++j) {
      Blob<Dtype> expected;
      expected.Reshape(shapes[j]);
      CAFFE_CHECK(bottom[offset + j]->shape() == expected.shape())
          << Context() << "bottom[" << offset + j << "] (initial hidden "
          << "state) must be " << expected.shape_string() << "; got "
          << bottom[offset + j]->shape_string();
    }
  }
}

template <typename Dtype>
void RecurrentLayer<Dtype>::LayerSetUp(const vector<Blob<Dtype>*>& bottom,
                                       const vector<Blob<Dtype>*>& top) {
  expose_hidden_ = this->layer_param_.recurrent_param().expose_hidden();
  static_input_ =
      static_cast<int>(bottom.size()) > 2 + num_hidden_exposed();
  CheckBottomShapes(bottom);
  BuildUnrolledNet(bottom);
}

template <typename Dtype>
void RecurrentLayer<Dtype>::BuildUnrolledNet(
    const vector<Blob<Dtype>*>& bottom) {
  // FillUnrolledNet reads T_; a failed build must leave the previous net
  // and its T_ in force, or a later call with this T would skip the
  // rebuild and run the old net on the wrong number of steps.
  const int old_T = T_;
  T_ = bottom[0]->shape(0);
  try {
    BuildUnrolledNetForT(bottom);
  } catch (...) {
    T_ = old_T;
    throw;
  }
}

template <typename Dtype>
void RecurrentLayer<Dtype>::BuildUnrolledNetForT(
    const vector<Blob<Dtype>*>& bottom) {
  const bool have_params = !this->blobs_.empty();
  NetParameter net_param;
  net_param.mutable_state()->set_phase(this->phase_);
  LayerParameter* input = net_param.add_layer();
  input->set_name("input");
  input->set_type("Input");
  input->add_top("x");
  *input->mutable_input_param()->add_shape() = ToBlobShape(bottom[0]->shape());
  input->add_top("cont");
  *input->mutable_input_param()->add_shape() = ToBlobShape(bottom[1]->shape());
  if (static_input_) {
    input->add_top("x_static");
    *input->mutable_input_param()->add_shape() =
        ToBlobShape(bottom[2]->shape());
  }
  FillUnrolledNet(&net_param);

  // Layer names carry this layer's name, so errors and debug_info say
  // whose unrolled net they come from.
  const string& layer_name = this->layer_param_.name();
  for (int i = 0; i < net_param.layer_size(); ++i) {
    LayerParameter* layer = net_param.mutable_layer(i);
    if (!layer_name.empty()) layer->set_name(layer_name + "_" + layer->name());
    // Existing weights replace the new ones below: skip random fills, which
    // would only disturb the random stream.
    if (have_params && layer->has_inner_product_param()) {
      layer->mutable_inner_product_param()->clear_weight_filler();
      layer->mutable_inner_product_param()->clear_bias_filler();
    }
  }

  // Pseudo-losses on the outputs make the net back-propagate into them;
  // they are never run.  Flatten aliases its bottom, so they cost nothing.
  vector<string> output_names;
  OutputBlobNames(&output_names);
  vector<string> pseudo_losses;
  for (const string& name : output_names) {
    LayerParameter* layer = net_param.add_layer();
    pseudo_losses.push_back(name + "_pseudoloss");
    layer->set_name(pseudo_losses.back());
    layer->set_type("Flatten");
    layer->add_bottom(name);
    layer->add_top(pseudo_losses.back());
    layer->add_loss_weight(1);
  }

  shared_ptr<Net<Dtype> > net;
  try {
    QuietNetLogs quiet;
    net.reset(new Net<Dtype>(net_param));
  } catch (const std::exception& e) {
    throw Error(Context() + "cannot build the unrolled net: " + e.what());
  }
  net->set_debug_info(this->layer_param_.recurrent_param().debug_info());

  auto find_blob = [&](const string& name) {
    CAFFE_CHECK(net->has_blob(name))
        << Context() << "the unrolled net has no blob '" << name << "'";
    return net->blob_by_name(name).get();
  };
  Blob<Dtype>* x_input = find_blob("x");
  Blob<Dtype>* cont_input = find_blob("cont");
  Blob<Dtype>* x_static_input = static_input_ ? find_blob("x_static") : nullptr;
  vector<string> recur_input_names, recur_output_names;
  RecurrentInputBlobNames(&recur_input_names);
  RecurrentOutputBlobNames(&recur_output_names);
  CAFFE_CHECK_EQ(recur_input_names.size(), recur_output_names.size())
      << Context() << "recurrent inputs and outputs must pair up";
  vector<Blob<Dtype>*> recur_inputs, recur_outputs, outputs;
  for (size_t i = 0; i < recur_input_names.size(); ++i) {
    recur_inputs.push_back(find_blob(recur_input_names[i]));
    recur_outputs.push_back(find_blob(recur_output_names[i]));
  }
  for (const string& name : output_names) outputs.push_back(find_blob(name));
  CAFFE_CHECK_EQ(static_cast<int>(net->input_blobs().size()),
                 2 + static_cast<int>(recur_inputs.size()) + static_input_)
      << Context() << "unexpected inputs in the unrolled net";

  // The layer's parameters: one per owned (not name-shared) net parameter.
  vector<shared_ptr<Blob<Dtype> > > owned;
  for (size_t i = 0; i < net->params().size(); ++i)
    if (net->param_owners()[i] < 0) owned.push_back(net->params()[i]);
  if (!have_params) {
    this->blobs_ = owned;
  } else {
    CAFFE_CHECK_EQ(this->blobs_.size(), owned.size())
        << Context() << "has " << this->blobs_.size()
        << " parameter blobs, the unrolled net needs " << owned.size();
    for (size_t k = 0; k < owned.size(); ++k) {
      CAFFE_CHECK(this->blobs_[k]->shape() == owned[k]->shape())
          << Context() << "parameter " << k << " has shape "
          << this->blobs_[k]->shape_string() << ", the unrolled net needs "
          << owned[k]->shape_string();
    }
  }
  net_owned_params_.clear();
  for (auto& p : owned) net_owned_params_.push_back(p.get());
  param_links_.clear();
  int net_param_id = 0;
  for (const auto& layer : net->layers()) {
    for (size_t j = 0; j < layer->blobs().size(); ++j, ++net_param_id) {
      int owner = net->param_owners()[net_param_id];
      if (owner < 0) owner = net_param_id;
      const Blob<Dtype>* owner_blob = net->params()[owner].get();
      for (size_t k = 0; k < owned.size(); ++k) {
        if (owned[k].get() == owner_blob) {
          param_links_.push_back(ParamLink{layer.get(), static_cast<int>(j),
                                           static_cast<int>(k)});
          break;
        }
      }
    }
  }
  this->param_propagate_down_.resize(this->blobs_.size(), true);

  // Keep the carried state across a rebuild (T changed, N did not).
  if (unrolled_net_ && !expose_hidden_) {
    for (size_t j = 0; j < recur_outputs.size(); ++j) {
      if (recur_outputs[j]->count() == recur_output_blobs_[j]->count())
        recur_outputs[j]->CopyFrom(*recur_output_blobs_[j]);
    }
  }
  // No gradient arrives from the next batch.
  for (Blob<Dtype>* b : recur_outputs)
    caffe_set(b->count(), Dtype(0), b->mutable_cpu_diff());

  const vector<string>& layer_names = net->layer_names();
  const int last = static_cast<int>(layer_names.size()) - 1 -
                   static_cast<int>(pseudo_losses.size());
  for (size_t j = 0; j < pseudo_losses.size(); ++j)
    CAFFE_CHECK_EQ(layer_names[last + 1 + j], pseudo_losses[j])
        << Context() << "pseudo-losses must be the unrolled net's last layers";

  unrolled_net_ = net;
  last_layer_index_ = last;
  x_input_blob_ = x_input;
  cont_input_blob_ = cont_input;
  x_static_input_blob_ = x_static_input;
  recur_input_blobs_ = recur_inputs;
  recur_output_blobs_ = recur_outputs;
  output_blobs_ = outputs;
  ShareParamsWithNet();
  reshaped_for_.clear();
  for (Blob<Dtype>* b : bottom) reshaped_for_.push_back(b->shape());
  ComputeInternalBytes();
}

template <typename Dtype>
void RecurrentLayer<Dtype>::ShareParamsWithNet() {
  for (size_t k = 0; k < net_owned_params_.size(); ++k) {
    Blob<Dtype>* p = net_owned_params_[k];
    const Blob<Dtype>& b = *this->blobs_[k];
    if (p == &b) continue;
    if (p->data() != b.data()) p->ShareData(b);
    if (p->diff() != b.diff()) p->ShareDiff(b);
  }
  // Every time step's copy of a weight follows its owner.
  unrolled_net_->ShareWeights();
}

template <typename Dtype>
void RecurrentLayer<Dtype>::ComputeInternalBytes() {
  const Net<Dtype>& net = *unrolled_net_;
  // Memory that belongs to this layer's bottoms and tops is not internal.
  std::set<const SyncedMemory*> seen;
  vector<Blob<Dtype>*> external{x_input_blob_, cont_input_blob_};
  if (static_input_) external.push_back(x_static_input_blob_);
  if (expose_hidden_)
    external.insert(external.end(), recur_input_blobs_.begin(),
                    recur_input_blobs_.end());
  external.insert(external.end(), output_blobs_.begin(), output_blobs_.end());
  for (Blob<Dtype>* b : external) {
    seen.insert(b->data().get());
    seen.insert(b->diff().get());
  }
  // A diff is used when some layer that runs backward reads or writes it.
  const int num_blobs = static_cast<int>(net.blobs().size());
  vector<bool> diff_used(num_blobs, false);
  for (int i = 0; i <= last_layer_index_; ++i) {
    if (!net.layer_need_backward()[i]) continue;
    for (int id : net.top_ids(i)) diff_used[id] = true;
    const vector<int>& bottoms = net.bottom_ids(i);
    for (size_t b = 0; b < bottoms.size(); ++b)
      if (net.bottom_need_backward()[i][b]) diff_used[bottoms[b]] = true;
  }
  size_t bytes = 0;
  for (int id = 0; id < num_blobs; ++id) {
    const Blob<Dtype>& b = *net.blobs()[id];
    const size_t size = static_cast<size_t>(b.count()) * sizeof(Dtype);
    if (seen.insert(b.data().get()).second) bytes += size;
    if (diff_used[id] && seen.insert(b.diff().get()).second) bytes += size;
  }
  internal_bytes_ = bytes;
}

template <typename Dtype>
void RecurrentLayer<Dtype>::Reshape(const vector<Blob<Dtype>*>& bottom,
                                    const vector<Blob<Dtype>*>& top) {
  CheckBottomShapes(bottom);
  if (bottom[0]->shape(0) != T_) {
    BuildUnrolledNet(bottom);
  } else {
    vector<vector<int> > shapes;
    for (Blob<Dtype>* b : bottom) shapes.push_back(b->shape());
    if (shapes != reshaped_for_) {
      x_input_blob_->ReshapeLike(*bottom[0]);
      cont_input_blob_->ReshapeLike(*bottom[1]);
      if (static_input_) x_static_input_blob_->ReshapeLike(*bottom[2]);
      vector<BlobShape> recur_shapes;
      RecurrentInputShapes(&recur_shapes);
      for (size_t j = 0; j < recur_shapes.size(); ++j)
        recur_input_blobs_[j]->Reshape(recur_shapes[j]);
      try {
        unrolled_net_->Reshape();
      } catch (const std::exception& e) {
        reshaped_for_.clear();  // half-reshaped: redo next time
        throw Error(Context() + "bad input shapes (x " +
                    bottom[0]->shape_string() + "): " + e.what());
      }
      reshaped_for_ = shapes;
      ComputeInternalBytes();
    }
  }
  // The unrolled net works on the bottoms' own memory.
  x_input_blob_->ShareData(*bottom[0]);
  x_input_blob_->ShareDiff(*bottom[0]);
  cont_input_blob_->ShareData(*bottom[1]);
  if (static_input_) {
    x_static_input_blob_->ShareData(*bottom[2]);
    x_static_input_blob_->ShareDiff(*bottom[2]);
  }
  if (expose_hidden_) {
    const int offset = 2 + static_input_;
    for (size_t j = 0; j < recur_input_blobs_.size(); ++j)
      recur_input_blobs_[j]->ShareData(*bottom[offset + j]);
  }
  for (size_t i = 0; i < output_blobs_.size(); ++i) {
    top[i]->ReshapeLike(*output_blobs_[i]);
    top[i]->ShareData(*output_blobs_[i]);
    top[i]->ShareDiff(*output_blobs_[i]);
  }
  if (expose_hidden_) {
    const size_t offset = output_blobs_.size();
    for (size_t j = 0; j < recur_output_blobs_.size(); ++j)
      top[offset + j]->ReshapeLike(*recur_output_blobs_[j]);
  }
}

template <typename Dtype>
void RecurrentLayer<Dtype>::Reset() {
  for (Blob<Dtype>* b : recur_output_blobs_)
    caffe_set(b->count(), Dtype(0), b->mutable_cpu_data());
}

template <typename Dtype>
void RecurrentLayer<Dtype>::Forward_cpu(const vector<Blob<Dtype>*>& bottom,
                                        const vector<Blob<Dtype>*>& top) {
  ShareParamsWithNet();
  if (!expose_hidden_) {
    // The previous call's final state is this call's initial state.
    for (size_t j = 0; j < recur_input_blobs_.size(); ++j) {
      caffe_copy(recur_input_blobs_[j]->count(),
                 recur_output_blobs_[j]->cpu_data(),
                 recur_input_blobs_[j]->mutable_cpu_data());
    }
  }
  try {
    unrolled_net_->ForwardTo(last_layer_index_);
  } catch (const std::exception& e) {
    throw Error(Context() + e.what());
  }
  if (expose_hidden_) {
    // Copies, not shared memory: the unrolled net's backward still reads
    // these blobs, and the caller may overwrite its tops.
    const size_t offset = output_blobs_.size();
    for (size_t j = 0; j < recur_output_blobs_.size(); ++j) {
      caffe_copy(top[offset + j]->count(), recur_output_blobs_[j]->cpu_data(),
                 top[offset + j]->mutable_cpu_data());
    }
  }
}

template <typename Dtype>
void RecurrentLayer<Dtype>::Backward_cpu(const vector<Blob<Dtype>*>& top,
                                         const vector<bool>& propagate_down,
                                         const vector<Blob<Dtype>*>& bottom) {
  CAFFE_CHECK(!propagate_down[1])
      << Context() << "cannot backpropagate to the sequence continuation "
      << "indicators (bottom[1])";
  // The unrolled net always computes the input gradients; send them to a
  // private sink when the caller does not want them.
  if (propagate_down[0]) {
    x_input_blob_->ShareDiff(*bottom[0]);
  } else {
    x_diff_sink_.ReshapeLike(*bottom[0]);
    x_input_blob_->ShareDiff(x_diff_sink_);
  }
  if (static_input_) {
    if (propagate_down[2]) {
      x_static_input_blob_->ShareDiff(*bottom[2]);
    } else {
      x_static_diff_sink_.ReshapeLike(*bottom[2]);
      x_static_input_blob_->ShareDiff(x_static_diff_sink_);
    }
  }
  // Frozen parameters (lr_mult 0 outside) need no gradient inside either.
  for (const ParamLink& link : param_links_) {
    link.layer->set_param_propagate_down(
        link.param_id, this->param_propagate_down(link.blob_index));
  }
  try {
    unrolled_net_->BackwardFrom(last_layer_index_);
  } catch (const std::exception& e) {
    throw Error(Context() + e.what());
  }
  if (expose_hidden_) {
    // Truncated BPTT: nothing flows back into the initial hidden state.
    const int offset = 2 + static_input_;
    for (int i = offset; i < static_cast<int>(bottom.size()); ++i) {
      if (propagate_down[i])
        caffe_set(bottom[i]->count(), Dtype(0), bottom[i]->mutable_cpu_diff());
    }
  }
}

template <typename Dtype>
void RecurrentLayer<Dtype>::AddUnrolledInputs(const UnrolledNetSpec& spec,
                                              NetParameter* net_param,
                                              UnrolledNetParts* parts) const {
  const RecurrentParameter& rp = this->layer_param_.recurrent_param();
  CAFFE_CHECK_GT(static_cast<int>(rp.num_output()), 0)
      << Context() << "recurrent_param.num_output must be positive";

  // Templates for the layers repeated by the subclass and below.
  LayerParameter& hidden = parts->hidden;
  hidden.set_type("InnerProduct");
  InnerProductParameter* ip = hidden.mutable_inner_product_param();
  ip->set_num_output(spec.width);
  ip->set_bias_term(false);
  ip->set_axis(2);
  *ip->mutable_weight_filler() = rp.weight_filler();
  parts->biased_hidden = hidden;
  parts->biased_hidden.mutable_inner_product_param()->set_bias_term(true);
  *parts->biased_hidden.mutable_inner_product_param()
       ->mutable_bias_filler() = rp.bias_filler();
  LayerParameter slice;
  slice.set_type("Slice");
  slice.mutable_slice_param()->set_axis(0);

  vector<string> state_names;
  RecurrentInputBlobNames(&state_names);
  vector<BlobShape> state_shapes;
  RecurrentInputShapes(&state_shapes);
  LayerParameter* state_input = net_param->add_layer();
  state_input->set_name("state_input");
  state_input->set_type("Input");
  for (int i : spec.state_order) {
    state_input->add_top(state_names[i]);
    *state_input->mutable_input_param()->add_shape() = state_shapes[i];
  }

  parts->cont_slice = net_param->add_layer();
  *parts->cont_slice = slice;
  parts->cont_slice->set_name("cont_slice");
  parts->cont_slice->add_bottom("cont");

  // All steps' input transforms in one product.
  const string x_product = spec.x_weight + "_x";
  LayerParameter* x_transform = net_param->add_layer();
  *x_transform = parts->biased_hidden;
  x_transform->set_name("x_transform");
  x_transform->add_param()->set_name(spec.x_weight);
  x_transform->add_param()->set_name(spec.x_bias);
  x_transform->add_bottom("x");
  x_transform->add_top(x_product);
  x_transform->add_propagate_down(true);

  if (static_input_) {
    // x_weight_static x_static, reshaped to one time step (N inferred, so
    // the batch size may change).
    LayerParameter* static_transform = net_param->add_layer();
    *static_transform = hidden;
    static_transform->mutable_inner_product_param()->set_axis(1);
    static_transform->set_name(x_product + "_static");
    static_transform->add_param()->set_name(spec.x_weight + "_static");
    static_transform->add_bottom("x_static");
    static_transform->add_top(x_product + "_static_preshape");
    static_transform->add_propagate_down(true);

    LayerParameter* reshape = net_param->add_layer();
    reshape->set_type("Reshape");
    reshape->set_name(x_product + "_static_reshape");
    BlobShape* shape = reshape->mutable_reshape_param()->mutable_shape();
    shape->add_dim(1);
    shape->add_dim(-1);
    shape->add_dim(spec.width);
    reshape->add_bottom(x_product + "_static_preshape");
    reshape->add_top(x_product + "_static");
  }

  parts->x_slice = net_param->add_layer();
  *parts->x_slice = slice;
  parts->x_slice->set_name(x_product + "_slice");
  parts->x_slice->add_bottom(x_product);
}

template <typename Dtype>
void RecurrentLayer<Dtype>::AddUnrolledStepInput(
    const UnrolledNetSpec& spec, int t, const string& transform_name,
    const string& sum_name, const string& sum_top, NetParameter* net_param,
    UnrolledNetParts* parts) const {
  const string tm1s = std::to_string(t - 1);
  const string ts = std::to_string(t);
  const string x_product = spec.x_weight + "_x";
  parts->cont_slice->add_top("cont_" + ts);
  parts->x_slice->add_top(x_product + "_" + ts);

  // h_conted_{t-1} = cont_t * h_{t-1} (1 x N x H times 1 x N): cont_t = 0
  // starts a new sequence.
  LayerParameter* cont_h = net_param->add_layer();
  cont_h->set_type("Scale");
  cont_h->mutable_scale_param()->set_axis(0);
  cont_h->set_name("h_conted_" + tm1s);
  cont_h->add_bottom("h_" + tm1s);
  cont_h->add_bottom("cont_" + ts);
  cont_h->add_top("h_conted_" + tm1s);

  const string h_product = spec.h_weight + "_h_" + tm1s;
  LayerParameter* h_transform = net_param->add_layer();
  *h_transform = parts->hidden;
  h_transform->set_name(transform_name);
  h_transform->add_param()->set_name(spec.h_weight);
  h_transform->add_bottom("h_conted_" + tm1s);
  h_transform->add_top(h_product);

  LayerParameter* sum = net_param->add_layer();
  sum->set_type("Eltwise");
  sum->mutable_eltwise_param()->set_operation(EltwiseParameter_EltwiseOp_SUM);
  sum->set_name(sum_name);
  sum->add_bottom(h_product);
  sum->add_bottom(x_product + "_" + ts);
  if (static_input_) sum->add_bottom(x_product + "_static");
  sum->add_top(sum_top);
}

INSTANTIATE_CLASS(RecurrentLayer);

}  // namespace caffe
