// Tests for ReductionLayer: every operation on several axes and coeffs
// against loops, gradients, the BackwardReads declaration per operation and
// axis errors.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "caffe/blob.hpp"
#include "caffe/common.hpp"
#include "caffe/layers/reduction_layer.hpp"
#include "caffe/test/test_gradient_check_util.hpp"
#include "caffe/test/test_layer_contract_util.hpp"

namespace caffe {

const ReductionParameter_ReductionOp kAllOps[] = {
    ReductionParameter_ReductionOp_SUM, ReductionParameter_ReductionOp_ASUM,
    ReductionParameter_ReductionOp_SUMSQ, ReductionParameter_ReductionOp_MEAN};

template <typename Dtype>
class ReductionLayerTest : public ::testing::Test {
 protected:
  ReductionLayerTest() : bottom_(vector<int>{2, 3, 4, 5}) {
    Caffe::set_random_seed(1701);
    caffe_rng_uniform<Dtype>(bottom_.count(), Dtype(-1), Dtype(1),
                             bottom_.mutable_cpu_data());
    // Keep |x| away from ASUM's kink at 0.
    Dtype* x = bottom_.mutable_cpu_data();
    for (int i = 0; i < bottom_.count(); ++i)
      if (std::fabs(x[i]) < Dtype(0.05)) x[i] = Dtype(0.1);
    bottom_vec_.push_back(&bottom_);
    top_vec_.push_back(&top_);
  }
  LayerParameter Param(ReductionParameter_ReductionOp op, int axis,
                       float coeff = 1) {
    LayerParameter p;
    p.set_name("reduce");
    p.set_type("Reduction");
    p.mutable_reduction_param()->set_operation(op);
    p.mutable_reduction_param()->set_axis(axis);
    if (coeff != 1) p.mutable_reduction_param()->set_coeff(coeff);
    return p;
  }
  void CheckForward(ReductionParameter_ReductionOp op, int axis,
                    float coeff) {
    ReductionLayer<Dtype> layer(Param(op, axis, coeff));
    layer.SetUp(bottom_vec_, top_vec_);
    layer.Forward(bottom_vec_, top_vec_);
    const int a = axis < 0 ? axis + 4 : axis;
    const vector<int> want(bottom_.shape().begin(),
                           bottom_.shape().begin() + a);
    ASSERT_EQ(want, top_.shape());
    const int num = bottom_.count(0, a), dim = bottom_.count(a);
    const Dtype* x = bottom_.cpu_data();
    for (int i = 0; i < num; ++i) {
      double v = 0;
      for (int j = 0; j < dim; ++j) {
        const double e = x[i * dim + j];
        switch (op) {
          case ReductionParameter_ReductionOp_SUM:
          case ReductionParameter_ReductionOp_MEAN: v += e; break;
          case ReductionParameter_ReductionOp_ASUM: v += std::fabs(e); break;
          case ReductionParameter_ReductionOp_SUMSQ: v += e * e; break;
        }
      }
      if (op == ReductionParameter_ReductionOp_MEAN) v /= dim;
      v *= coeff;
      const double tol = (sizeof(Dtype) == 4 ? 1e-5 : 1e-12) *
                         std::max(1.0, std::fabs(v)) * dim;
      EXPECT_NEAR(v, top_.cpu_data()[i], tol)
          << "op " << op << " axis " << axis << " output " << i;
    }
  }
  Blob<Dtype> bottom_, top_;
  vector<Blob<Dtype>*> bottom_vec_, top_vec_;
};

TYPED_TEST_SUITE(ReductionLayerTest, TestDtypes);

TYPED_TEST(ReductionLayerTest, ForwardAllOpsAndAxes) {
  for (auto op : kAllOps) {
    for (int axis : {0, 1, 3, -2}) {
      this->CheckForward(op, axis, 1);
      this->CheckForward(op, axis, 2.3f);
    }
  }
}

TYPED_TEST(ReductionLayerTest, AxisZeroGivesScalar) {
  typedef TypeParam Dtype;
  ReductionLayer<Dtype> layer(
      this->Param(ReductionParameter_ReductionOp_SUM, 0));
  layer.SetUp(this->bottom_vec_, this->top_vec_);
  EXPECT_EQ(0, this->top_.num_axes());
  EXPECT_EQ(1, this->top_.count());
}

TYPED_TEST(ReductionLayerTest, Gradient) {
  typedef TypeParam Dtype;
  for (auto op : kAllOps) {
    for (int axis : {0, 1, 3}) {
      ReductionLayer<Dtype> layer(this->Param(op, axis, 1.7f));
      GradientChecker<Dtype> checker(1e-2, 1e-3);
      checker.CheckGradientExhaustive(&layer, this->bottom_vec_,
                                      this->top_vec_);
    }
  }
}

TYPED_TEST(ReductionLayerTest, BackwardReads) {
  typedef TypeParam Dtype;
  for (auto op : kAllOps) {
    ReductionLayer<Dtype> layer(this->Param(op, 2, 0.5f));
    const bool reads = op == ReductionParameter_ReductionOp_ASUM ||
                       op == ReductionParameter_ReductionOp_SUMSQ;
    EXPECT_EQ(reads ? kReadsBottomData : kReadsNothing, layer.Memory().backward_reads);
    EXPECT_FALSE(layer.Memory().in_place);
    layer.SetUp(this->bottom_vec_, this->top_vec_);
    contract_test::CheckBackwardReads<Dtype>(&layer, this->bottom_vec_,
                                             this->top_vec_);
  }
}

TYPED_TEST(ReductionLayerTest, BadAxis) {
  typedef TypeParam Dtype;
  for (int axis : {4, 7, -5}) {
    ReductionLayer<Dtype> layer(
        this->Param(ReductionParameter_ReductionOp_SUM, axis));
    try {
      layer.SetUp(this->bottom_vec_, this->top_vec_);
      ADD_FAILURE() << "axis " << axis << " should be rejected";
    } catch (const Error& e) {
      EXPECT_NE(string(e.what()).find("reduce"), string::npos) << e.what();
    }
  }
  // A scalar has no axis to reduce from.
  Blob<Dtype> scalar((vector<int>()));
  vector<Blob<Dtype>*> v(1, &scalar);
  ReductionLayer<Dtype> layer(
      this->Param(ReductionParameter_ReductionOp_SUM, 0));
  EXPECT_THROW(layer.SetUp(v, this->top_vec_), Error);
}

}  // namespace caffe
