// test_recurrent_util.hpp: what the RNN and LSTM layer tests share to write
// their reference loops and configure their layers.
//
// Contract: FillFixed gives a blob deterministic values in [-0.6, 0.6] that
// differ per salt; MatVec is W v for a rows x cols row-major W; Row copies n
// values from offset; RecurrentParam is a layer of the given type and name
// with num_output outputs and uniform(-0.5, 0.5) weight and bias fillers.
#ifndef CAFFE_TEST_TEST_RECURRENT_UTIL_HPP_
#define CAFFE_TEST_TEST_RECURRENT_UTIL_HPP_

#include <string>
#include <vector>

#include "caffe/blob.hpp"
#include "caffe/proto/caffe.pb.h"

namespace caffe {
namespace recurrent_test {

template <typename Dtype>
void FillFixed(Blob<Dtype>* blob, int salt) {
  Dtype* d = blob->mutable_cpu_data();
  for (int i = 0; i < blob->count(); ++i)
    d[i] = Dtype(0.1) * static_cast<Dtype>(((i * 7 + salt * 5) % 13) - 6);
}

template <typename Dtype>
vector<double> MatVec(const Blob<Dtype>& W, const vector<double>& v) {
  const int rows = W.shape(0), cols = W.shape(1);
  vector<double> out(rows, 0.0);
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) out[r] += W.cpu_data()[r * cols + c] * v[c];
  return out;
}

template <typename Dtype>
vector<double> Row(const Blob<Dtype>& b, int offset, int n) {
  return vector<double>(b.cpu_data() + offset, b.cpu_data() + offset + n);
}

inline LayerParameter RecurrentParam(const string& type, const string& name,
                                     int num_output, bool expose_hidden) {
  LayerParameter p;
  p.set_name(name);
  p.set_type(type);
  RecurrentParameter* rp = p.mutable_recurrent_param();
  rp->set_num_output(num_output);
  rp->mutable_weight_filler()->set_type("uniform");
  rp->mutable_weight_filler()->set_min(-0.5);
  rp->mutable_weight_filler()->set_max(0.5);
  rp->mutable_bias_filler()->set_type("uniform");
  rp->mutable_bias_filler()->set_min(-0.5);
  rp->mutable_bias_filler()->set_max(0.5);
  rp->set_expose_hidden(expose_hidden);
  return p;
}

}  // namespace recurrent_test
}  // namespace caffe

#endif  // CAFFE_TEST_TEST_RECURRENT_UTIL_HPP_
