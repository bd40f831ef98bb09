// mem_trajectory_util.hpp: train a net for a few iterations and compare two
// runs bit for bit, for the tests that prove mem_param (and recomputation)
// change no result.
//
// Contract: TrainTrajectory builds an SGD solver (fixed seed, momentum,
// weight decay) on `net` with `mp` copied into its mem_param (none when
// null), calls `prepare` on the train net before the first step (a
// MemoryData layer is fed there), and records each iteration's smoothed
// loss and the learnable weights at the end.  ExpectBitIdentical compares
// with memcmp, not a tolerance: any difference is a bug.  LayerIndex finds
// a layer by name (a test failure, and layer 0, when there is none).
#ifndef CAFFE_TEST_MEM_TRAJECTORY_UTIL_HPP_
#define CAFFE_TEST_MEM_TRAJECTORY_UTIL_HPP_

#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "caffe/caffe.hpp"

namespace caffe {

struct Trajectory {
  std::vector<float> losses;
  std::vector<float> weights;
  size_t planned_bytes = 0;
  size_t unshared_bytes = 0;
};

// The solver every trajectory trains with: SGD, fixed seed, momentum and
// weight decay, `mp` as the net's mem_param (none when null).
inline SolverParameter TrajectorySolver(NetParameter net,
                                        const MemoryOptimizationParameter* mp,
                                        int iters) {
  if (mp) {
    net.mutable_mem_param()->CopyFrom(*mp);
  } else {
    net.clear_mem_param();
  }
  SolverParameter sp;
  sp.mutable_net_param()->CopyFrom(net);
  sp.set_base_lr(0.001f);
  sp.set_momentum(0.9f);
  sp.set_weight_decay(0.0005f);
  sp.set_lr_policy("fixed");
  sp.set_max_iter(iters);
  sp.set_display(0);
  sp.set_random_seed(1701);
  sp.set_snapshot_after_train(false);
  return sp;
}

inline Trajectory TrainTrajectory(
    const NetParameter& net, const MemoryOptimizationParameter* mp, int iters,
    const std::function<void(Net<float>*)>& prepare = nullptr) {
  std::unique_ptr<Solver<float> > solver(
      SolverRegistry<float>::CreateSolver(TrajectorySolver(net, mp, iters)));
  if (prepare) prepare(solver->net().get());
  Trajectory t;
  for (int i = 0; i < iters; ++i) {
    solver->Step(1);
    t.losses.push_back(solver->smoothed_loss());
  }
  for (Blob<float>* b : solver->net()->learnable_params())
    t.weights.insert(t.weights.end(), b->cpu_data(),
                     b->cpu_data() + b->count());
  if (const NetMemory* m = solver->net()->memory()) {
    t.planned_bytes = m->plan().total_bytes();
    t.unshared_bytes = m->plan().unshared_bytes;
  }
  return t;
}

inline void ExpectBitIdentical(const Trajectory& a, const Trajectory& b,
                               const std::string& what) {
  ASSERT_EQ(a.losses.size(), b.losses.size());
  for (size_t i = 0; i < a.losses.size(); ++i)
    EXPECT_EQ(0, std::memcmp(&a.losses[i], &b.losses[i], sizeof(float)))
        << what << ": loss at iteration " << i << ": " << a.losses[i]
        << " vs " << b.losses[i];
  ASSERT_EQ(a.weights.size(), b.weights.size());
  EXPECT_EQ(0, std::memcmp(a.weights.data(), b.weights.data(),
                           a.weights.size() * sizeof(float)))
      << what << ": weights differ";
}

inline int LayerIndex(const Net<float>& net, const std::string& name) {
  for (size_t i = 0; i < net.layer_names().size(); ++i)
    if (net.layer_names()[i] == name) return static_cast<int>(i);
  ADD_FAILURE() << "no layer " << name;
  return 0;
}

}  // namespace caffe

#endif  // CAFFE_TEST_MEM_TRAJECTORY_UTIL_HPP_
