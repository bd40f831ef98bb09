#include <hdf5.h>

#include <cmath>
#include <string>

#include "caffe/sgd_solvers.hpp"
#include "caffe/util/blob_math.hpp"
#include "caffe/util/hdf5.hpp"
#include "caffe/util/io.hpp"
#include "caffe/util/upgrade_proto.hpp"

namespace caffe {

template <typename Dtype>
Dtype SGDSolver<Dtype>::GetLearningRate() {
  const string& lr_policy = this->param_.lr_policy();
  const Dtype base_lr = this->param_.base_lr();
  const Dtype gamma = this->param_.gamma();
  const int iter = this->iter_;
  if (lr_policy == "fixed") return base_lr;
  if (lr_policy == "step") {
    CAFFE_CHECK_GT(this->param_.stepsize(), 0) << "step policy needs stepsize";
    this->current_step_ = iter / this->param_.stepsize();
    return base_lr * std::pow(gamma, Dtype(this->current_step_));
  }
  if (lr_policy == "exp") return base_lr * std::pow(gamma, Dtype(iter));
  if (lr_policy == "inv")
    return base_lr *
           std::pow(Dtype(1) + gamma * iter, -Dtype(this->param_.power()));
  if (lr_policy == "multistep") {
    if (this->current_step_ < this->param_.stepvalue_size() &&
        iter >= this->param_.stepvalue(this->current_step_)) {
      this->current_step_++;
      LOG(INFO) << "MultiStep Status: Iteration " << iter
                << ", step = " << this->current_step_;
    }
    return base_lr * std::pow(gamma, Dtype(this->current_step_));
  }
  if (lr_policy == "poly")
    return base_lr * std::pow(Dtype(1) - Dtype(iter) / this->param_.max_iter(),
                              Dtype(this->param_.power()));
  if (lr_policy == "sigmoid")
    return base_lr *
           (Dtype(1) /
            (Dtype(1) + std::exp(-gamma * (Dtype(iter) -
                                           Dtype(this->param_.stepsize())))));
  CAFFE_THROW() << "Unknown learning rate policy: \"" << lr_policy
                << "\" (known: fixed, step, exp, inv, multistep, poly, "
                   "sigmoid)";
  return 0;
}

template <typename Dtype>
void SGDSolver<Dtype>::PreSolve() {
  const vector<Blob<Dtype>*>& net_params = this->net_->learnable_params();
  history_.clear();
  update_.clear();
  temp_.clear();
  for (Blob<Dtype>* p : net_params) {
    const vector<int>& shape = p->shape();
    history_.push_back(shared_ptr<Blob<Dtype> >(new Blob<Dtype>(shape)));
    update_.push_back(shared_ptr<Blob<Dtype> >(new Blob<Dtype>(shape)));
    temp_.push_back(shared_ptr<Blob<Dtype> >(new Blob<Dtype>(shape)));
  }
}

int SolverStateCopies(const string& type) {
  // history; Nesterov, AdaGrad and RMSProp also write update_; AdaDelta
  // keeps two histories and writes update_ and temp_; Adam two histories
  // and temp_.
  if (type == "Nesterov" || type == "AdaGrad" || type == "RMSProp") return 2;
  if (type == "AdaDelta") return 4;
  if (type == "Adam") return 3;
  return 1;
}

template <typename Dtype>
size_t SGDSolver<Dtype>::StateBytes(size_t* held) const {
  size_t param_bytes = 0;
  for (const Blob<Dtype>* p : this->net_->learnable_params())
    param_bytes += p->count() * sizeof(Dtype);
  // Scratch a type never writes is never allocated, so what is allocated
  // of all three lists is what it holds.
  *held = 0;
  for (const auto* list : {&history_, &update_, &temp_})
    for (const auto& b : *list) {
      const SyncedMemory* m = b->data().get();
      if (m && m->cpu_ptr() && m->owns_cpu_data()) *held += m->size();
    }
  return SolverStateCopies(this->type()) * param_bytes;
}

template <typename Dtype>
void SGDSolver<Dtype>::ClipGradients() {
  const Dtype clip_gradients = this->param_.clip_gradients();
  if (clip_gradients < 0) return;
  const vector<Blob<Dtype>*>& net_params = this->net_->learnable_params();
  Dtype sumsq_diff = 0;
  for (Blob<Dtype>* p : net_params) sumsq_diff += p->sumsq_diff();
  const Dtype l2norm_diff = std::sqrt(sumsq_diff);
  if (l2norm_diff > clip_gradients) {
    const Dtype scale_factor = clip_gradients / l2norm_diff;
    LOG(INFO) << "Gradient clipping: scaling down gradients (L2 norm "
              << l2norm_diff << " > " << clip_gradients << ") "
              << "by scale factor " << scale_factor;
    for (Blob<Dtype>* p : net_params) p->scale_diff(scale_factor);
  }
}

template <typename Dtype>
void SGDSolver<Dtype>::ApplyUpdate() {
  const Dtype rate = GetLearningRate();
  if (this->param_.display() && this->iter_ % this->param_.display() == 0) {
    LOG(INFO) << "Iteration " << this->iter_ << ", lr = " << rate;
  }
  ClipGradients();
  for (size_t param_id = 0; param_id < this->net_->learnable_params().size();
       ++param_id) {
    Normalize(param_id);
    Regularize(param_id);
    ComputeUpdateValue(param_id, rate);
  }
  this->net_->Update();
}

template <typename Dtype>
void SGDSolver<Dtype>::Normalize(int param_id) {
  if (this->param_.iter_size() == 1) return;
  Blob<Dtype>* p = this->net_->learnable_params()[param_id];
  const Dtype accum_normalization = Dtype(1) / this->param_.iter_size();
  blob_math::Scal(accum_normalization, blob_math::Diff(p));
}

template <typename Dtype>
void SGDSolver<Dtype>::Regularize(int param_id) {
  Blob<Dtype>* p = this->net_->learnable_params()[param_id];
  const Dtype weight_decay = this->param_.weight_decay();
  const string& regularization_type = this->param_.regularization_type();
  const Dtype local_decay =
      weight_decay * this->net_->params_weight_decay()[param_id];
  if (!local_decay) return;
  if (regularization_type == "L2") {
    blob_math::Axpy(local_decay, blob_math::Data(p), blob_math::Diff(p));
  } else if (regularization_type == "L1") {
    Blob<Dtype>* sign = temp_[param_id].get();
    blob_math::Sign(blob_math::Data(p), blob_math::Data(sign));
    blob_math::Axpy(local_decay, blob_math::Data(sign), blob_math::Diff(p));
  } else {
    CAFFE_THROW() << "Unknown regularization type: \"" << regularization_type
                  << "\" (known: L1, L2)";
  }
}

template <typename Dtype>
void SGDSolver<Dtype>::ComputeUpdateValue(int param_id, Dtype rate) {
  Blob<Dtype>* p = this->net_->learnable_params()[param_id];
  const Dtype momentum = this->param_.momentum();
  const Dtype local_rate = rate * this->net_->params_lr()[param_id];
  Blob<Dtype>* history = history_[param_id].get();
  blob_math::Axpby(local_rate, blob_math::Diff(p), momentum,
                   blob_math::Data(history));
  blob_math::Copy(blob_math::Data(history), blob_math::Diff(p));
}

template <typename Dtype>
void SGDSolver<Dtype>::SnapshotSolverState(const string& model_filename) {
  switch (this->param_.snapshot_format()) {
    case SolverParameter_SnapshotFormat_BINARYPROTO:
      SnapshotSolverStateToBinaryProto(model_filename);
      break;
    case SolverParameter_SnapshotFormat_HDF5:
      SnapshotSolverStateToHDF5(model_filename);
      break;
  }
}

template <typename Dtype>
void SGDSolver<Dtype>::SnapshotSolverStateToBinaryProto(
    const string& model_filename) {
  SolverState state;
  state.set_iter(this->iter_);
  state.set_learned_net(model_filename);
  state.set_current_step(this->current_step_);
  for (const auto& h : history_) h->ToProto(state.add_history());
  const string snapshot_filename = this->SnapshotFilename(".solverstate");
  LOG(INFO) << "Snapshotting solver state to binary proto file "
            << snapshot_filename;
  WriteProtoToBinaryFile(state, snapshot_filename);
}

template <typename Dtype>
void SGDSolver<Dtype>::SnapshotSolverStateToHDF5(const string& model_filename) {
  const string snapshot_filename = this->SnapshotFilename(".solverstate.h5");
  LOG(INFO) << "Snapshotting solver state to HDF5 file " << snapshot_filename;
  Hdf5AtomicFile file(snapshot_filename);
  const hid_t file_hid = file.id();
  hdf5_save_int(file_hid, "iter", this->iter_);
  hdf5_save_string(file_hid, "learned_net", model_filename);
  hdf5_save_int(file_hid, "current_step", this->current_step_);
  hid_t history_hid = H5Gcreate2(file_hid, "history", H5P_DEFAULT,
                                 H5P_DEFAULT, H5P_DEFAULT);
  CAFFE_CHECK_GE(history_hid, 0) << snapshot_filename
                                 << ": cannot create group 'history'";
  for (size_t i = 0; i < history_.size(); ++i)
    hdf5_save_nd_dataset<Dtype>(history_hid, std::to_string(i), *history_[i]);
  H5Gclose(history_hid);
  file.Commit();
}

template <typename Dtype>
void SGDSolver<Dtype>::LoadLearnedNet(const string& learned_net,
                                      const string& state_file) {
  string path = learned_net;
  if (!FileExists(path) && !path.empty() && path[0] != '/') {
    const size_t slash = state_file.rfind('/');
    if (slash != string::npos) {
      const string alt = state_file.substr(0, slash + 1) + path;
      if (FileExists(alt)) path = alt;
    }
  }
  this->net_->CopyTrainedLayersFrom(path);
}

template <typename Dtype>
void SGDSolver<Dtype>::RestoreSolverStateFromBinaryProto(
    const string& state_file) {
  SolverState state;
  ReadProtoFromBinaryFileOrDie(state_file, &state);
  this->iter_ = state.iter();
  if (state.has_learned_net()) LoadLearnedNet(state.learned_net(), state_file);
  this->current_step_ = state.current_step();
  CAFFE_CHECK_EQ(state.history_size(), static_cast<int>(history_.size()))
      << state_file << ": incorrect length of history blobs (the state was "
      << "written for a different net or solver type)";
  LOG(INFO) << "SGDSolver: restoring history";
  for (size_t i = 0; i < history_.size(); ++i)
    history_[i]->FromProto(state.history(i));
}

template <typename Dtype>
void SGDSolver<Dtype>::RestoreSolverStateFromHDF5(const string& state_file) {
  hdf5_check_file(state_file,
                  {"iter", "learned_net", "current_step", "history"});
  // Closing the file closes the group a failed restore leaves open.
  Hdf5ReadFile file(state_file);
  CAFFE_CHECK(file.ok()) << state_file
                         << ": cannot open as an HDF5 solver state";
  const hid_t file_hid = file.id();
  try {
    this->iter_ = hdf5_load_int(file_hid, "iter");
    if (H5Lexists(file_hid, "learned_net", H5P_DEFAULT) > 0) {
      LoadLearnedNet(hdf5_load_string(file_hid, "learned_net"), state_file);
    }
    this->current_step_ = hdf5_load_int(file_hid, "current_step");
    hid_t history_hid = H5Gopen2(file_hid, "history", H5P_DEFAULT);
    CAFFE_CHECK_GE(history_hid, 0) << "no group 'history'";
    const int state_history_size = hdf5_get_num_links(history_hid);
    CAFFE_CHECK_EQ(state_history_size, static_cast<int>(history_.size()))
        << "incorrect length of history blobs";
    for (size_t i = 0; i < history_.size(); ++i)
      hdf5_load_nd_dataset<Dtype>(history_hid, std::to_string(i).c_str(), 0,
                                  kMaxBlobAxes, history_[i].get());
    H5Gclose(history_hid);
  } catch (const std::exception& e) {
    throw Error(state_file + ": " + e.what());
  }
}

INSTANTIATE_CLASS(SGDSolver);
REGISTER_SOLVER_CLASS(SGD);

}  // namespace caffe
