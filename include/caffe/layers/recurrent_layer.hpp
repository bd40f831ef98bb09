// RecurrentLayer: the base of RNNLayer and LSTMLayer (not registered).
//
// Contract (Caffe 1.0):
//  * Bottoms: x (T x N x ...), cont (T x N; cont[t][n] = 0 starts a new
//    sequence in stream n at step t), optionally x_static (N x ...), a
//    per-stream input seen at every step; then, with
//    recurrent_param.expose_hidden, the initial hidden state blobs named by
//    RecurrentInputBlobNames (each RecurrentInputShapes, 1 x N x num_output).
//    Tops: the outputs named by OutputBlobNames (T x N x num_output), then,
//    with expose_hidden, the final hidden states (RecurrentOutputBlobNames).
//  * Without expose_hidden the state carries over from one Forward to the
//    next (the last step's state is the next call's initial state), which is
//    what truncated back-propagation through time over consecutive batches
//    needs; cont = 0 at t = 0 (or Reset()) cuts it.  With expose_hidden the
//    initial state comes from the bottoms instead.
//  * The work is done by an unrolled Net that the subclass describes with
//    FillUnrolledNet; its learnable parameters (one per shared ParamSpec
//    name, in order of first use) are this layer's blobs().  The net is built
//    when T changes (weights and carried state are kept) and reshaped when
//    other shapes change; its construction does not log.
//  * No gradient flows to cont (Backward throws if asked; AllowForceBackward
//    is false) nor across the exposed hidden state, as in Caffe: a hidden
//    state bottom's diff, when asked for, is set to zero (truncated BPTT).
//  * Memory: the unrolled net keeps every step's activations for backward;
//    they are reported by InternalBytes.  Backward reads the bottom data
//    (x, cont, x_static and the initial states are used in place).  The
//    output top shares its data and diff with the unrolled net (as in
//    Caffe); the exposed hidden state tops are copies.
#ifndef CAFFE_RECURRENT_LAYER_HPP_
#define CAFFE_RECURRENT_LAYER_HPP_

#include <string>
#include <vector>

#include "caffe/blob.hpp"
#include "caffe/layer.hpp"
#include "caffe/net.hpp"
#include "caffe/proto/caffe.pb.h"

namespace caffe {

template <typename Dtype>
class RecurrentLayer : public Layer<Dtype> {
 public:
  explicit RecurrentLayer(const LayerParameter& param)
      : Layer<Dtype>(param) {}
  void LayerSetUp(const vector<Blob<Dtype>*>& bottom,
                  const vector<Blob<Dtype>*>& top) override;
  void Reshape(const vector<Blob<Dtype>*>& bottom,
               const vector<Blob<Dtype>*>& top) override;
  // Zeroes the carried hidden state.
  virtual void Reset();

  int MinBottomBlobs() const override;
  int MaxBottomBlobs() const override { return MinBottomBlobs() + 1; }
  int ExactNumTopBlobs() const override;
  bool AllowForceBackward(const int bottom_index) const override;

  // The memory contract (layer.hpp MemoryContract).
  MemoryContract Memory() const override {
    MemoryContract c;
    c.backward_reads = kReadsBottomData;
    c.may_run_twice = false;  // the hidden state carries over
    return c;
  }
  size_t InternalBytes() const override { return internal_bytes_; }

  // The unrolled net (for inspection and tests); null before SetUp.
  Net<Dtype>* unrolled_net() const { return unrolled_net_.get(); }

 protected:
  // Appends the architecture to net_param, which already holds an Input
  // layer with tops "x", "cont" and (when static_input_) "x_static".  Blob
  // names for the recurrent inputs/outputs and outputs follow the methods
  // below; T_, N_ and static_input_ are set.
  virtual void FillUnrolledNet(NetParameter* net_param) const = 0;
  // Initial hidden state blob names (inputs of the unrolled net).
  virtual void RecurrentInputBlobNames(vector<string>* names) const = 0;
  // Their shapes, in the same order.
  virtual void RecurrentInputShapes(vector<BlobShape>* shapes) const = 0;
  // Final hidden state blob names, paired with the inputs.
  virtual void RecurrentOutputBlobNames(vector<string>* names) const = 0;
  // Names of the output blobs, one per (non-hidden) top.
  virtual void OutputBlobNames(vector<string>* names) const = 0;

  // The parts of FillUnrolledNet that RNN and LSTM share; they differ only
  // in these names and widths, so one description serves both.
  struct UnrolledNetSpec {
    string x_weight;  // input transform ("W_xh"); also prefixes its blobs
    string x_bias;    // its bias ("b_h")
    string h_weight;  // recurrent transform ("W_hh")
    int width;        // outputs of each transform (H, or 4H for the gates)
    // Order of the state Input layer's tops, as indices into
    // RecurrentInputBlobNames (Caffe's LSTM lists c_0 before h_0).
    vector<int> state_order;
  };
  // What AddUnrolledInputs leaves for the per-step layers.
  struct UnrolledNetParts {
    LayerParameter hidden;         // W * input over axis 2, without bias
    LayerParameter biased_hidden;  // the same with a bias
    LayerParameter* cont_slice = nullptr;  // cont, one top per step
    LayerParameter* x_slice = nullptr;     // x_weight x, one top per step
  };
  // Checks num_output and adds the layers before the steps: the state
  // Input, the cont slice, x_weight x + x_bias for all steps in one product
  // (and x_weight_static x_static, reshaped to one step), and its slice.
  void AddUnrolledInputs(const UnrolledNetSpec& spec, NetParameter* net_param,
                         UnrolledNetParts* parts) const;
  // Adds step t's (1-based) slice tops and layers computing
  //     sum_top = h_weight (cont_t * h_{t-1}) + x_weight x_t [+ static]
  // with the recurrent product named transform_name and the sum sum_name.
  void AddUnrolledStepInput(const UnrolledNetSpec& spec, int t,
                            const string& transform_name,
                            const string& sum_name, const string& sum_top,
                            NetParameter* net_param,
                            UnrolledNetParts* parts) const;

  void Forward_cpu(const vector<Blob<Dtype>*>& bottom,
                   const vector<Blob<Dtype>*>& top) override;
  void Backward_cpu(const vector<Blob<Dtype>*>& top,
                    const vector<bool>& propagate_down,
                    const vector<Blob<Dtype>*>& bottom) override;

  shared_ptr<Net<Dtype> > unrolled_net_;
  int N_ = 0;  // independent streams
  int T_ = 0;  // time steps
  bool static_input_ = false;
  bool expose_hidden_ = false;
  // The last layer run by Forward; the pseudo-losses after it only make the
  // unrolled net back-propagate.
  int last_layer_index_ = 0;

  Blob<Dtype>* x_input_blob_ = nullptr;
  Blob<Dtype>* x_static_input_blob_ = nullptr;
  Blob<Dtype>* cont_input_blob_ = nullptr;
  vector<Blob<Dtype>*> recur_input_blobs_;
  vector<Blob<Dtype>*> recur_output_blobs_;
  vector<Blob<Dtype>*> output_blobs_;

 private:
  // Checks the bottoms against each other and the layer's configuration;
  // sets N_ from them.
  void CheckBottomShapes(const vector<Blob<Dtype>*>& bottom);
  // Builds unrolled_net_ for the bottoms' shapes (T_ = bottom[0]'s first
  // axis), keeping blobs_ (and the carried state) when they exist.  On error
  // the previous net and T_ stay.
  void BuildUnrolledNet(const vector<Blob<Dtype>*>& bottom);
  void BuildUnrolledNetForT(const vector<Blob<Dtype>*>& bottom);
  // Points the unrolled net's parameters at blobs_ again, in case someone
  // re-shared blobs_ (Solver::Test does, through ShareTrainedLayersWith).
  void ShareParamsWithNet();
  void ComputeInternalBytes();
  string Context() const;

  int num_hidden_exposed() const;
  // The unrolled net's parameter blobs that blobs_ stand for, in order.
  vector<Blob<Dtype>*> net_owned_params_;
  // Each parameter of each unrolled layer, with the index in blobs_ of the
  // parameter it stands for.
  struct ParamLink {
    Layer<Dtype>* layer;
    int param_id;
    int blob_index;
  };
  vector<ParamLink> param_links_;
  // Bottom shapes the unrolled net was last reshaped for.
  vector<vector<int> > reshaped_for_;
  // Diff sinks for x and x_static when the caller wants no gradient there,
  // so the unrolled net does not write into diffs it does not own.
  Blob<Dtype> x_diff_sink_;
  Blob<Dtype> x_static_diff_sink_;
  size_t internal_bytes_ = 0;
};

}  // namespace caffe

#endif  // CAFFE_RECURRENT_LAYER_HPP_
