#include "caffe/layers/lstm_unit_layer.hpp"

#include <vector>

#include "lstm_unit_compute.hpp"

namespace caffe {

template <typename Dtype>
void LSTMUnitLayer<Dtype>::Reshape(const vector<Blob<Dtype>*>& bottom,
                                   const vector<Blob<Dtype>*>& top) {
  const string& name = this->layer_param_.name();
  const Blob<Dtype>& c_prev = *bottom[0];
  const Blob<Dtype>& gates = *bottom[1];
  const Blob<Dtype>& cont = *bottom[2];
  CAFFE_CHECK(c_prev.num_axes() == 3 && c_prev.shape(0) == 1)
      << "LSTMUnit layer " << name << ": c_{t-1} must be 1 x N x D, got "
      << c_prev.shape_string();
  num_ = c_prev.shape(1);
  hidden_dim_ = c_prev.shape(2);
  CAFFE_CHECK(gates.num_axes() == 3 && gates.shape(0) == 1 &&
              gates.shape(1) == num_ && gates.shape(2) == 4 * hidden_dim_)
      << "LSTMUnit layer " << name << ": gate input must be 1 x N x 4D = 1 x "
      << num_ << " x " << 4 * hidden_dim_ << " for c_{t-1} "
      << c_prev.shape_string() << ", got " << gates.shape_string();
  CAFFE_CHECK(cont.num_axes() == 2 && cont.shape(0) == 1 &&
              cont.shape(1) == num_)
      << "LSTMUnit layer " << name << ": cont must be 1 x N = 1 x " << num_
      << ", got " << cont.shape_string();
  top[0]->ReshapeLike(c_prev);
  top[1]->ReshapeLike(c_prev);
}

DEFINE_CPU_BY_LAUNCH_POLICY(LSTMUnitLayer);

INSTANTIATE_CLASS(LSTMUnitLayer);
REGISTER_LAYER_CLASS(LSTMUnit);

}  // namespace caffe
