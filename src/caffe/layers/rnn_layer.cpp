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
  const int num_output =
      static_cast<int>(this->layer_param_.recurrent_param().num_output());
  const typename RecurrentLayer<Dtype>::UnrolledNetSpec spec = {
      "W_xh", "b_h", "W_hh", num_output, {0}};
  typename RecurrentLayer<Dtype>::UnrolledNetParts parts;
  this->AddUnrolledInputs(spec, net_param, &parts);

  LayerParameter concat;
  concat.set_name("o_concat");
  concat.set_type("Concat");
  concat.mutable_concat_param()->set_axis(0);
  concat.add_top("o");

  for (int t = 1; t <= this->T_; ++t) {
    const string tm1s = std::to_string(t - 1);
    const string ts = std::to_string(t);
    // h_neuron_input_t = W_hh h_conted_{t-1} + W_xh_x_t [+ W_xh_x_static]
    this->AddUnrolledStepInput(spec, t, "W_hh_h_" + tm1s, "h_input_sum_" + ts,
                               "h_neuron_input_" + ts, net_param, &parts);

    LayerParameter* h_neuron = net_param->add_layer();
    h_neuron->set_type("TanH");
    h_neuron->set_name("h_neuron_" + ts);
    h_neuron->add_bottom("h_neuron_input_" + ts);
    h_neuron->add_top("h_" + ts);

    LayerParameter* w_ho = net_param->add_layer();
    *w_ho = parts.biased_hidden;
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
