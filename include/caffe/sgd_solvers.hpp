// sgd_solvers.hpp: stochastic gradient descent and its adaptive variants.
//
// Contract: each solver turns the accumulated parameter gradients into an
// update with Caffe 1.0's exact arithmetic (so a run matches BVLC Caffe's
// numbers), keeping per-parameter history blobs that .solverstate files
// store in the same order Caffe does (AdaDelta and Adam keep two per
// parameter: all first moments, then all second moments).
#ifndef CAFFE_SGD_SOLVERS_HPP_
#define CAFFE_SGD_SOLVERS_HPP_

#include <string>
#include <vector>

#include "caffe/solver.hpp"

namespace caffe {

template <typename Dtype>
class SGDSolver : public Solver<Dtype> {
 public:
  explicit SGDSolver(const SolverParameter& param) : Solver<Dtype>(param) {
    PreSolve();
  }
  explicit SGDSolver(const string& param_file) : Solver<Dtype>(param_file) {
    PreSolve();
  }
  const char* type() const override { return "SGD"; }
  const vector<shared_ptr<Blob<Dtype> > >& history() { return history_; }
  // The learning rate the policy gives at the current iteration.
  Dtype GetLearningRate();
  void ApplyUpdate() override;

 protected:
  void PreSolve();
  size_t StateBytes(size_t* held) const override;
  vector<Blob<Dtype>*> StateBlobs() override {
    vector<Blob<Dtype>*> blobs;
    for (const auto& h : history_) blobs.push_back(h.get());
    return blobs;
  }
  virtual void Normalize(int param_id);
  virtual void Regularize(int param_id);
  virtual void ComputeUpdateValue(int param_id, Dtype rate);
  virtual void ClipGradients();
  void SnapshotSolverState(const string& model_filename) override;
  void SnapshotSolverStateToBinaryProto(const string& model_filename);
  void SnapshotSolverStateToHDF5(const string& model_filename);
  void RestoreSolverStateFromHDF5(const string& state_file) override;
  void RestoreSolverStateFromBinaryProto(const string& state_file) override;
  // Loads the weights a solver state names; relative paths are tried from
  // the working directory, then from the state file's directory.
  void LoadLearnedNet(const string& learned_net, const string& state_file);

  // history_: momentum (and moments); update_, temp_: scratch of the same
  // shapes, so an update allocates nothing.
  vector<shared_ptr<Blob<Dtype> > > history_, update_, temp_;

  DISABLE_COPY_AND_ASSIGN(SGDSolver);
};

template <typename Dtype>
class NesterovSolver : public SGDSolver<Dtype> {
 public:
  explicit NesterovSolver(const SolverParameter& param)
      : SGDSolver<Dtype>(param) {}
  const char* type() const override { return "Nesterov"; }

 protected:
  void ComputeUpdateValue(int param_id, Dtype rate) override;
};

template <typename Dtype>
class AdaGradSolver : public SGDSolver<Dtype> {
 public:
  explicit AdaGradSolver(const SolverParameter& param)
      : SGDSolver<Dtype>(param) {
    CAFFE_CHECK_EQ(this->param_.momentum(), 0)
        << "Momentum cannot be used with AdaGrad.";
  }
  const char* type() const override { return "AdaGrad"; }

 protected:
  void ComputeUpdateValue(int param_id, Dtype rate) override;
};

template <typename Dtype>
class RMSPropSolver : public SGDSolver<Dtype> {
 public:
  explicit RMSPropSolver(const SolverParameter& param)
      : SGDSolver<Dtype>(param) {
    CAFFE_CHECK_EQ(this->param_.momentum(), 0)
        << "Momentum cannot be used with RMSProp.";
    CAFFE_CHECK_GE(this->param_.rms_decay(), 0)
        << "rms_decay should lie between 0 and 1.";
    CAFFE_CHECK_LT(this->param_.rms_decay(), 1)
        << "rms_decay should lie between 0 and 1.";
  }
  const char* type() const override { return "RMSProp"; }

 protected:
  void ComputeUpdateValue(int param_id, Dtype rate) override;
};

template <typename Dtype>
class AdaDeltaSolver : public SGDSolver<Dtype> {
 public:
  explicit AdaDeltaSolver(const SolverParameter& param)
      : SGDSolver<Dtype>(param) {
    AddSecondMoments();
  }
  const char* type() const override { return "AdaDelta"; }

 protected:
  void AddSecondMoments();
  void ComputeUpdateValue(int param_id, Dtype rate) override;
};

template <typename Dtype>
class AdamSolver : public SGDSolver<Dtype> {
 public:
  explicit AdamSolver(const SolverParameter& param)
      : SGDSolver<Dtype>(param) {
    AddSecondMoments();
  }
  const char* type() const override { return "Adam"; }

 protected:
  void AddSecondMoments();
  void ComputeUpdateValue(int param_id, Dtype rate) override;
};

}  // namespace caffe

#endif  // CAFFE_SGD_SOLVERS_HPP_
