// data_parallel.hpp: what a Solver does differently when N ranks train one
// model together (mpirun -np N caffe train).
//
// Contract (docs/distributed.md has the user's view):
//  * Start-up: CheckSameModel compares a digest of the solver and the
//    name and shape of every parameter across ranks and raises the same
//    caffe::Error on every rank, naming the first rank and parameter that
//    differ from rank 0.  BroadcastState copies rank 0's parameters (all
//    of them: learnable, lr_mult 0 and BatchNorm statistics), the solver's
//    state blobs and its counters to every rank.
//  * Gradients: each iteration's last forward/backward pass (of iter_size)
//    sums the learnable gradients with lr_mult != 0 (never BatchNorm's
//    statistics) across ranks and scales them by 1/N, so every rank
//    applies the same update.  Gradients travel in buckets
//    (gradient_buckets.hpp) of SolverParameter.reduce_bucket_bytes; with
//    layer_wise_reduce each bucket starts as soon as backward has finished
//    writing it (this object is the net's after_backward callback), and
//    FinishGradients (its on_gradients_ready, as the solver's first
//    callback) waits for all of them before the update.  Bucket
//    buffers are this object's own memory, never the memory plan's arena,
//    and gradients are copied into them, so a reduction in flight never
//    aliases a buffer the plan reuses.  Where the communicator sums device
//    memory (NCCL), the buckets, the copies and the scaling are on the
//    GPU (the net must run in GPU mode); otherwise all of it is on the
//    host, as the MPI and thread communicators want.
//  * Each iteration the ranks agree (one small sum): the displayed loss
//    is the mean over ranks, and a snapshot or stop any rank was asked for
//    (signals) happens on all ranks at the same iteration.
//  * BatchNorm statistics are averaged across ranks before each test and
//    snapshot.  Test outputs are summed across ranks (SumAcrossRanks).
#ifndef CAFFE_PARALLEL_DATA_PARALLEL_HPP_
#define CAFFE_PARALLEL_DATA_PARALLEL_HPP_

#include <memory>
#include <string>
#include <vector>

#include "caffe/net.hpp"
#include "caffe/parallel/communicator.hpp"
#include "caffe/parallel/gradient_buckets.hpp"
#include "caffe/solver.hpp"
#include "caffe/syncedmem.hpp"

namespace caffe {

// The gradients a data-parallel job sums across ranks, in the order it
// sums them: learnable parameters with lr_mult != 0 that no BatchNorm
// layer owns, last parameter first.  `caffe mem` counts their bytes.
template <typename Dtype>
vector<GradientToReduce> GradientsToReduce(const Net<Dtype>& net);

template <typename Dtype>
class DataParallel : public Net<Dtype>::Callback,
                     public Solver<Dtype>::Callback {
 public:
  DataParallel(Communicator* comm, const SolverParameter& param,
               Net<Dtype>* net);
  ~DataParallel() override;

  int rank() const { return comm_->rank(); }
  int size() const { return comm_->size(); }
  Communicator* communicator() { return comm_; }

  void CheckSameModel(const SolverParameter& param);
  void BroadcastState(const vector<Blob<Dtype>*>& state, int* iter,
                      int* current_step);

  // Before each forward/backward pass of iteration `iter`; only the last
  // pass of an iteration reduces.
  void BeginPass(bool last_pass, int iter);
  void FinishGradients();
  // Net::Callback (after_backward): starts the buckets layer_id completed.
  void run(int layer_id) override;
  // Solver::Callback.
  void on_start() override {}
  void on_gradients_ready() override { FinishGradients(); }

  // Returns the mean loss over ranks; *snapshot / *stop become true when
  // any rank asked for one.
  Dtype AgreeOnIteration(Dtype loss, bool* snapshot, bool* stop);
  void AverageBatchNormStatistics();
  void SumAcrossRanks(vector<Dtype>* values, const string& what);

  // Milliseconds FinishGradients spent (starting the buckets backward did
  // not start, waiting for all sums, scaling) since the last call, and
  // over how many iterations: the communication backward did not hide.
  double TakeExposedMs(int* iterations);

  const vector<GradientBucket>& buckets() const { return buckets_; }
  // Bytes of the bucket buffers (this rank's memory for reduction).
  size_t bucket_bytes() const;

 private:
  void Launch(int bucket);
  Dtype* BucketData(int bucket);
  string BucketName(int bucket) const;

  Communicator* comm_;
  Net<Dtype>* net_;
  bool overlap_;
  vector<GradientToReduce> gradients_;
  vector<GradientBucket> buckets_;
  bool on_device_;  // buckets and gradients on the GPU (see above)
  vector<std::unique_ptr<SyncedMemory> > buffers_;
  vector<int> handles_;
  int next_bucket_ = 0;
  double exposed_ms_ = 0;
  int exposed_iterations_ = 0;
  bool armed_ = false;
  int iter_ = 0;
};

}  // namespace caffe

#endif  // CAFFE_PARALLEL_DATA_PARALLEL_HPP_
