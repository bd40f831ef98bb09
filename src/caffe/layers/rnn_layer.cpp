#include "caffe/layers/rnn_layer.hpp"

#include <string>
#include <vector>

namespace caffe {

template <typename Dtype>
void RNNLayer<Dtype>::RecurrentInputBlobNames(vector<string>* names) const {
  names->assign(1, "h_0");
}

template <typename Dtype>
void RNNLayer<Dtype>::RecurrentOutputBlobNames(vector<string>* names) const {
  names->assign(1, "h_" + std::to_string(this->T_));
}

template <typename Dtype>
void RNNLayer<Dtype>::RecurrentInputShapes(vector<BlobShape>* shapes) const {
  const int num_output = this->layer_param_.recurrent_param().num_output();
  shapes->assign(1, BlobShape());
  (*shapes)[0].add_dim(1);  // one time step
  (*shapes)[0].add_dim(this->N_);
  (*shapes)[0].add_dim(num_output);
}

template <typename Dtype>
void RNNLayer<Dtype>::OutputBlobNames(vector<string>* names) const {
  names->assign(1, "o");
}

template <typename Dtype>
void RNNLayer<Dtype>::FillUnrolledNet(NetParameter* net_param) const {
  const RecurrentParameter& rp = this->layer_param_.recurrent_param();
  const int num_output = static_cast<int>(rp.num_output());
  CAFFE_CHECK_GT(num_output, 0)
      << "RNN layer '" << this->layer_param_.name()
      << "': recurrent_param.num_output must be positive";

  // Templates for the layers repeated below.
  LayerParameter hidden;  // W * input over axis 2 (time, stream, features)
  hidden.set_type("InnerProduct");
  InnerProductParameter* ip = hidden.mutable_inner_product_param();
  ip->set_num_output(num_output);
  ip->set_bias_term(false);
  ip->set_axis(2);
  *ip->mutable_weight_filler() = rp.weight_filler();
  LayerParameter biased_hidden(hidden);
  biased_hidden.mutable_inner_product_param()->set_bias_term(true);
  *biased_hidden.mutable_inner_product_param()->mutable_bias_filler() =
      rp.bias_filler();
  LayerParameter sum;
  sum.set_type("Eltwise");
  sum.mutable_eltwise_param()->set_operation(EltwiseParameter_EltwiseOp_SUM);
  LayerParameter scale;  // h_{t-1} (1 x N x H) times cont_t (1 x N)
  scale.set_type("Scale");
  scale.mutable_scale_param()->set_axis(0);
  LayerParameter slice;
  slice.set_type("Slice");
  slice.mutable_slice_param()->set_axis(0);

  vector<BlobShape> state_shapes;
  RecurrentInputShapes(&state_shapes);
  LayerParameter* state_input = net_param->add_layer();
  state_input->set_name("state_input");
  state_input->set_type("Input");
  state_input->add_top("h_0");
  *state_input->mutable_input_param()->add_shape() = state_shapes[0];

  LayerParameter* cont_slice = net_param->add_layer();
  *cont_slice = slice;
  cont_slice->set_name("cont_slice");
  cont_slice->add_bottom("cont");

  // All steps' input transforms in one product: W_xh_x = W_xh x + b_h.
  LayerParameter* x_transform = net_param->add_layer();
  *x_transform = biased_hidden;
  x_transform->set_name("x_transform");
  x_transform->add_param()->set_name("W_xh");
  x_transform->add_param()->set_name("b_h");
  x_transform->add_bottom("x");
  x_transform->add_top("W_xh_x");
  x_transform->add_propagate_down(true);

  if (this->static_input_) {
    // W_xh_static x_static, reshaped to one time step (N inferred, so the
    // batch size may change).
    LayerParameter* static_transform = net_param->add_layer();
    *static_transform = hidden;
    static_transform->mutable_inner_product_param()->set_axis(1);
    static_transform->set_name("W_xh_x_static");
    static_transform->add_param()->set_name("W_xh_static");
    static_transform->add_bottom("x_static");
    static_transform->add_top("W_xh_x_static_preshape");
    static_transform->add_propagate_down(true);

    LayerParameter* reshape = net_param->add_layer();
    reshape->set_type("Reshape");
    reshape->set_name("W_xh_x_static_reshape");
    BlobShape* shape = reshape->mutable_reshape_param()->mutable_shape();
    shape->add_dim(1);
    shape->add_dim(-1);
    shape->add_dim(num_output);
    reshape->add_bottom("W_xh_x_static_preshape");
    reshape->add_top("W_xh_x_static");
  }

  LayerParameter* x_slice = net_param->add_layer();
  *x_slice = slice;
  x_slice->set_name("W_xh_x_slice");
  x_slice->add_bottom("W_xh_x");

  LayerParameter concat;
  concat.set_name("o_concat");
  concat.set_type("Concat");
  concat.mutable_concat_param()->set_axis(0);
  concat.add_top("o");

  for (int t = 1; t <= this->T_; ++t) {
    const string tm1s = std::to_string(t - 1);
    const string ts = std::to_string(t);
    cont_slice->add_top("cont_" + ts);
    x_slice->add_top("W_xh_x_" + ts);

    // h_conted_{t-1} = cont_t * h_{t-1}: cont_t = 0 starts a new sequence.
    LayerParameter* cont_h = net_param->add_layer();
    *cont_h = scale;
    cont_h->set_name("h_conted_" + tm1s);
    cont_h->add_bottom("h_" + tm1s);
    cont_h->add_bottom("cont_" + ts);
    cont_h->add_top("h_conted_" + tm1s);

    LayerParameter* w_hh = net_param->add_layer();
    *w_hh = hidden;
    w_hh->set_name("W_hh_h_" + tm1s);
    w_hh->add_param()->set_name("W_hh");
    w_hh->add_bottom("h_conted_" + tm1s);
    w_hh->add_top("W_hh_h_" + tm1s);

    LayerParameter* h_sum = net_param->add_layer();
    *h_sum = sum;
    h_sum->set_name("h_input_sum_" + ts);
    h_sum->add_bottom("W_hh_h_" + tm1s);
    h_sum->add_bottom("W_xh_x_" + ts);
    if (this->static_input_) h_sum->add_bottom("W_xh_x_static");
    h_sum->add_top("h_neuron_input_" + ts);

    LayerParameter* h_neuron = net_param->add_layer();
    h_neuron->set_type("TanH");
    h_neuron->set_name("h_neuron_" + ts);
    h_neuron->add_bottom("h_neuron_input_" + ts);
    h_neuron->add_top("h_" + ts);

    LayerParameter* w_ho = net_param->add_layer();
    *w_ho = biased_hidden;
    w_ho->set_name("W_ho_h_" + ts);
    w_ho->add_param()->set_name("W_ho");
    w_ho->add_param()->set_name("b_o");
    w_ho->add_bottom("h_" + ts);
    w_ho->add_top("W_ho_h_" + ts);

    LayerParameter* o_neuron = net_param->add_layer();
    o_neuron->set_type("TanH");
    o_neuron->set_name("o_neuron_" + ts);
    o_neuron->add_bottom("W_ho_h_" + ts);
    o_neuron->add_top("o_" + ts);

    concat.add_bottom("o_" + ts);
  }
  *net_param->add_layer() = concat;
}

INSTANTIATE_CLASS(RNNLayer);
REGISTER_LAYER_CLASS(RNN);

}  // namespace caffe
