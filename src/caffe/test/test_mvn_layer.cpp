// Tests for MVNLayer: forward against a double-precision computation for
// each configuration, gradients, in-place equivalence, the BackwardReads
// declaration and shape errors.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "caffe/blob.hpp"
#include "caffe/common.hpp"
#include "caffe/layers/mvn_layer.hpp"
#include "caffe/test/test_gradient_check_util.hpp"
#include "caffe/test/test_layer_contract_util.hpp"

namespace caffe {

template <typename Dtype>
class MVNLayerTest : public ::testing::Test {
 protected:
  MVNLayerTest() : bottom_(vector<int>{2, 3, 4, 5}) {
    Caffe::set_random_seed(1701);
    caffe_rng_gaussian<Dtype>(bottom_.count(), Dtype(0.3), Dtype(2),
                              bottom_.mutable_cpu_data());
    bottom_vec_.push_back(&bottom_);
    top_vec_.push_back(&top_);
  }
  LayerParameter Param(bool normalize_variance, bool across_channels,
                       float eps = 1e-9f) {
    LayerParameter p;
    p.set_name("mvn");
    p.set_type("MVN");
    p.mutable_mvn_param()->set_normalize_variance(normalize_variance);
    p.mutable_mvn_param()->set_across_channels(across_channels);
    p.mutable_mvn_param()->set_eps(eps);
    return p;
  }
  void CheckForward(bool normalize_variance, bool across_channels,
                    float eps) {
    MVNLayer<Dtype> layer(Param(normalize_variance, across_channels, eps));
    layer.SetUp(bottom_vec_, top_vec_);
    layer.Forward(bottom_vec_, top_vec_);
    ASSERT_EQ(bottom_.shape(), top_.shape());
    const int groups = across_channels
                           ? bottom_.shape(0)
                           : bottom_.shape(0) * bottom_.shape(1);
    const int dim = bottom_.count() / groups;
    const Dtype* x = bottom_.cpu_data();
    for (int g = 0; g < groups; ++g) {
      double mean = 0, var = 0;
      for (int i = 0; i < dim; ++i) mean += x[g * dim + i];
      mean /= dim;
      for (int i = 0; i < dim; ++i)
        var += (x[g * dim + i] - mean) * (x[g * dim + i] - mean);
      var /= dim;
      double out_mean = 0, out_var = 0;
      for (int i = 0; i < dim; ++i) {
        double y = x[g * dim + i] - mean;
        if (normalize_variance) y /= std::sqrt(var) + eps;
        const double got = top_.cpu_data()[g * dim + i];
        EXPECT_NEAR(y, got, sizeof(Dtype) == 4 ? 1e-4 : 1e-10);
        out_mean += got;
        out_var += got * got;
      }
      EXPECT_NEAR(0, out_mean / dim, 1e-4);
      if (normalize_variance && eps < 1e-6) {
        EXPECT_NEAR(1, out_var / dim, 1e-4);
      }
    }
  }
  Blob<Dtype> bottom_, top_;
  vector<Blob<Dtype>*> bottom_vec_, top_vec_;
};

TYPED_TEST_SUITE(MVNLayerTest, TestDtypes);

TYPED_TEST(MVNLayerTest, ForwardConfigurations) {
  for (bool nv : {true, false})
    for (bool ac : {false, true}) this->CheckForward(nv, ac, 1e-9f);
  // eps is added to the standard deviation, not the variance.
  this->CheckForward(true, false, 0.5f);
}

TYPED_TEST(MVNLayerTest, Forward2D) {
  typedef TypeParam Dtype;
  // N x D: per "channel" groups hold one value each, so they all become 0;
  // across channels normalizes each row.
  this->bottom_.Reshape(vector<int>{3, 6});
  caffe_rng_gaussian<Dtype>(18, Dtype(0), Dtype(1),
                            this->bottom_.mutable_cpu_data());
  MVNLayer<Dtype> per(this->Param(true, false));
  per.SetUp(this->bottom_vec_, this->top_vec_);
  per.Forward(this->bottom_vec_, this->top_vec_);
  for (int i = 0; i < 18; ++i) EXPECT_EQ(Dtype(0), this->top_.cpu_data()[i]);
  this->CheckForward(true, true, 1e-9f);
}

TYPED_TEST(MVNLayerTest, Gradient) {
  typedef TypeParam Dtype;
  for (bool nv : {true, false}) {
    for (bool ac : {false, true}) {
      MVNLayer<Dtype> layer(this->Param(nv, ac));
      GradientChecker<Dtype> checker(1e-2, 1e-3);
      checker.CheckGradientExhaustive(&layer, this->bottom_vec_,
                                      this->top_vec_);
    }
  }
}

TYPED_TEST(MVNLayerTest, InPlace) {
  typedef TypeParam Dtype;
  for (bool nv : {true, false})
    for (bool ac : {false, true})
      contract_test::CheckInPlaceMatches<Dtype>(this->Param(nv, ac),
                                                this->bottom_vec_, Dtype(0));
}

TYPED_TEST(MVNLayerTest, BackwardReadsAndInternalBytes) {
  typedef TypeParam Dtype;
  for (bool nv : {true, false}) {
    MVNLayer<Dtype> layer(this->Param(nv, false));
    EXPECT_EQ(nv ? kReadsTopData : kReadsNothing, layer.Memory().backward_reads);
    EXPECT_TRUE(layer.Memory().in_place);
    layer.SetUp(this->bottom_vec_, this->top_vec_);
    EXPECT_EQ(nv ? 6 * sizeof(Dtype) : 0u, layer.InternalBytes());
    contract_test::CheckBackwardReads<Dtype>(&layer, this->bottom_vec_,
                                             this->top_vec_);
  }
}

TYPED_TEST(MVNLayerTest, RejectsMoreThanFourAxes) {
  typedef TypeParam Dtype;
  this->bottom_.Reshape(vector<int>{2, 3, 2, 2, 2});
  MVNLayer<Dtype> layer(this->Param(true, false));
  EXPECT_THROW(layer.SetUp(this->bottom_vec_, this->top_vec_), Error);
}

}  // namespace caffe
