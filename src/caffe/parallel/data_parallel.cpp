#include "caffe/parallel/data_parallel.hpp"

#include <algorithm>
#include <chrono>
#include <sstream>

#include "caffe/util/device_math.hpp"
#include "caffe/util/math_functions.hpp"

namespace caffe {

namespace {

// FNV-1a: the same digest on every machine and build.
uint64_t Digest(const string& bytes) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

string ShapeString(const vector<uint64_t>& v, size_t at) {
  std::ostringstream s;
  const size_t dims = v[at];
  for (size_t d = 0; d < dims; ++d) s << (d ? " " : "") << v[at + 1 + d];
  return s.str();
}

}  // namespace

template <typename Dtype>
vector<GradientToReduce> GradientsToReduce(const Net<Dtype>& net) {
  const vector<Blob<Dtype>*>& learnable = net.learnable_params();
  const int num_learnable = static_cast<int>(learnable.size());
  vector<int> ready(num_learnable, -1);
  vector<bool> batch_norm(num_learnable, false);
  const vector<int>& learnable_ids = net.learnable_param_ids();
  for (int i = 0; i < static_cast<int>(net.layers().size()); ++i) {
    const bool is_batch_norm = string(net.layers()[i]->type()) == "BatchNorm";
    for (int p : net.param_ids(i)) {
      const int lp = learnable_ids[p];
      if (is_batch_norm) batch_norm[lp] = true;
      // Layers run backward from the last to the first: the lowest
      // writer finishes a shared gradient.
      if (net.layer_need_backward()[i] && (ready[lp] < 0 || i < ready[lp]))
        ready[lp] = i;
    }
  }
  vector<GradientToReduce> gradients;
  for (int lp = num_learnable - 1; lp >= 0; --lp) {
    if (net.params_lr()[lp] == 0 || batch_norm[lp]) continue;
    gradients.push_back(
        {lp, static_cast<size_t>(learnable[lp]->count()), ready[lp]});
  }
  return gradients;
}

template vector<GradientToReduce> GradientsToReduce(const Net<float>&);
template vector<GradientToReduce> GradientsToReduce(const Net<double>&);

template <typename Dtype>
DataParallel<Dtype>::DataParallel(Communicator* comm,
                                  const SolverParameter& param,
                                  Net<Dtype>* net)
    : comm_(comm),
      net_(net),
      overlap_(param.layer_wise_reduce()),
      on_device_(comm->sums_device_memory()) {
  if (on_device_ && Caffe::mode() != Caffe::GPU)
    throw Error("gradients summed on GPUs (NCCL) need the net in GPU mode: "
                "select a GPU (caffe --gpu, caffe.set_mode_gpu()) before "
                "making the solver");
  gradients_ = GradientsToReduce(*net);
  const size_t bucket_limit =
      std::max<uint64_t>(param.reduce_bucket_bytes(), sizeof(Dtype));
  buckets_ = PlanGradientBuckets(gradients_, sizeof(Dtype), bucket_limit);
  for (const GradientBucket& bucket : buckets_)
    buffers_.emplace_back(new SyncedMemory(bucket.count * sizeof(Dtype)));
  handles_.assign(buckets_.size(), -1);
  net_->add_after_backward(this);
}

template <typename Dtype>
DataParallel<Dtype>::~DataParallel() {
  net_->RemoveCallback(this);
}

template <typename Dtype>
size_t DataParallel<Dtype>::bucket_bytes() const {
  size_t total = 0;
  for (const GradientBucket& b : buckets_) total += b.count * sizeof(Dtype);
  return total;
}

template <typename Dtype>
void DataParallel<Dtype>::CheckSameModel(const SolverParameter& param) {
  // [solver digest, parameter count, then per parameter: name digest,
  // number of axes, axes...]
  // The net files may sit at other paths on other machines; the nets
  // themselves are compared parameter by parameter below.
  SolverParameter solver = param;
  solver.clear_net();
  solver.clear_train_net();
  solver.clear_test_net();
  string solver_bytes;
  solver.SerializeToString(&solver_bytes);
  vector<uint64_t> mine = {Digest(solver_bytes), net_->params().size()};
  vector<string> names;
  for (int i = 0; i < static_cast<int>(net_->layers().size()); ++i) {
    for (size_t k = 0; k < net_->param_ids(i).size(); ++k) {
      const int p = net_->param_ids(i)[k];
      const string name = "'" + net_->layer_names()[i] + "' #" +
                          std::to_string(k);
      names.push_back(name);
      mine.push_back(Digest(name));
      const vector<int>& shape = net_->params()[p]->shape();
      mine.push_back(shape.size());
      for (int d : shape) mine.push_back(static_cast<uint64_t>(d));
    }
  }
  const vector<vector<uint64_t> > all =
      comm_->Allgather(mine, "the start-up check of solver and net");
  const vector<uint64_t>& root = all[0];
  for (int r = 1; r < static_cast<int>(all.size()); ++r) {
    const vector<uint64_t>& other = all[r];
    std::ostringstream error;
    error << "rank " << r << " does not train the same model as rank 0: ";
    if (other[0] != root[0])
      throw Error(error.str() + "the solver parameters differ (each rank "
                  "must get the same --solver file and flags)");
    if (other[1] != root[1]) {
      error << "its training net has " << other[1] << " parameter blobs, "
            << "rank 0's has " << root[1];
      throw Error(error.str());
    }
    size_t at = 2;
    for (size_t p = 0; p < root[1]; ++p) {
      const size_t root_next = at + 2 + root[at + 1];
      const size_t other_next = at + 2 + other[at + 1];
      const bool same =
          root_next == other_next &&
          std::equal(root.begin() + at, root.begin() + root_next,
                     other.begin() + at);
      if (!same) {
        error << "parameter " << names[p] << " (of rank 0's net) has shape "
              << ShapeString(root, at + 1) << " on rank 0 but rank " << r
              << " has "
              << (root[at] == other[at] ? "" : "another layer there, ")
              << "shape " << ShapeString(other, at + 1);
        throw Error(error.str());
      }
      at = root_next;
    }
  }
}

template <typename Dtype>
void DataParallel<Dtype>::BroadcastState(const vector<Blob<Dtype>*>& state,
                                         int* iter, int* current_step) {
  const vector<shared_ptr<Blob<Dtype> > >& params = net_->params();
  for (size_t p = 0; p < params.size(); ++p) {
    if (net_->param_owners()[p] >= 0) continue;  // shares its owner's data
    comm_->Broadcast(MutableDataOn(on_device_, params[p].get()),
                     params[p]->count() * sizeof(Dtype), 0,
                     "the broadcast of rank 0's weights");
  }
  for (Blob<Dtype>* blob : state)
    comm_->Broadcast(MutableDataOn(on_device_, blob),
                     blob->count() * sizeof(Dtype), 0,
                     "the broadcast of rank 0's solver state");
  int64_t counters[2] = {*iter, *current_step};
  comm_->Broadcast(counters, sizeof(counters), 0,
                   "the broadcast of rank 0's iteration");
  *iter = static_cast<int>(counters[0]);
  *current_step = static_cast<int>(counters[1]);
  iter_ = *iter;
}

template <typename Dtype>
Dtype* DataParallel<Dtype>::BucketData(int bucket) {
  SyncedMemory* m = buffers_[bucket].get();
  return static_cast<Dtype*>(on_device_ ? m->mutable_gpu_data()
                                        : m->mutable_cpu_data());
}

template <typename Dtype>
string DataParallel<Dtype>::BucketName(int bucket) const {
  return "the gradient sum of bucket " + std::to_string(bucket + 1) + "/" +
         std::to_string(buckets_.size()) + " at iteration " +
         std::to_string(iter_);
}

template <typename Dtype>
void DataParallel<Dtype>::BeginPass(bool last_pass, int iter) {
  iter_ = iter;
  next_bucket_ = 0;
  armed_ = last_pass && overlap_;
}

template <typename Dtype>
void DataParallel<Dtype>::Launch(int b) {
  const vector<Blob<Dtype>*>& learnable = net_->learnable_params();
  Dtype* buffer = BucketData(b);
  size_t offset = 0;
  for (int m : buckets_[b].members) {
    const GradientToReduce& g = gradients_[m];
    CopyOn(on_device_, static_cast<long>(g.count),
           DiffOn(on_device_, *learnable[g.param_id]), buffer + offset);
    offset += g.count;
  }
  handles_[b] = comm_->StartAllreduceSum(buffer, buckets_[b].count,
                                         Communicator::TypeOf<Dtype>(),
                                         BucketName(b));
}

template <typename Dtype>
void DataParallel<Dtype>::run(int layer_id) {
  if (!armed_) return;
  comm_->Progress();
  while (next_bucket_ < static_cast<int>(buckets_.size()) &&
         layer_id <= buckets_[next_bucket_].ready_layer) {
    Launch(next_bucket_++);
  }
}

template <typename Dtype>
double DataParallel<Dtype>::TakeExposedMs(int* iterations) {
  const double ms = exposed_ms_;
  *iterations = exposed_iterations_;
  exposed_ms_ = 0;
  exposed_iterations_ = 0;
  return ms;
}

template <typename Dtype>
void DataParallel<Dtype>::FinishGradients() {
  const auto start = std::chrono::steady_clock::now();
  armed_ = false;
  while (next_bucket_ < static_cast<int>(buckets_.size()))
    Launch(next_bucket_++);
  const vector<Blob<Dtype>*>& learnable = net_->learnable_params();
  const Dtype scale = Dtype(1) / size();
  for (size_t b = 0; b < buckets_.size(); ++b) {
    comm_->Wait(handles_[b]);
    handles_[b] = -1;
    const Dtype* buffer = BucketData(b);
    size_t offset = 0;
    for (int m : buckets_[b].members) {
      const GradientToReduce& g = gradients_[m];
      ScaleOn(on_device_, static_cast<long>(g.count), scale, buffer + offset,
              MutableDiffOn(on_device_, learnable[g.param_id]));
      offset += g.count;
    }
  }
  exposed_ms_ += std::chrono::duration<double, std::milli>(
                     std::chrono::steady_clock::now() - start)
                     .count();
  ++exposed_iterations_;
}

template <typename Dtype>
Dtype DataParallel<Dtype>::AgreeOnIteration(Dtype loss, bool* snapshot,
                                            bool* stop) {
  double values[3] = {static_cast<double>(loss), *snapshot ? 1.0 : 0.0,
                      *stop ? 1.0 : 0.0};
  comm_->AllreduceSum(values, 3, Communicator::DOUBLE,
                      "the loss and signal check at iteration " +
                          std::to_string(iter_));
  *snapshot = values[1] > 0;
  *stop = values[2] > 0;
  return static_cast<Dtype>(values[0] / size());
}

template <typename Dtype>
void DataParallel<Dtype>::AverageBatchNormStatistics() {
  const Dtype scale = Dtype(1) / size();
  for (int i = 0; i < static_cast<int>(net_->layers().size()); ++i) {
    if (string(net_->layers()[i]->type()) != "BatchNorm") continue;
    for (int p : net_->param_ids(i)) {
      if (net_->param_owners()[p] >= 0) continue;
      Blob<Dtype>* blob = net_->params()[p].get();
      Dtype* statistics = MutableDataOn(on_device_, blob);
      comm_->AllreduceSum(statistics, blob->count(),
                          Communicator::TypeOf<Dtype>(),
                          "the average of BatchNorm '" +
                              net_->layer_names()[i] + "' statistics");
      ScalOn(on_device_, blob->count(), scale, statistics);
    }
  }
}

template <typename Dtype>
void DataParallel<Dtype>::SumAcrossRanks(vector<Dtype>* values,
                                         const string& what) {
  if (values->empty()) return;
  comm_->AllreduceSum(values->data(), values->size(),
                      Communicator::TypeOf<Dtype>(), what);
}

INSTANTIATE_CLASS(DataParallel);

}  // namespace caffe
