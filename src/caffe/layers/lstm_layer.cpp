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
  // The four gates are computed by one product of width 4H.
  const int num_output =
      static_cast<int>(this->layer_param_.recurrent_param().num_output());
  const typename RecurrentLayer<Dtype>::UnrolledNetSpec spec = {
      "W_xc", "b_c", "W_hc", num_output * 4, {1, 0}};
  typename RecurrentLayer<Dtype>::UnrolledNetParts parts;
  this->AddUnrolledInputs(spec, net_param, &parts);

  LayerParameter concat;
  concat.set_name("h_concat");
  concat.set_type("Concat");
  concat.mutable_concat_param()->set_axis(0);
  concat.add_top("h");

  for (int t = 1; t <= this->T_; ++t) {
    const string tm1s = std::to_string(t - 1);
    const string ts = std::to_string(t);
    // gate_input_t = W_hc h_conted_{t-1} + W_xc_x_t [+ W_xc_x_static]
    // (LSTMUnit drops c_{t-1} itself where cont_t = 0).
    this->AddUnrolledStepInput(spec, t, "transform_" + ts, "gate_input_" + ts,
                               "gate_input_" + ts, net_param, &parts);

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
