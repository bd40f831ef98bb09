// Solvers: learning-rate policies, each update rule against an independent
// computation, regularization, clipping, iter_size, determinism under a
// fixed seed, and snapshot/restore giving exactly the uninterrupted run.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "caffe/caffe.hpp"
#include "caffe/test/temp_dir.hpp"

namespace caffe {
namespace {

// Linear regression on fixed random data: InnerProduct + EuclideanLoss.
const char* kRegressionNet = R"(
name: "regression"
layer { name: "data" type: "DummyData" top: "x" top: "y"
  dummy_data_param { shape { dim: 8 dim: 4 } shape { dim: 8 dim: 2 }
    data_filler { type: "uniform" min: -1 max: 1 }
    data_filler { type: "uniform" min: -1 max: 1 } } }
layer { name: "ip" type: "InnerProduct" bottom: "x" top: "p"
  param { lr_mult: 1 decay_mult: 1 } param { lr_mult: 2 decay_mult: 0 }
  inner_product_param { num_output: 2 weight_filler { type: "gaussian" std: 0.3 }
    bias_filler { type: "constant" value: 0.1 } } }
layer { name: "loss" type: "EuclideanLoss" bottom: "p" bottom: "y" top: "loss" }
)";

SolverParameter BaseParam(const std::string& type) {
  SolverParameter p;
  ReadProtoFromTextString(kRegressionNet, "regression", p.mutable_net_param());
  // Uniform fills are redrawn each forward; make them constant so that the
  // test can recompute gradients on the same batch.
  for (int i = 0; i < 2; ++i) {
    FillerParameter* f = p.mutable_net_param()->mutable_layer(0)
                             ->mutable_dummy_data_param()
                             ->mutable_data_filler(i);
    f->set_type("constant");
    f->set_value(i == 0 ? 0.5f : -0.25f);
  }
  p.set_type(type);
  p.set_base_lr(0.1f);
  p.set_lr_policy("fixed");
  p.set_max_iter(10);
  p.set_random_seed(1701);
  p.set_display(0);
  p.set_snapshot_after_train(false);
  return p;
}

TEST(SolverTest, LearningRatePolicies) {
  struct Case {
    const char* policy;
    std::function<double(int)> expected;
  };
  const double base = 0.1f, gamma = 0.5f, power = 0.75f;  // float params
  const int stepsize = 3, max_iter = 10;
  std::vector<Case> cases = {
      {"fixed", [&](int) { return base; }},
      {"step", [&](int it) { return base * std::pow(gamma, it / stepsize); }},
      {"exp", [&](int it) { return base * std::pow(gamma, it); }},
      {"inv", [&](int it) { return base * std::pow(1 + gamma * it, -power); }},
      {"poly",
       [&](int it) { return base * std::pow(1 - double(it) / max_iter, power); }},
      {"sigmoid",
       [&](int it) { return base / (1 + std::exp(-gamma * (it - stepsize))); }},
      {"multistep", [&](int it) {
         return base * std::pow(gamma, (it >= 2) + (it >= 5));
       }},
  };
  for (const Case& c : cases) {
    SolverParameter p = BaseParam("SGD");
    p.set_lr_policy(c.policy);
    p.set_gamma(gamma);
    p.set_power(power);
    p.set_stepsize(stepsize);
    p.set_max_iter(max_iter);
    p.add_stepvalue(2);
    p.add_stepvalue(5);
    SGDSolver<double> solver(p);
    for (int it = 0; it < max_iter; ++it) {
      EXPECT_NEAR(solver.GetLearningRate(), c.expected(it), 1e-12)
          << c.policy << " at " << it;
      solver.Step(1);
    }
  }
}

TEST(SolverTest, UnknownPolicyAndTypeAreErrors) {
  SolverParameter p = BaseParam("SGD");
  p.set_lr_policy("bogus");
  SGDSolver<float> solver(p);
  EXPECT_THROW(solver.Step(1), Error);
  EXPECT_THROW(SolverRegistry<float>::CreateSolver(BaseParam("NoSuchSolver")),
               Error);
  SolverParameter no_net;
  no_net.set_base_lr(0.1f);
  EXPECT_THROW(SGDSolver<float> s(no_net), Error);
}

// Gradient of the regression net at its current weights (weight decay
// included as Caffe's Regularize adds it).
struct Grad {
  std::vector<std::vector<double> > data, diff;
};

Grad CurrentGradient(Solver<double>* solver, double weight_decay) {
  Net<double>& net = *solver->net();
  net.ClearParamDiffs();
  net.ForwardBackward();
  Grad g;
  for (size_t i = 0; i < net.learnable_params().size(); ++i) {
    Blob<double>* p = net.learnable_params()[i];
    g.data.emplace_back(p->cpu_data(), p->cpu_data() + p->count());
    g.diff.emplace_back(p->cpu_diff(), p->cpu_diff() + p->count());
    const double decay = weight_decay * net.params_weight_decay()[i];
    for (int k = 0; k < p->count(); ++k) g.diff[i][k] += decay * g.data[i][k];
  }
  return g;
}

// Runs three steps of `type` and checks each update against `rule`, which
// gets (param index, element, lr*lr_mult, gradient, iteration, state) and
// returns the step to subtract.
void CheckRule(const std::string& type, SolverParameter p,
               const std::function<double(double, double, int, double*,
                                          double*)>& rule) {
  SGDSolver<double>* raw = dynamic_cast<SGDSolver<double>*>(
      SolverRegistry<double>::CreateSolver(p));
  ASSERT_TRUE(raw != nullptr);
  std::unique_ptr<SGDSolver<double> > solver(raw);
  EXPECT_EQ(std::string(solver->type()), type);
  const size_t num = solver->net()->learnable_params().size();
  std::vector<std::vector<double> > s1(num), s2(num);
  for (size_t i = 0; i < num; ++i) {
    s1[i].assign(solver->net()->learnable_params()[i]->count(), 0);
    s2[i].assign(solver->net()->learnable_params()[i]->count(), 0);
  }
  for (int it = 0; it < 3; ++it) {
    Grad g = CurrentGradient(solver.get(), p.weight_decay());
    const double rate = solver->GetLearningRate();
    solver->Step(1);
    for (size_t i = 0; i < num; ++i) {
      const Blob<double>* blob = solver->net()->learnable_params()[i];
      const double local_rate = rate * solver->net()->params_lr()[i];
      for (int k = 0; k < blob->count(); ++k) {
        const double step = rule(local_rate, g.diff[i][k], it, &s1[i][k],
                                 &s2[i][k]);
        EXPECT_NEAR(blob->cpu_data()[k], g.data[i][k] - step, 1e-10)
            << type << " iter " << it << " param " << i << " elem " << k;
      }
    }
  }
}

TEST(SolverTest, SGDWithMomentumAndDecay) {
  SolverParameter p = BaseParam("SGD");
  p.set_momentum(0.9f);
  p.set_weight_decay(0.01f);
  CheckRule("SGD", p, [](double lr, double g, int, double* h, double*) {
    *h = lr * g + double(0.9f) * *h;
    return *h;
  });
}

TEST(SolverTest, Nesterov) {
  SolverParameter p = BaseParam("Nesterov");
  p.set_momentum(0.9f);
  CheckRule("Nesterov", p, [](double lr, double g, int, double* h, double*) {
    const double m = 0.9f, old = *h;
    *h = lr * g + m * old;
    return (1 + m) * *h - m * old;
  });
}

TEST(SolverTest, AdaGrad) {
  SolverParameter p = BaseParam("AdaGrad");
  p.set_delta(1e-8f);
  const double delta = p.delta();
  CheckRule("AdaGrad", p, [delta](double lr, double g, int, double* h, double*) {
    *h += g * g;
    return lr * g / (std::sqrt(*h) + delta);
  });
}

TEST(SolverTest, RMSProp) {
  SolverParameter p = BaseParam("RMSProp");
  p.set_rms_decay(0.95f);
  const double delta = p.delta(), decay = p.rms_decay();
  CheckRule("RMSProp", p, [=](double lr, double g, int, double* h, double*) {
    *h = (1 - decay) * g * g + decay * *h;
    return lr * g / (std::sqrt(*h) + delta);
  });
}

TEST(SolverTest, AdaDelta) {
  SolverParameter p = BaseParam("AdaDelta");
  p.set_momentum(0.95f);
  p.set_delta(1e-6f);
  p.set_base_lr(1.0f);
  const double delta = p.delta(), mom = p.momentum();
  CheckRule("AdaDelta", p,
            [=](double lr, double g, int, double* hg, double* hu) {
              *hg = (1 - mom) * g * g + mom * *hg;
              const double u = g * std::sqrt((*hu + delta) / (*hg + delta));
              *hu = (1 - mom) * u * u + mom * *hu;
              return lr * u;
            });
}

TEST(SolverTest, Adam) {
  SolverParameter p = BaseParam("Adam");
  p.set_momentum(0.9f);
  p.set_momentum2(0.999f);
  p.set_base_lr(0.01f);
  const double b1 = p.momentum(), b2 = p.momentum2(), eps = p.delta();
  CheckRule("Adam", p, [=](double lr, double g, int it, double* m, double* v) {
    *m = b1 * *m + (1 - b1) * g;
    *v = b2 * *v + (1 - b2) * g * g;
    const int t = it + 1;
    const double corr = std::sqrt(1 - std::pow(b2, t)) / (1 - std::pow(b1, t));
    return lr * corr * *m / (std::sqrt(*v) + eps);
  });
}

TEST(SolverTest, L1RegularizationUsesSign) {
  SolverParameter p = BaseParam("SGD");
  p.set_weight_decay(0.1f);
  p.set_regularization_type("L1");
  SGDSolver<double> solver(p);
  Net<double>& net = *solver.net();
  net.ClearParamDiffs();
  net.ForwardBackward();
  Blob<double>* w = net.learnable_params()[0];
  std::vector<double> before(w->cpu_data(), w->cpu_data() + w->count());
  std::vector<double> grad(w->cpu_diff(), w->cpu_diff() + w->count());
  solver.Step(1);
  const double lr = p.base_lr(), decay = p.weight_decay();
  for (int k = 0; k < w->count(); ++k) {
    const double sign = (before[k] > 0) - (before[k] < 0);
    EXPECT_NEAR(w->cpu_data()[k], before[k] - lr * (grad[k] + decay * sign),
                1e-10);
  }
}

TEST(SolverTest, ClipGradientsBoundsTheNorm) {
  SolverParameter p = BaseParam("SGD");
  p.set_clip_gradients(1e-3f);
  p.set_base_lr(1.0f);
  SGDSolver<double> solver(p);
  Net<double>& net = *solver.net();
  std::vector<std::vector<double> > before;
  for (Blob<double>* b : net.learnable_params())
    before.emplace_back(b->cpu_data(), b->cpu_data() + b->count());
  solver.Step(1);
  // With lr 1 and lr_mult (1, 2), the step norm is at most 2 * clip.
  double sumsq = 0;
  for (size_t i = 0; i < before.size(); ++i) {
    const Blob<double>* b = net.learnable_params()[i];
    const double mult = net.params_lr()[i];
    for (int k = 0; k < b->count(); ++k) {
      const double g = (before[i][k] - b->cpu_data()[k]) / mult;
      sumsq += g * g;
    }
  }
  EXPECT_NEAR(std::sqrt(sumsq), 1e-3, 1e-9);
}

TEST(SolverTest, IterSizeAveragesGradients) {
  // With a constant batch, iter_size 3 must give the same step as 1.
  SolverParameter p = BaseParam("SGD");
  p.set_momentum(0.9f);
  SGDSolver<double> a(p);
  p.set_iter_size(3);
  SGDSolver<double> b(p);
  a.Step(2);
  b.Step(2);
  for (size_t i = 0; i < a.net()->learnable_params().size(); ++i) {
    const Blob<double>* pa = a.net()->learnable_params()[i];
    const Blob<double>* pb = b.net()->learnable_params()[i];
    for (int k = 0; k < pa->count(); ++k)
      EXPECT_NEAR(pa->cpu_data()[k], pb->cpu_data()[k], 1e-12);
  }
}

std::vector<float> Weights(Solver<float>* s) {
  std::vector<float> w;
  for (Blob<float>* b : s->net()->learnable_params())
    w.insert(w.end(), b->cpu_data(), b->cpu_data() + b->count());
  return w;
}

SolverParameter RandomDataParam(const std::string& type) {
  SolverParameter p;
  ReadProtoFromTextString(kRegressionNet, "regression", p.mutable_net_param());
  p.set_type(type);
  p.set_base_lr(0.05f);
  p.set_lr_policy("step");
  p.set_gamma(0.5f);
  p.set_stepsize(3);
  p.set_momentum(type == "SGD" || type == "Nesterov" || type == "Adam" ? 0.9f
                                                                       : 0.0f);
  p.set_max_iter(8);
  p.set_random_seed(42);
  p.set_display(0);
  p.set_snapshot_after_train(false);
  return p;
}

TEST(SolverTest, FixedSeedIsBitIdentical) {
  SolverParameter p = RandomDataParam("SGD");
  std::unique_ptr<Solver<float> > a(SolverRegistry<float>::CreateSolver(p));
  a->Solve();
  std::unique_ptr<Solver<float> > b(SolverRegistry<float>::CreateSolver(p));
  b->Solve();
  EXPECT_EQ(Weights(a.get()), Weights(b.get()));
  p.set_random_seed(43);
  std::unique_ptr<Solver<float> > c(SolverRegistry<float>::CreateSolver(p));
  c->Solve();
  EXPECT_NE(Weights(a.get()), Weights(c.get()));
}

class SnapshotTest : public ::testing::TestWithParam<
                         std::tuple<std::string, SolverParameter_SnapshotFormat> > {};

TEST_P(SnapshotTest, RestoreContinuesExactly) {
  const std::string type = std::get<0>(GetParam());
  TempDir dir;
  SolverParameter p = RandomDataParam(type);
  // Constant data so that the data layer's random stream does not matter.
  for (int i = 0; i < 2; ++i)
    p.mutable_net_param()->mutable_layer(0)->mutable_dummy_data_param()
        ->mutable_data_filler(i)->set_type("constant");
  p.mutable_net_param()->mutable_layer(0)->mutable_dummy_data_param()
      ->mutable_data_filler(0)->set_value(0.3f);
  p.set_snapshot(4);
  p.set_snapshot_prefix(dir.file("snap"));
  p.set_snapshot_format(std::get<1>(GetParam()));
  std::unique_ptr<Solver<float> > full(SolverRegistry<float>::CreateSolver(p));
  full->Solve();
  const bool h5 = std::get<1>(GetParam()) == SolverParameter_SnapshotFormat_HDF5;
  const std::string state =
      dir.file(std::string("snap_iter_4.solverstate") + (h5 ? ".h5" : ""));
  ASSERT_TRUE(FileExists(state));
  std::unique_ptr<Solver<float> > resumed(
      SolverRegistry<float>::CreateSolver(p));
  resumed->Solve(state);
  EXPECT_EQ(resumed->iter(), 8);
  EXPECT_EQ(Weights(full.get()), Weights(resumed.get())) << type;
}

INSTANTIATE_TEST_SUITE_P(
    AllSolvers, SnapshotTest,
    ::testing::Combine(::testing::Values("SGD", "Nesterov", "AdaGrad",
                                         "RMSProp", "AdaDelta", "Adam"),
                       ::testing::Values(SolverParameter_SnapshotFormat_BINARYPROTO,
                                         SolverParameter_SnapshotFormat_HDF5)));

TEST(SolverTest, MissingSolverStateIsAnError) {
  SolverParameter p = BaseParam("SGD");
  SGDSolver<float> solver(p);
  EXPECT_THROW(solver.Solve("/nonexistent/x.solverstate"), Error);
}

TEST(SolverTest, LegacySolverTypeIsUpgraded) {
  SolverParameter p;
  p.set_solver_type(SolverParameter_SolverType_ADAM);
  UpgradeSolverAsNeeded("legacy", &p);
  EXPECT_EQ(p.type(), "Adam");
  EXPECT_FALSE(p.has_solver_type());
}

// Records, at each callback, the iteration, the sum of |diff| and the
// first weight.
class StepRecorder : public Solver<float>::Callback {
 public:
  explicit StepRecorder(Solver<float>* solver) : solver_(solver) {}
  void on_start() override { starts.push_back(Snapshot()); }
  void on_gradients_ready() override { readies.push_back(Snapshot()); }
  struct Point {
    int iter;
    float diff_asum;
    float weight;
  };
  std::vector<Point> starts, readies;

 private:
  Point Snapshot() const {
    const Blob<float>* w = solver_->net()->learnable_params()[0];
    return Point{solver_->iter(), w->asum_diff(), w->cpu_data()[0]};
  }
  Solver<float>* solver_;
};

TEST(SolverTest, CallbacksRunAtStartAndWhenGradientsAreReady) {
  SolverParameter p = BaseParam("SGD");
  p.set_iter_size(2);
  SGDSolver<float> solver(p);
  StepRecorder recorder(&solver);
  solver.add_callback(&recorder);
  solver.Step(3);
  ASSERT_EQ(recorder.starts.size(), 3u);
  ASSERT_EQ(recorder.readies.size(), 3u);
  for (int i = 0; i < 3; ++i) {
    const StepRecorder::Point& s = recorder.starts[i];
    const StepRecorder::Point& r = recorder.readies[i];
    EXPECT_EQ(s.iter, i);
    EXPECT_EQ(r.iter, i);
    // on_start: diffs cleared; on_gradients_ready: every pass of iter_size
    // accumulated, the weights not yet updated.
    EXPECT_EQ(s.diff_asum, 0.0f);
    EXPECT_GT(r.diff_asum, 0.0f);
    EXPECT_EQ(r.weight, s.weight);
    if (i > 0) EXPECT_NE(s.weight, recorder.starts[i - 1].weight);
  }
}

TEST(SolverTest, ApplyUpdateInAManualLoopMatchesStep) {
  SolverParameter p = BaseParam("SGD");
  p.set_momentum(0.9f);
  p.set_weight_decay(0.01f);
  SGDSolver<float> stepped(p), manual(p);
  stepped.Step(4);
  for (int i = 0; i < 4; ++i) {
    manual.net()->ClearParamDiffs();
    manual.net()->ForwardBackward();
    manual.ApplyUpdate();
  }
  EXPECT_EQ(manual.iter(), 0);  // ApplyUpdate does not advance iter
  for (size_t i = 0; i < stepped.net()->learnable_params().size(); ++i) {
    const Blob<float>* a = stepped.net()->learnable_params()[i];
    const Blob<float>* b = manual.net()->learnable_params()[i];
    for (int k = 0; k < a->count(); ++k)
      EXPECT_EQ(a->cpu_data()[k], b->cpu_data()[k]) << "param " << i;
  }
}

}  // namespace
}  // namespace caffe
