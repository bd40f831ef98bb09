// A NaN or infinite training loss is traced to its source: the solver runs
// the iteration again with every layer's outputs and gradients checked and
// names the first non-finite one (util/non_finite_scan.hpp); it stops by
// default and only warns with non_finite_loss: WARN.  Checked with and
// without mem_param (shared memory is read inside the pass).
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "caffe/sgd_solvers.hpp"
#include "caffe/solver_factory.hpp"
#include "caffe/util/io.hpp"

namespace caffe {
namespace {

// x is all zeros, so fc (zero bias) gives zeros and 'inv' (x^-1) divides
// by zero: +inf from layer 'inv' on, and the loss is infinite.
const char* kNet = R"(
name: "divides_by_zero"
layer { name: "x" type: "DummyData" top: "x"
        dummy_data_param { shape { dim: 2 dim: 3 }
                           data_filler { type: "constant" value: 0 } } }
layer { name: "fc" type: "InnerProduct" bottom: "x" top: "fc"
        inner_product_param { num_output: 4
          weight_filler { type: "gaussian" std: 0.1 } } }
layer { name: "inv" type: "Power" bottom: "fc" top: "inv"
        power_param { power: -1 } }
layer { name: "out" type: "InnerProduct" bottom: "inv" top: "out"
        inner_product_param { num_output: 2
          weight_filler { type: "gaussian" std: 0.1 } } }
layer { name: "loss" type: "Reduction" bottom: "out" top: "loss"
        reduction_param { operation: SUMSQ } loss_weight: 1 }
)";

SolverParameter Solver(bool optimized, bool warn) {
  SolverParameter s;
  ReadProtoFromTextString(kNet, "divides_by_zero", s.mutable_net_param());
  if (optimized) s.mutable_net_param()->mutable_mem_param();
  s.set_base_lr(0.01f);
  s.set_lr_policy("fixed");
  s.set_max_iter(3);
  s.set_snapshot_after_train(false);
  if (warn) s.set_non_finite_loss(SolverParameter_NonFiniteLoss_WARN);
  return s;
}

TEST(NonFiniteLossTest, StopsAndNamesTheFirstLayer) {
  for (bool optimized : {false, true}) {
    shared_ptr<caffe::Solver<float> > solver(
        SolverRegistry<float>::CreateSolver(Solver(optimized, false)));
    ASSERT_EQ(solver->net()->memory() != nullptr, optimized);
    try {
      solver->Step(1);
      FAIL() << "an infinite loss did not stop training";
    } catch (const Error& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find("Iteration 0"), std::string::npos) << what;
      EXPECT_NE(what.find("forward output 'inv' of layer 'inv' (type Power)"),
                std::string::npos)
          << what;
      EXPECT_NE(what.find("non_finite_loss: WARN"), std::string::npos)
          << what;
    }
    EXPECT_EQ(solver->iter(), 0);  // no update was applied
  }
}

TEST(NonFiniteLossTest, WarnGoesOnTraining) {
  shared_ptr<caffe::Solver<float> > solver(
      SolverRegistry<float>::CreateSolver(Solver(true, true)));
  ASSERT_NO_THROW(solver->Step(2));
  EXPECT_EQ(solver->iter(), 2);
  EXPECT_FALSE(std::isfinite(solver->smoothed_loss()));
}

TEST(NonFiniteLossTest, FiniteLossesTrainAsBefore) {
  SolverParameter s = Solver(false, false);
  // value 1: no division by zero anywhere.
  s.mutable_net_param()
      ->mutable_layer(0)
      ->mutable_dummy_data_param()
      ->mutable_data_filler(0)
      ->set_value(1);
  shared_ptr<caffe::Solver<float> > solver(
      SolverRegistry<float>::CreateSolver(s));
  ASSERT_NO_THROW(solver->Step(2));
  EXPECT_TRUE(std::isfinite(solver->smoothed_loss()));
}

}  // namespace
}  // namespace caffe
