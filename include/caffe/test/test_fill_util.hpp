// test_fill_util.hpp: filling a test's blob with Gaussian values.
//
// Contract: FillGaussian(b, std) draws b's data from N(0, std^2) with
// Caffe's generator (caffe_rng_gaussian), so a test that seeds it with
// Caffe::set_random_seed gets the same values on every run.
#ifndef CAFFE_TEST_TEST_FILL_UTIL_HPP_
#define CAFFE_TEST_TEST_FILL_UTIL_HPP_

#include "caffe/blob.hpp"
#include "caffe/util/math_functions.hpp"

namespace caffe {

template <typename Dtype>
void FillGaussian(Blob<Dtype>* b, Dtype std = Dtype(1)) {
  caffe_rng_gaussian<Dtype>(b->count(), Dtype(0), std, b->mutable_cpu_data());
}

}  // namespace caffe

#endif  // CAFFE_TEST_TEST_FILL_UTIL_HPP_
