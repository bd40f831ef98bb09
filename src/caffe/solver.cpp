#include "caffe/solver.hpp"

#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "caffe/parallel/data_parallel.hpp"
#include "caffe/parallel/distributed.hpp"
#include "caffe/util/io.hpp"
#include "caffe/util/memory_fit.hpp"
#include "caffe/util/non_finite_scan.hpp"
#include "caffe/util/upgrade_proto.hpp"

namespace caffe {

namespace {
// Builds a net, naming the prototxt it came from in any error it raises
// (the net itself only knows its NetParameter).
template <typename Dtype>
Net<Dtype>* BuildNet(const NetParameter& param, const string& source) {
  if (source.empty()) return new Net<Dtype>(param);
  try {
    return new Net<Dtype>(param);
  } catch (const BlobNotReadable&) {
    throw;
  } catch (const Error& e) {
    throw Error(source + ": " + e.what());
  }
}
}  // namespace

template <typename Dtype>
SolverAction::Enum Solver<Dtype>::GetRequestedAction() {
  if (action_request_function_) return action_request_function_();
  return SolverAction::NONE;
}

template <typename Dtype>
Solver<Dtype>::Solver(const SolverParameter& param)
    : net_(), requested_early_exit_(false) {
  Init(param);
}

template <typename Dtype>
Solver<Dtype>::Solver(const string& param_file)
    : net_(), requested_early_exit_(false) {
  SolverParameter param;
  ReadSolverParamsFromTextFileOrDie(param_file, &param);
  Init(param);
}

template <typename Dtype>
Solver<Dtype>::~Solver() {}

template <typename Dtype>
void Solver<Dtype>::Init(const SolverParameter& param) {
  param_ = param;
  CAFFE_CHECK_GE(param_.average_loss(), 1) << "average_loss should be >= 1";
  CAFFE_CHECK_GE(param_.iter_size(), 1) << "iter_size should be >= 1";
  InitDistributed();  // starts MPI in a process mpirun launched, else no-op
  Communicator* comm = DistributedCommunicator();
  // Only rank 0 writes snapshots; the others may not see its directory.
  if (Caffe::root_solver()) CheckSnapshotWritePermissions();
  int64_t seed = param_.random_seed();
  if (comm && seed < 0) {
    // Every rank builds its nets from one seed (the same initial weights,
    // the same rand_skip and shuffle order): rank 0 draws it.
    seed = static_cast<int64_t>(caffe_rng_rand());
    comm->Broadcast(&seed, sizeof(seed), 0, "the broadcast of the seed");
  }
  if (seed >= 0) Caffe::set_random_seed(static_cast<unsigned int>(seed));
  InitTrainNet();
  InitTestNets();
  iter_ = 0;
  current_step_ = 0;
  smoothed_loss_ = 0;
  if (comm) {
    InitDataParallel(comm);
    // Dropout and other draws made while training differ by rank.
    if (comm->rank() > 0)
      Caffe::set_random_seed(static_cast<unsigned int>(seed) + comm->rank());
  }
}

template <typename Dtype>
void Solver<Dtype>::JoinDataParallel(shared_ptr<Communicator> comm) {
  if (data_parallel_)
    throw Error("this solver already trains in a data-parallel job of " +
                std::to_string(data_parallel_->size()) + " ranks");
  joined_communicator_ = comm;
  InitDataParallel(comm.get());
  state_synced_ = false;
}

template <typename Dtype>
void Solver<Dtype>::InitDataParallel(Communicator* comm) {
  data_parallel_.reset(new DataParallel<Dtype>(comm, param_, net_.get()));
  // The gradient sum comes before every other callback.
  callbacks_.insert(callbacks_.begin(), data_parallel_.get());
  data_parallel_->CheckSameModel(param_);
  int batch = 0;
  if (!net_->top_vecs().empty() && !net_->top_vecs()[0].empty() &&
      net_->top_vecs()[0][0]->num_axes() > 0)
    batch = net_->top_vecs()[0][0]->shape(0);
  LOG(INFO) << "Data-parallel training on " << comm->size() << " ranks: "
            << "effective batch " << comm->size() << " x " << batch
            << " x iter_size " << param_.iter_size() << " = "
            << comm->size() * batch * param_.iter_size()
            << " (learning rates are not rescaled); gradients summed in "
            << data_parallel_->buckets().size() << " bucket(s), "
            << data_parallel_->bucket_bytes() << " bytes per rank, "
            << (param_.layer_wise_reduce() ? "overlapped with backward"
                                           : "after backward");
}

template <typename Dtype>
void Solver<Dtype>::SyncDataParallelState() {
  data_parallel_->BroadcastState(StateBlobs(), &iter_, &current_step_);
  state_synced_ = true;
}

template <typename Dtype>
void Solver<Dtype>::InitTrainNet() {
  const int num_train_nets = param_.has_net() + param_.has_net_param() +
                             param_.has_train_net() +
                             param_.has_train_net_param();
  const string field_names = "net, net_param, train_net, train_net_param";
  CAFFE_CHECK_GE(num_train_nets, 1)
      << "SolverParameter must specify a train net using one of these "
         "fields: "
      << field_names;
  CAFFE_CHECK_LE(num_train_nets, 1)
      << "SolverParameter must not contain more than one of these fields "
         "specifying a train_net: "
      << field_names;
  NetParameter net_param;
  string source;  // the prototxt file, when the net comes from one
  if (param_.has_train_net_param()) {
    net_param.CopyFrom(param_.train_net_param());
  } else if (param_.has_train_net()) {
    ReadNetParamsFromTextFileOrDie(param_.train_net(), &net_param);
    source = param_.train_net();
  }
  if (param_.has_net_param()) net_param.CopyFrom(param_.net_param());
  if (param_.has_net()) {
    ReadNetParamsFromTextFileOrDie(param_.net(), &net_param);
    source = param_.net();
  }
  // Precedence: the net's own state, then the solver's train_state.
  NetState net_state;
  net_state.set_phase(TRAIN);
  net_state.MergeFrom(net_param.state());
  net_state.MergeFrom(param_.train_state());
  net_param.mutable_state()->CopyFrom(net_state);
  // The net's memory check counts this solver's state too.
  SolverStateScope state(SolverStateCopies(param_.type()));
  net_.reset(BuildNet<Dtype>(net_param, source));
}

template <typename Dtype>
void Solver<Dtype>::InitTestNets() {
  const bool has_net_param = param_.has_net_param();
  const bool has_net_file = param_.has_net();
  const int num_generic_nets = has_net_param + has_net_file;
  CAFFE_CHECK_LE(num_generic_nets, 1)
      << "Both net_param and net_file may not be specified.";
  const int num_test_net_params = param_.test_net_param_size();
  const int num_test_net_files = param_.test_net_size();
  const int num_test_nets = num_test_net_params + num_test_net_files;
  if (num_generic_nets) {
    CAFFE_CHECK_GE(param_.test_iter_size(), num_test_nets)
        << "test_iter must be specified for each test network.";
  } else {
    CAFFE_CHECK_EQ(param_.test_iter_size(), num_test_nets)
        << "test_iter must be specified for each test network.";
  }
  const int num_generic_net_instances = param_.test_iter_size() - num_test_nets;
  const int num_test_net_instances = num_test_nets + num_generic_net_instances;
  if (param_.test_state_size()) {
    CAFFE_CHECK_EQ(param_.test_state_size(), num_test_net_instances)
        << "test_state must be unspecified or specified once per test net.";
  }
  if (num_test_net_instances) {
    CAFFE_CHECK_GT(param_.test_interval(), 0)
        << "test_interval must be positive when test nets are given";
  }
  vector<NetParameter> net_params(num_test_net_instances);
  vector<string> sources(num_test_net_instances);
  int test_net_id = 0;
  for (int i = 0; i < num_test_net_params; ++i, ++test_net_id)
    net_params[test_net_id].CopyFrom(param_.test_net_param(i));
  for (int i = 0; i < num_test_net_files; ++i, ++test_net_id) {
    ReadNetParamsFromTextFileOrDie(param_.test_net(i),
                                   &net_params[test_net_id]);
    sources[test_net_id] = param_.test_net(i);
  }
  const int remaining = num_test_net_instances - test_net_id;
  if (has_net_param) {
    for (int i = 0; i < remaining; ++i, ++test_net_id)
      net_params[test_net_id].CopyFrom(param_.net_param());
  }
  if (has_net_file) {
    for (int i = 0; i < remaining; ++i, ++test_net_id) {
      ReadNetParamsFromTextFileOrDie(param_.net(), &net_params[test_net_id]);
      sources[test_net_id] = param_.net();
    }
  }
  test_nets_.resize(num_test_net_instances);
  for (int i = 0; i < num_test_net_instances; ++i) {
    NetState net_state;
    net_state.set_phase(TEST);
    net_state.MergeFrom(net_params[i].state());
    if (param_.test_state_size()) net_state.MergeFrom(param_.test_state(i));
    net_params[i].mutable_state()->CopyFrom(net_state);
    test_nets_[i].reset(BuildNet<Dtype>(net_params[i], sources[i]));
  }
}

template <typename Dtype>
void Solver<Dtype>::CheckRunFits() {
  MemoryNeed need = NetMemoryNeed(*net_);
  size_t state_held = 0;
  need.solver_state = StateBytes(&state_held);
  need.held += state_held;
  // Test nets share the training net's parameters; their activations and
  // buffers come on top.
  for (const auto& test_net : test_nets_) {
    const MemoryNeed t = NetMemoryNeed(*test_net);
    need.other_nets += t.activations + t.layer_buffers;
    need.held += t.activations_held;
  }
  std::ostringstream context;
  context << "training net '" << net_->name() << "' with " << type()
          << " solver state and " << test_nets_.size() << " test net(s)";
  CheckMemoryFits(*net_, need, context.str());
}

template <typename Dtype>
void Solver<Dtype>::Step(int iters) {
  if (data_parallel_ && !state_synced_) SyncDataParallelState();
  const int start_iter = iter_;
  const int stop_iter = iter_ + iters;
  const int average_loss = param_.average_loss();
  losses_.clear();
  smoothed_loss_ = 0;
  auto timer_start = std::chrono::steady_clock::now();
  int iters_since_display = 0;

  if (!run_fits_checked_) {
    CheckRunFits();
    run_fits_checked_ = true;
  }
  while (iter_ < stop_iter) {
    net_->ClearParamDiffs();
    if (param_.test_interval() && iter_ % param_.test_interval() == 0 &&
        (iter_ > 0 || param_.test_initialization())) {
      TestAll();
      if (requested_early_exit_) break;
    }
    for (size_t c = 0; c < callbacks_.size(); ++c) callbacks_[c]->on_start();
    const bool display = param_.display() && iter_ % param_.display() == 0;
    net_->set_debug_info(display && param_.debug_info());
    Dtype loss = 0;
    for (int i = 0; i < param_.iter_size(); ++i) {
      if (data_parallel_)
        data_parallel_->BeginPass(i + 1 == param_.iter_size(), iter_);
      loss += net_->ForwardBackward();
    }
    loss /= param_.iter_size();
    // In a data-parallel job the first callback sums the gradients.
    for (size_t c = 0; c < callbacks_.size(); ++c)
      callbacks_[c]->on_gradients_ready();
    bool want_snapshot = false, want_stop = false;
    if (data_parallel_) {
      // The ranks agree on the loss shown and on acting on a signal any
      // of them received, at this same iteration.
      const SolverAction::Enum request = GetRequestedAction();
      want_snapshot = request == SolverAction::SNAPSHOT;
      want_stop = request == SolverAction::STOP;
      loss = data_parallel_->AgreeOnIteration(loss, &want_snapshot,
                                              &want_stop);
    }
    if (!std::isfinite(loss)) ReportNonFiniteLoss(loss);
    UpdateSmoothedLoss(loss, start_iter, average_loss);
    ++iters_since_display;
    if (display) {
      auto now = std::chrono::steady_clock::now();
      const double lapse =
          std::chrono::duration<double>(now - timer_start).count();
      const double per_s = lapse > 0 ? iters_since_display / lapse : 0;
      LOG(INFO) << "Iteration " << iter_ << " (" << per_s << " iter/s, "
                << lapse << "s/" << param_.display()
                << " iters), loss = " << smoothed_loss_;
      timer_start = now;
      iters_since_display = 0;
      DisplayOutputBlobs(-1);
      if (data_parallel_) {
        int n = 0;
        const double ms = data_parallel_->TakeExposedMs(&n);
        if (n > 0)
          LOG(INFO) << "    Gradient sum across " << data_parallel_->size()
                    << " ranks: " << ms / n
                    << " ms per iteration not hidden by backward";
      }
    }
    ApplyUpdate();
    ++iter_;
    if (!data_parallel_) {
      const SolverAction::Enum request = GetRequestedAction();
      want_snapshot = request == SolverAction::SNAPSHOT;
      want_stop = request == SolverAction::STOP;
    }
    if ((param_.snapshot() && iter_ % param_.snapshot() == 0) ||
        want_snapshot) {
      Snapshot();
    }
    if (want_stop) {
      requested_early_exit_ = true;
      break;
    }
  }
}

template <typename Dtype>
void Solver<Dtype>::ReportNonFiniteLoss(Dtype loss) {
  std::ostringstream message;
  message << "Iteration " << iter_ << ": the training loss is " << loss
          << "; " << FindNonFiniteSource(net_.get());
  if (param_.non_finite_loss() == SolverParameter_NonFiniteLoss_WARN) {
    LOG(WARNING) << message.str();
    return;
  }
  throw Error(message.str() + ". Training stopped (solver option "
              "non_finite_loss: WARN logs this and goes on).");
}

template <typename Dtype>
void Solver<Dtype>::DisplayOutputBlobs(const int net_id) {
  (void)net_id;
  const vector<Blob<Dtype>*>& result = net_->output_blobs();
  int score_index = 0;
  for (size_t j = 0; j < result.size(); ++j) {
    const Dtype* result_vec = result[j]->cpu_data();
    const string& output_name =
        net_->blob_names()[net_->output_blob_indices()[j]];
    const Dtype loss_weight =
        net_->blob_loss_weights()[net_->output_blob_indices()[j]];
    for (int k = 0; k < result[j]->count(); ++k) {
      ostringstream loss_msg;
      if (loss_weight)
        loss_msg << " (* " << loss_weight << " = "
                 << loss_weight * result_vec[k] << " loss)";
      LOG(INFO) << "    Train net output #" << score_index++ << ": "
                << output_name << " = " << result_vec[k] << loss_msg.str();
    }
  }
}

template <typename Dtype>
void Solver<Dtype>::Solve(const char* resume_file) {
  LOG(INFO) << "Solving " << net_->name();
  LOG(INFO) << "Learning Rate Policy: " << param_.lr_policy();
  requested_early_exit_ = false;
  if (resume_file) {
    LOG(INFO) << "Restoring previous solver status from " << resume_file;
    Restore(resume_file);
    if (data_parallel_) {
      LOG(INFO) << "Resumed on " << data_parallel_->size()
                << " ranks: the data order restarts from the first record";
    }
  }
  if (data_parallel_ && !state_synced_) SyncDataParallelState();
  const int start_iter = iter_;
  Step(param_.max_iter() - iter_);
  if (param_.snapshot_after_train() &&
      (!param_.snapshot() || iter_ % param_.snapshot() != 0)) {
    Snapshot();
  }
  if (requested_early_exit_) {
    LOG(INFO) << "Optimization stopped early.";
    return;
  }
  // One more forward pass to report the loss of the final weights.
  if (param_.display() && iter_ % param_.display() == 0) {
    Dtype loss;
    net_->Forward(&loss);
    if (data_parallel_) {
      bool snapshot = false, stop = false;
      loss = data_parallel_->AgreeOnIteration(loss, &snapshot, &stop);
    }
    UpdateSmoothedLoss(loss, start_iter, param_.average_loss());
    LOG(INFO) << "Iteration " << iter_ << ", loss = " << smoothed_loss_;
  }
  if (param_.test_interval() && iter_ % param_.test_interval() == 0) {
    TestAll();
  }
  LOG(INFO) << "Optimization Done.";
}

template <typename Dtype>
vector<vector<Dtype> > Solver<Dtype>::TestAll() {
  vector<vector<Dtype> > all;
  if (data_parallel_ && !test_nets_.empty())
    data_parallel_->AverageBatchNormStatistics();
  for (int test_net_id = 0;
       test_net_id < static_cast<int>(test_nets_.size()) &&
       !requested_early_exit_;
       ++test_net_id) {
    all.push_back(Test(test_net_id));
  }
  return all;
}

template <typename Dtype>
vector<Dtype> Solver<Dtype>::Test(const int test_net_id) {
  LOG(INFO) << "Iteration " << iter_ << ", Testing net (#" << test_net_id
            << ")";
  const shared_ptr<Net<Dtype> >& test_net = test_nets_[test_net_id];
  test_net->ShareTrainedLayersWith(net_.get());
  vector<Dtype> test_score;
  vector<int> test_score_output_id;
  Dtype loss = 0;
  // Data-parallel: rank r runs iterations r, r + N, ...; its data layers
  // read the matching shard, so the ranks together see test_iter batches.
  const int share = data_parallel_ ? data_parallel_->rank() : 0;
  const int stride = data_parallel_ ? data_parallel_->size() : 1;
  for (int i = 0; i < param_.test_iter(test_net_id); ++i) {
    // Signals are acted on between training iterations, where the ranks
    // agree on them.
    SolverAction::Enum request =
        data_parallel_ ? SolverAction::NONE : GetRequestedAction();
    while (request != SolverAction::NONE) {
      if (request == SolverAction::SNAPSHOT) {
        Snapshot();
      } else if (request == SolverAction::STOP) {
        requested_early_exit_ = true;
      }
      request = GetRequestedAction();
    }
    if (requested_early_exit_) break;
    if (i % stride != share) continue;
    Dtype iter_loss;
    const vector<Blob<Dtype>*>& result = test_net->Forward(&iter_loss);
    if (param_.test_compute_loss()) loss += iter_loss;
    if (test_score.empty()) {
      for (size_t j = 0; j < result.size(); ++j) {
        const Dtype* result_vec = result[j]->cpu_data();
        for (int k = 0; k < result[j]->count(); ++k) {
          test_score.push_back(result_vec[k]);
          test_score_output_id.push_back(j);
        }
      }
    } else {
      int idx = 0;
      for (size_t j = 0; j < result.size(); ++j) {
        const Dtype* result_vec = result[j]->cpu_data();
        for (int k = 0; k < result[j]->count(); ++k)
          test_score[idx++] += result_vec[k];
      }
    }
  }
  if (requested_early_exit_) {
    LOG(INFO) << "Test interrupted.";
    return test_score;
  }
  if (data_parallel_) {
    if (test_score.empty()) {  // this rank's share was empty
      const vector<Blob<Dtype>*>& outputs = test_net->output_blobs();
      for (size_t j = 0; j < outputs.size(); ++j) {
        test_score.resize(test_score.size() + outputs[j]->count(), 0);
        test_score_output_id.resize(test_score.size(), j);
      }
    }
    test_score.push_back(loss);
    data_parallel_->SumAcrossRanks(
        &test_score, "the sum of test net #" + std::to_string(test_net_id) +
                         " outputs at iteration " + std::to_string(iter_));
    loss = test_score.back();
    test_score.pop_back();
  }
  if (param_.test_compute_loss()) {
    loss /= param_.test_iter(test_net_id);
    LOG(INFO) << "Test loss: " << loss;
  }
  for (size_t i = 0; i < test_score.size(); ++i) {
    const int output_blob_index =
        test_net->output_blob_indices()[test_score_output_id[i]];
    const string& output_name = test_net->blob_names()[output_blob_index];
    const Dtype loss_weight = test_net->blob_loss_weights()[output_blob_index];
    const Dtype mean_score = test_score[i] / param_.test_iter(test_net_id);
    test_score[i] = mean_score;
    ostringstream loss_msg;
    if (loss_weight)
      loss_msg << " (* " << loss_weight << " = " << loss_weight * mean_score
               << " loss)";
    LOG(INFO) << "    Test net output #" << i << ": " << output_name << " = "
              << mean_score << loss_msg.str();
  }
  return test_score;
}

template <typename Dtype>
void Solver<Dtype>::Snapshot() {
  if (data_parallel_) {
    data_parallel_->AverageBatchNormStatistics();
    if (!Caffe::root_solver()) return;
  }
  string model_filename;
  switch (param_.snapshot_format()) {
    case SolverParameter_SnapshotFormat_BINARYPROTO:
      model_filename = SnapshotToBinaryProto();
      break;
    case SolverParameter_SnapshotFormat_HDF5:
      model_filename = SnapshotToHDF5();
      break;
  }
  SnapshotSolverState(model_filename);
}

template <typename Dtype>
void Solver<Dtype>::CheckSnapshotWritePermissions() {
  if (!param_.snapshot()) return;
  CAFFE_CHECK(param_.has_snapshot_prefix())
      << "In solver params, snapshot is specified but snapshot_prefix is "
         "not";
  const string probe = SnapshotFilename(".tempfile");
  FILE* f = std::fopen(probe.c_str(), "w");
  CAFFE_CHECK(f != nullptr)
      << "Cannot write to snapshot prefix '" << param_.snapshot_prefix()
      << "'. Make sure that the directory exists and is writable.";
  std::fclose(f);
  std::remove(probe.c_str());
}

template <typename Dtype>
string Solver<Dtype>::SnapshotFilename(const string& extension) {
  return param_.snapshot_prefix() + "_iter_" + std::to_string(iter_) +
         extension;
}

template <typename Dtype>
string Solver<Dtype>::SnapshotToBinaryProto() {
  const string model_filename = SnapshotFilename(".caffemodel");
  LOG(INFO) << "Snapshotting to binary proto file " << model_filename;
  NetParameter net_param;
  net_->ToProto(&net_param, param_.snapshot_diff());
  WriteProtoToBinaryFile(net_param, model_filename);
  return model_filename;
}

template <typename Dtype>
string Solver<Dtype>::SnapshotToHDF5() {
  const string model_filename = SnapshotFilename(".caffemodel.h5");
  LOG(INFO) << "Snapshotting to HDF5 file " << model_filename;
  net_->ToHDF5(model_filename, param_.snapshot_diff());
  return model_filename;
}

template <typename Dtype>
void Solver<Dtype>::Restore(const char* state_file) {
  // In a data-parallel job every rank calls Restore (or Solve with the
  // file); rank 0 alone reads it (the others may run where the file is
  // not), and the next Step hands its state to every rank.
  state_synced_ = false;
  if (data_parallel_ && !Caffe::root_solver()) return;
  const string file(state_file);
  CAFFE_CHECK(FileExists(file)) << file << ": solver state file not found";
  if (file.size() >= 3 && file.compare(file.size() - 3, 3, ".h5") == 0) {
    RestoreSolverStateFromHDF5(file);
  } else {
    RestoreSolverStateFromBinaryProto(file);
  }
}

template <typename Dtype>
void Solver<Dtype>::UpdateSmoothedLoss(Dtype loss, int start_iter,
                                       int average_loss) {
  if (static_cast<int>(losses_.size()) < average_loss) {
    losses_.push_back(loss);
    const int size = static_cast<int>(losses_.size());
    smoothed_loss_ = (smoothed_loss_ * (size - 1) + loss) / size;
  } else {
    const int idx = (iter_ - start_iter) % average_loss;
    smoothed_loss_ += (loss - losses_[idx]) / average_loss;
    losses_[idx] = loss;
  }
}

INSTANTIATE_CLASS(Solver);

}  // namespace caffe
