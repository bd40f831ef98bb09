#include "caffe/layers/lstm_unit_layer.hpp"

#include <cmath>
#include <vector>

namespace caffe {

namespace {
template <typename Dtype>
inline Dtype Sigmoid(Dtype x) {
  return Dtype(1) / (Dtype(1) + std::exp(-x));
}
}  // namespace

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

template <typename Dtype>
void LSTMUnitLayer<Dtype>::Forward_cpu(const vector<Blob<Dtype>*>& bottom,
                                       const vector<Blob<Dtype>*>& top) {
  const int D = hidden_dim_;
  const Dtype* c_prev = bottom[0]->cpu_data();
  const Dtype* X = bottom[1]->cpu_data();
  const Dtype* cont = bottom[2]->cpu_data();
  Dtype* C = top[0]->mutable_cpu_data();
  Dtype* H = top[1]->mutable_cpu_data();
  for (int n = 0; n < num_; ++n) {
    const Dtype* x = X + 4 * D * n;
    for (int d = 0; d < D; ++d) {
      const Dtype i = Sigmoid(x[d]);
      // Written so that cont == 0 drops c_{t-1} even if it is inf or NaN.
      const Dtype f = cont[n] == Dtype(0) ? Dtype(0)
                                          : cont[n] * Sigmoid(x[D + d]);
      const Dtype o = Sigmoid(x[2 * D + d]);
      const Dtype g = std::tanh(x[3 * D + d]);
      const int k = n * D + d;
      const Dtype c = (f == Dtype(0) ? Dtype(0) : f * c_prev[k]) + i * g;
      C[k] = c;
      H[k] = o * std::tanh(c);
    }
  }
}

template <typename Dtype>
void LSTMUnitLayer<Dtype>::Backward_cpu(const vector<Blob<Dtype>*>& top,
                                        const vector<bool>& propagate_down,
                                        const vector<Blob<Dtype>*>& bottom) {
  CAFFE_CHECK(!propagate_down[2])
      << "LSTMUnit layer " << this->layer_param_.name()
      << ": cannot backpropagate to the sequence continuation input";
  if (!propagate_down[0] && !propagate_down[1]) return;
  const int D = hidden_dim_;
  const Dtype* c_prev = bottom[0]->cpu_data();
  const Dtype* X = bottom[1]->cpu_data();
  const Dtype* cont = bottom[2]->cpu_data();
  const Dtype* C_diff = top[0]->cpu_diff();
  const Dtype* H_diff = top[1]->cpu_diff();
  Dtype* c_prev_diff =
      propagate_down[0] ? bottom[0]->mutable_cpu_diff() : nullptr;
  Dtype* X_diff = propagate_down[1] ? bottom[1]->mutable_cpu_diff() : nullptr;
  for (int n = 0; n < num_; ++n) {
    const Dtype* x = X + 4 * D * n;
    for (int d = 0; d < D; ++d) {
      const int k = n * D + d;
      const Dtype i = Sigmoid(x[d]);
      const Dtype sf = Sigmoid(x[D + d]);
      const Dtype f = cont[n] == Dtype(0) ? Dtype(0) : cont[n] * sf;
      const Dtype o = Sigmoid(x[2 * D + d]);
      const Dtype g = std::tanh(x[3 * D + d]);
      const Dtype fc = f == Dtype(0) ? Dtype(0) : f * c_prev[k];
      const Dtype tanh_c = std::tanh(fc + i * g);
      // dL/dc_t collects the direct path and the path through h_t.
      const Dtype dc = C_diff[k] + H_diff[k] * o * (Dtype(1) - tanh_c * tanh_c);
      if (c_prev_diff) c_prev_diff[k] = dc * f;
      if (X_diff) {
        Dtype* dx = X_diff + 4 * D * n;
        dx[d] = dc * g * i * (Dtype(1) - i);
        dx[D + d] = f == Dtype(0) ? Dtype(0)
                                  : dc * c_prev[k] * f * (Dtype(1) - sf);
        dx[2 * D + d] = H_diff[k] * tanh_c * o * (Dtype(1) - o);
        dx[3 * D + d] = dc * i * (Dtype(1) - g * g);
      }
    }
  }
}

INSTANTIATE_CLASS(LSTMUnitLayer);
REGISTER_LAYER_CLASS(LSTMUnit);

}  // namespace caffe
