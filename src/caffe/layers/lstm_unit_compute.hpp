// lstm_unit_compute.hpp: the LSTMUnit layer's bodies, written once over a
// launch policy (util/elementwise.hpp): lstm_unit_layer.cpp runs them with
// CpuLaunch, lstm_unit_layer.cu with GpuLaunch.  One index per hidden unit
// k = n * D + d; the per-unit arithmetic is the serial loop's, in its order.
#ifndef CAFFE_LSTM_UNIT_COMPUTE_HPP_
#define CAFFE_LSTM_UNIT_COMPUTE_HPP_

#include <cmath>
#include <vector>

#include "caffe/layers/lstm_unit_layer.hpp"
#include "caffe/util/device_math.hpp"
#include "caffe/util/elementwise.hpp"

namespace caffe {

template <typename Dtype>
CAFFE_KERNEL inline Dtype LstmSigmoid(Dtype x) {
  return Dtype(1) / (Dtype(1) + std::exp(-x));
}

template <typename Dtype>
struct LSTMUnitForward {
  const Dtype* c_prev;
  const Dtype* X;
  const Dtype* cont;
  Dtype* C;
  Dtype* H;
  int D;
  CAFFE_KERNEL void operator()(long k) const {
    const long n = k / D, d = k % D;
    const Dtype* x = X + 4 * D * n;
    const Dtype i = LstmSigmoid(x[d]);
    // Written so that cont == 0 drops c_{t-1} even if it is inf or NaN.
    const Dtype f = cont[n] == Dtype(0) ? Dtype(0)
                                        : cont[n] * LstmSigmoid(x[D + d]);
    const Dtype o = LstmSigmoid(x[2 * D + d]);
    const Dtype g = std::tanh(x[3 * D + d]);
    const Dtype c = (f == Dtype(0) ? Dtype(0) : f * c_prev[k]) + i * g;
    C[k] = c;
    H[k] = o * std::tanh(c);
  }
};

// Either output may be null (that input is not propagated to).
template <typename Dtype>
struct LSTMUnitBackward {
  const Dtype* c_prev;
  const Dtype* X;
  const Dtype* cont;
  const Dtype* C_diff;
  const Dtype* H_diff;
  Dtype* c_prev_diff;
  Dtype* X_diff;
  int D;
  CAFFE_KERNEL void operator()(long k) const {
    const long n = k / D, d = k % D;
    const Dtype* x = X + 4 * D * n;
    const Dtype i = LstmSigmoid(x[d]);
    const Dtype sf = LstmSigmoid(x[D + d]);
    const Dtype f = cont[n] == Dtype(0) ? Dtype(0) : cont[n] * sf;
    const Dtype o = LstmSigmoid(x[2 * D + d]);
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
};

template <typename Dtype>
template <typename Launch>
void LSTMUnitLayer<Dtype>::ForwardWith(const Launch& launch,
                                       const vector<Blob<Dtype>*>& bottom,
                                       const vector<Blob<Dtype>*>& top) {
  const bool gpu = Launch::gpu;
  launch(static_cast<long>(num_) * hidden_dim_, GrainFor(16),
         LSTMUnitForward<Dtype>{DataOn(gpu, *bottom[0]),
                                DataOn(gpu, *bottom[1]),
                                DataOn(gpu, *bottom[2]),
                                MutableDataOn(gpu, top[0]),
                                MutableDataOn(gpu, top[1]), hidden_dim_});
}

template <typename Dtype>
template <typename Launch>
void LSTMUnitLayer<Dtype>::BackwardWith(const Launch& launch,
                                        const vector<Blob<Dtype>*>& top,
                                        const vector<bool>& propagate_down,
                                        const vector<Blob<Dtype>*>& bottom) {
  CAFFE_CHECK(!propagate_down[2])
      << "LSTMUnit layer " << this->layer_param_.name()
      << ": cannot backpropagate to the sequence continuation input";
  if (!propagate_down[0] && !propagate_down[1]) return;
  const bool gpu = Launch::gpu;
  launch(static_cast<long>(num_) * hidden_dim_, GrainFor(24),
         LSTMUnitBackward<Dtype>{
             DataOn(gpu, *bottom[0]), DataOn(gpu, *bottom[1]),
             DataOn(gpu, *bottom[2]), DiffOn(gpu, *top[0]),
             DiffOn(gpu, *top[1]),
             propagate_down[0] ? MutableDiffOn(gpu, bottom[0]) : nullptr,
             propagate_down[1] ? MutableDiffOn(gpu, bottom[1]) : nullptr,
             hidden_dim_});
}

}  // namespace caffe

#endif  // CAFFE_LSTM_UNIT_COMPUTE_HPP_
