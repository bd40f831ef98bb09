#include "caffe/layers/lstm_layer.hpp"

#include <string>
#include <vector>

namespace caffe {

template <typename Dtype>
void LSTMLayer<Dtype>::RecurrentInputBlobNames(vector<string>* names) const {
  *names = {"h_0", "c_0"};
}

template <typename Dtype>
void LSTMLayer<Dtype>::RecurrentOutputBlobNames(vector<string>* names) const {
  *names = {"h_" + std::to_string(this->T_), "c_T"};
}

template <typename Dtype>
void LSTMLayer<Dtype>::RecurrentInputShapes(vector<BlobShape>* shapes) const {
  const int num_output = this->layer_param_.recurrent_param().num_output();
  BlobShape shape;
  shape.add_dim(1);  // one time step
  shape.add_dim(this->N_);
  shape.add_dim(num_output);
  shapes->assign(2, shape);
}

template <typename Dtype>
void LSTMLayer<Dtype>::OutputBlobNames(vector<string>* names) const {
  names->assign(1, "h");
}

template <typename Dtype>
void LSTMLayer<Dtype>::FillUnrolledNet(NetParameter* net_param) const {
  const RecurrentParameter& rp = this->layer_param_.recurrent_param();
  const int num_output = static_cast<int>(rp.num_output());
  CAFFE_CHECK_GT(num_output, 0)
      << "LSTM layer '" << this->layer_param_.name()
      << "': recurrent_param.num_output must be positive";

  // Templates for the layers repeated below; the four gates are computed
  // by one product of width 4H.
  LayerParameter hidden;
  hidden.set_type("InnerProduct");
  InnerProductParameter* ip = hidden.mutable_inner_product_param();
  ip->set_num_output(num_output * 4);
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
  state_input->add_top("c_0");
  *state_input->mutable_input_param()->add_shape() = state_shapes[1];
  state_input->add_top("h_0");
  *state_input->mutable_input_param()->add_shape() = state_shapes[0];

  LayerParameter* cont_slice = net_param->add_layer();
  *cont_slice = slice;
  cont_slice->set_name("cont_slice");
  cont_slice->add_bottom("cont");

  // All steps' input transforms in one product: W_xc_x = W_xc x + b_c.
  LayerParameter* x_transform = net_param->add_layer();
  *x_transform = biased_hidden;
  x_transform->set_name("x_transform");
  x_transform->add_param()->set_name("W_xc");
  x_transform->add_param()->set_name("b_c");
  x_transform->add_bottom("x");
  x_transform->add_top("W_xc_x");
  x_transform->add_propagate_down(true);

  if (this->static_input_) {
    LayerParameter* static_transform = net_param->add_layer();
    *static_transform = hidden;
    static_transform->mutable_inner_product_param()->set_axis(1);
    static_transform->set_name("W_xc_x_static");
    static_transform->add_param()->set_name("W_xc_static");
    static_transform->add_bottom("x_static");
    static_transform->add_top("W_xc_x_static_preshape");
    static_transform->add_propagate_down(true);

    LayerParameter* reshape = net_param->add_layer();
    reshape->set_type("Reshape");
    reshape->set_name("W_xc_x_static_reshape");
    BlobShape* shape = reshape->mutable_reshape_param()->mutable_shape();
    shape->add_dim(1);
    shape->add_dim(-1);  // N inferred, so the batch size may change
    shape->add_dim(num_output * 4);
    reshape->add_bottom("W_xc_x_static_preshape");
    reshape->add_top("W_xc_x_static");
  }

  LayerParameter* x_slice = net_param->add_layer();
  *x_slice = slice;
  x_slice->set_name("W_xc_x_slice");
  x_slice->add_bottom("W_xc_x");

  LayerParameter concat;
  concat.set_name("h_concat");
  concat.set_type("Concat");
  concat.mutable_concat_param()->set_axis(0);
  concat.add_top("h");

  for (int t = 1; t <= this->T_; ++t) {
    const string tm1s = std::to_string(t - 1);
    const string ts = std::to_string(t);
    cont_slice->add_top("cont_" + ts);
    x_slice->add_top("W_xc_x_" + ts);

    // h_conted_{t-1} = cont_t * h_{t-1}: cont_t = 0 starts a new sequence
    // (LSTMUnit drops c_{t-1} itself).
    LayerParameter* cont_h = net_param->add_layer();
    *cont_h = scale;
    cont_h->set_name("h_conted_" + tm1s);
    cont_h->add_bottom("h_" + tm1s);
    cont_h->add_bottom("cont_" + ts);
    cont_h->add_top("h_conted_" + tm1s);

    LayerParameter* w_hc = net_param->add_layer();
    *w_hc = hidden;
    w_hc->set_name("transform_" + ts);
    w_hc->add_param()->set_name("W_hc");
    w_hc->add_bottom("h_conted_" + tm1s);
    w_hc->add_top("W_hc_h_" + tm1s);

    LayerParameter* gate_sum = net_param->add_layer();
    *gate_sum = sum;
    gate_sum->set_name("gate_input_" + ts);
    gate_sum->add_bottom("W_hc_h_" + tm1s);
    gate_sum->add_bottom("W_xc_x_" + ts);
    if (this->static_input_) gate_sum->add_bottom("W_xc_x_static");
    gate_sum->add_top("gate_input_" + ts);

    LayerParameter* unit = net_param->add_layer();
    unit->set_type("LSTMUnit");
    unit->set_name("unit_" + ts);
    unit->add_bottom("c_" + tm1s);
    unit->add_bottom("gate_input_" + ts);
    unit->add_bottom("cont_" + ts);
    unit->add_top("c_" + ts);
    unit->add_top("h_" + ts);

    concat.add_bottom("h_" + ts);
  }

  // c_T names the last cell state independently of T.
  LayerParameter* c_T_copy = net_param->add_layer();
  c_T_copy->set_type("Split");
  c_T_copy->set_name("c_T_copy");
  c_T_copy->add_bottom("c_" + std::to_string(this->T_));
  c_T_copy->add_top("c_T");

  *net_param->add_layer() = concat;
}

INSTANTIATE_CLASS(LSTMLayer);
REGISTER_LAYER_CLASS(LSTM);

}  // namespace caffe
