// solver.hpp: the training loop shared by every solver type.
//
// Contract (Caffe 1.0 semantics): Solve() trains from the current iteration
// to max_iter, testing every test_interval iterations, displaying every
// `display` iterations (loss smoothed over average_loss), snapshotting every
// `snapshot` iterations and at the end.  Step(n) runs n iterations, each
// accumulating gradients over iter_size forward/backward passes before one
// ApplyUpdate().  random_seed >= 0 makes a run bit-identical on CPU.
// Snapshots are written atomically; Restore() resumes from a .solverstate
// (binary) or .solverstate.h5 (HDF5).  Subclasses implement ApplyUpdate and
// the state (history) they snapshot.  A non-finite training loss is traced
// to the first layer that produced a non-finite value and, by default,
// stops training (SolverParameter.non_finite_loss).
// In a process mpirun launched with N > 1 ranks the solver trains
// data-parallel (parallel/data_parallel.hpp): it starts MPI, checks that
// every rank trains the same model, takes rank 0's weights and state,
// reduces gradients every iteration, runs each rank's share of test_iter,
// and only rank 0 writes snapshots.
#ifndef CAFFE_SOLVER_HPP_
#define CAFFE_SOLVER_HPP_

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "caffe/net.hpp"
#include "caffe/solver_factory.hpp"

namespace caffe {

class Communicator;
template <typename Dtype>
class DataParallel;

// What to do when the training loop is asked to stop or snapshot (signals).
namespace SolverAction {
enum Enum { NONE = 0, STOP = 1, SNAPSHOT = 2 };
}

typedef std::function<SolverAction::Enum()> ActionCallback;

// How many blobs of each learnable parameter's size a solver type keeps
// (history, moments, update scratch): SGD 1, Nesterov, AdaGrad, RMSProp 2,
// Adam 3, AdaDelta 4; 1 for other registered types.
int SolverStateCopies(const string& type);

template <typename Dtype>
class Solver {
 public:
  explicit Solver(const SolverParameter& param);
  explicit Solver(const string& param_file);
  virtual ~Solver();
  void Init(const SolverParameter& param);
  void InitTrainNet();
  void InitTestNets();

  // Called every iteration; returns what the user asked for (Ctrl-C ...).
  void SetActionFunction(ActionCallback func) { action_request_function_ = func; }
  SolverAction::Enum GetRequestedAction();

  virtual void Solve(const char* resume_file = nullptr);
  void Solve(const string& resume_file) { Solve(resume_file.c_str()); }
  void Step(int iters);
  // Loads a solver state and the weights it names.
  void Restore(const char* resume_file);
  void Snapshot();

  const SolverParameter& param() const { return param_; }
  // For settings read afresh each iteration (base_lr: pycaffe's
  // solver.param.base_lr = ...); changing the nets here has no effect.
  SolverParameter& mutable_param() { return param_; }
  shared_ptr<Net<Dtype> > net() { return net_; }
  const vector<shared_ptr<Net<Dtype> > >& test_nets() { return test_nets_; }
  int iter() const { return iter_; }
  // The smoothed loss as displayed.
  Dtype smoothed_loss() const { return smoothed_loss_; }
  virtual const char* type() const { return ""; }

  // Runs every test net; returns per-net scores (output values averaged
  // over test_iter, in output order).
  vector<vector<Dtype> > TestAll();
  // The data-parallel partner, null unless N > 1 ranks train together.
  DataParallel<Dtype>* data_parallel() { return data_parallel_.get(); }
  // Makes this solver one rank of a data-parallel job through `comm`, as
  // pycaffe's caffe.NCCL(solver, uid) does (the job's size and this rank
  // are comm's); the solver keeps comm.  Rank 0's weights and state reach
  // every rank at the next Solve or Step, or at SyncDataParallelState().
  void JoinDataParallel(shared_ptr<Communicator> comm);
  // Copies rank 0's weights, solver state and counters to every rank.
  void SyncDataParallelState();

  // Caffe master's Solver::Callback.  Every iteration of Step, on_start
  // runs after the test (if any) and before the forward/backward passes;
  // on_gradients_ready runs once the gradients are complete (in a
  // data-parallel job: summed across ranks, which is itself the first
  // callback) and before ApplyUpdate.  Callbacks run in the order added;
  // add_callback(Callback*) does not take ownership, the shared_ptr
  // overload does.
  class Callback {
   public:
    virtual ~Callback() {}
    virtual void on_start() = 0;
    virtual void on_gradients_ready() = 0;
  };
  const vector<Callback*>& callbacks() const { return callbacks_; }
  void add_callback(Callback* value) { callbacks_.push_back(value); }
  void add_callback(shared_ptr<Callback> value) {
    owned_callbacks_.push_back(value);
    callbacks_.push_back(value.get());
  }

  // The update from the gradients in the net's parameter diffs (learning
  // rate for iter(), clipping, normalization by iter_size, regularization,
  // momentum and history), as Step applies it after each iteration's
  // passes.  It does not clear the diffs or advance iter(); public, as in
  // Caffe master, for training loops driven from outside (pycaffe's
  // apply_update).
  virtual void ApplyUpdate() = 0;

 protected:
  string SnapshotFilename(const string& extension);
  string SnapshotToBinaryProto();
  string SnapshotToHDF5();
  vector<Dtype> Test(const int test_net_id = 0);
  virtual void SnapshotSolverState(const string& model_filename) = 0;
  virtual void RestoreSolverStateFromHDF5(const string& state_file) = 0;
  virtual void RestoreSolverStateFromBinaryProto(const string& state_file) = 0;
  void DisplayOutputBlobs(const int net_id);
  void UpdateSmoothedLoss(Dtype loss, int start_iter, int average_loss);
  // A NaN or infinite loss: names its first non-finite layer output or
  // gradient (util/non_finite_scan.hpp), then stops with caffe::Error or,
  // with non_finite_loss: WARN, logs it.
  void ReportNonFiniteLoss(Dtype loss);
  void CheckSnapshotWritePermissions();
  // Bytes of the solver's own state (history, moments, the update scratch
  // its type uses) and, in *held, the part already allocated.
  virtual size_t StateBytes(size_t* held) const {
    *held = 0;
    return 0;
  }
  // Refuses a run whose training net, test nets and solver state together
  // cannot fit in host memory (util/memory_fit.hpp); once, before the
  // first iteration.
  void CheckRunFits();
  // The blobs a snapshot of this solver's state holds (history, moments).
  virtual vector<Blob<Dtype>*> StateBlobs() { return {}; }
  // Data-parallel: seeds, the start-up check (Init) and rank 0's state on
  // every rank (before the first iteration and after each Restore).
  void InitDataParallel(Communicator* comm);

  SolverParameter param_;
  int iter_;
  int current_step_;
  shared_ptr<Net<Dtype> > net_;
  vector<shared_ptr<Net<Dtype> > > test_nets_;
  vector<Dtype> losses_;
  Dtype smoothed_loss_;
  ActionCallback action_request_function_;
  bool requested_early_exit_;
  bool run_fits_checked_ = false;
  vector<Callback*> callbacks_;
  vector<shared_ptr<Callback> > owned_callbacks_;
  shared_ptr<Communicator> joined_communicator_;  // outlives data_parallel_
  std::unique_ptr<DataParallel<Dtype> > data_parallel_;
  bool state_synced_ = false;

  DISABLE_COPY_AND_ASSIGN(Solver);
};

}  // namespace caffe

#endif  // CAFFE_SOLVER_HPP_
