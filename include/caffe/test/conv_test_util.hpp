// conv_test_util.hpp: what the Convolution and Deconvolution layer tests
// share -- index helpers for their direct reference implementations, and
// a fixture with two Gaussian bottoms, a parameter maker and a forward
// check against a reference.
//
// Contract: ConvTestFixture<Dtype, LayerT> builds bottom_ and bottom2_ of
// the shape and seed its constructor gets, filled from N(0, 1); bottom_vec_
// and top_vec_ hold only the first pair until a test adds the second.
// MakeParam names the layer and sets num_output, one kernel size, stride
// and pad (1 and 0 left unset, as a prototxt would), and Gaussian fillers.
// CheckForward sets up and runs a LayerT on bottom_ and expects top_ within
// 1e-4 of `reference` element by element, after its shape.
#ifndef CAFFE_TEST_CONV_TEST_UTIL_HPP_
#define CAFFE_TEST_CONV_TEST_UTIL_HPP_

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "caffe/blob.hpp"
#include "caffe/common.hpp"
#include "caffe/proto/caffe.pb.h"
#include "caffe/test/test_fill_util.hpp"

namespace caffe {
namespace conv_test {

// Row-major multi-index of flat index i within dims.
inline vector<int> Unflatten(int i, const vector<int>& dims) {
  vector<int> idx(dims.size());
  for (int a = static_cast<int>(dims.size()) - 1; a >= 0; --a) {
    idx[a] = i % dims[a];
    i /= dims[a];
  }
  return idx;
}

inline int Prod(const vector<int>& v) {
  int p = 1;
  for (int d : v) p *= d;
  return p;
}

// A direct reference: the output of input `in` with weights w, optional
// bias, group, and per-axis pad, stride and dilation; sets *out_shape.
template <typename Dtype>
using Reference = vector<Dtype> (*)(const Blob<Dtype>& in, const Blob<Dtype>& w,
                                    const Blob<Dtype>* bias, int group,
                                    const vector<int>& pad,
                                    const vector<int>& stride,
                                    const vector<int>& dil,
                                    vector<int>* out_shape);

template <typename Dtype, template <typename> class LayerT>
class ConvTestFixture : public ::testing::Test {
 protected:
  ConvTestFixture(const vector<int>& bottom_shape, const string& name)
      : bottom_(new Blob<Dtype>(bottom_shape)),
        bottom2_(new Blob<Dtype>(bottom_shape)),
        top_(new Blob<Dtype>()), top2_(new Blob<Dtype>()), name_(name) {
    Caffe::set_random_seed(1701);
    FillGaussian(bottom_.get());
    FillGaussian(bottom2_.get());
    bottom_vec_ = {bottom_.get()};
    top_vec_ = {top_.get()};
  }

  LayerParameter MakeParam(int num_output, int kernel, int stride,
                           int pad) const {
    LayerParameter p;
    p.set_name(name_);
    ConvolutionParameter* cp = p.mutable_convolution_param();
    cp->set_num_output(num_output);
    cp->add_kernel_size(kernel);
    if (stride != 1) cp->add_stride(stride);
    if (pad) cp->add_pad(pad);
    cp->mutable_weight_filler()->set_type("gaussian");
    cp->mutable_bias_filler()->set_type("gaussian");
    return p;
  }

  void CheckForwardAgainst(Reference<Dtype> reference,
                           const LayerParameter& p, int group,
                           const vector<int>& pad, const vector<int>& stride,
                           const vector<int>& dil) {
    LayerT<Dtype> layer(p);
    layer.SetUp(bottom_vec_, top_vec_);
    layer.Forward(bottom_vec_, top_vec_);
    vector<int> shape;
    const bool bias = p.convolution_param().bias_term();
    const vector<Dtype> ref =
        reference(*bottom_, *layer.blobs()[0],
                  bias ? layer.blobs()[1].get() : nullptr, group, pad, stride,
                  dil, &shape);
    ASSERT_EQ(shape, top_->shape());
    for (int i = 0; i < top_->count(); ++i)
      EXPECT_NEAR(ref[i], top_->cpu_data()[i], 1e-4) << i;
  }

  shared_ptr<Blob<Dtype> > bottom_, bottom2_, top_, top2_;
  vector<Blob<Dtype>*> bottom_vec_, top_vec_;

 private:
  const string name_;
};

}  // namespace conv_test
}  // namespace caffe

#endif  // CAFFE_TEST_CONV_TEST_UTIL_HPP_
