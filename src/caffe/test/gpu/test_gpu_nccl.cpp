// NCCL tests (ctest label `gpu`): the NCCL communicator's collectives on
// device and host memory, the data-parallel gradient sum with its buckets
// on the GPU, and several GPUs of one process training the weights one GPU
// trains with their whole batch.  One GPU can run one NCCL rank (NCCL
// refuses two ranks on one GPU), so the several-GPU test skips, saying so,
// on a one-GPU machine.  Without a GPU every test here skips, printing why.
#include <google/protobuf/text_format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "caffe/caffe.hpp"
#include "caffe/parallel/data_parallel.hpp"
#include "caffe/parallel/multi_device.hpp"
#include "caffe/parallel/nccl_communicator.hpp"
#include "caffe/test/gpu_test_util.hpp"

namespace caffe {
namespace {

#define SKIP_WITHOUT_NCCL()                                   \
  do {                                                        \
    SKIP_WITHOUT_GPU();                                       \
    if (!NcclSupported())                                     \
      GTEST_SKIP() << "no NCCL test ran: built without NCCL"; \
  } while (0)

TEST(GpuNcclTest, OneRankCollectivesOnDeviceAndHostMemory) {
  SKIP_WITHOUT_NCCL();
  ModeScope scope(Caffe::GPU);
  std::unique_ptr<Communicator> comm =
      MakeNcclCommunicator(NewNcclUid(), 0, 1);
  EXPECT_TRUE(comm->sums_device_memory());
  Blob<float> blob(vector<int>{1000});
  for (int i = 0; i < blob.count(); ++i) blob.mutable_cpu_data()[i] = i * 0.5f;
  comm->AllreduceSum(blob.mutable_gpu_data(), blob.count(),
                     Communicator::FLOAT, "a device sum");
  const int handle = comm->StartAllreduceSum(
      blob.mutable_gpu_data(), blob.count(), Communicator::FLOAT, "a start");
  comm->Wait(handle);
  for (int i = 0; i < blob.count(); ++i)
    ASSERT_EQ(blob.cpu_data()[i], i * 0.5f);
  double host[3] = {1.5, -2, 3};
  comm->AllreduceSum(host, 3, Communicator::DOUBLE, "a host sum");
  EXPECT_EQ(host[1], -2);
  int64_t value = 77;
  comm->Broadcast(&value, sizeof(value), 0, "a broadcast");
  EXPECT_EQ(value, 77);
  const vector<vector<uint64_t> > all =
      comm->Allgather(vector<uint64_t>{4, 5, 6}, "a gather");
  ASSERT_EQ(all.size(), 1u);
  EXPECT_EQ(all[0], (vector<uint64_t>{4, 5, 6}));
}

const char* kNet = R"(
name: 'n'
layer { name: 'data' type: 'DummyData' top: 'data' top: 'label'
  dummy_data_param { shape { dim: 8 dim: 3 dim: 6 dim: 6 } shape { dim: 8 }
    data_filler { type: 'gaussian' } data_filler { type: 'constant' value: 1 } } }
layer { name: 'conv' type: 'Convolution' bottom: 'data' top: 'conv'
  convolution_param { num_output: 4 kernel_size: 3 weight_filler { type: 'xavier' } } }
layer { name: 'relu' type: 'ReLU' bottom: 'conv' top: 'conv' }
layer { name: 'ip' type: 'InnerProduct' bottom: 'conv' top: 'ip'
  inner_product_param { num_output: 5 weight_filler { type: 'xavier' } } }
layer { name: 'loss' type: 'SoftmaxWithLoss' bottom: 'ip' bottom: 'label' top: 'loss' }
)";

TEST(GpuNcclTest, GradientBucketsOnTheGpuKeepOneRanksGradients) {
  SKIP_WITHOUT_NCCL();
  ModeScope scope(Caffe::GPU);
  NetParameter param;
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(kNet, &param));
  param.mutable_state()->set_phase(TRAIN);
  Net<float> net(param);
  std::unique_ptr<Communicator> comm =
      MakeNcclCommunicator(NewNcclUid(), 0, 1);
  SolverParameter solver;
  solver.set_reduce_bucket_bytes(300);  // several buckets
  DataParallel<float> parallel(comm.get(), solver, &net);
  EXPECT_GT(parallel.buckets().size(), 1u);
  net.ClearParamDiffs();
  net.ForwardBackward();
  vector<vector<float> > before;
  for (Blob<float>* p : net.learnable_params())
    before.emplace_back(p->cpu_diff(), p->cpu_diff() + p->count());
  parallel.BeginPass(true, 0);
  parallel.FinishGradients();  // one rank: the sum over ranks, scaled by 1
  for (size_t i = 0; i < before.size(); ++i) {
    Blob<float>* p = net.learnable_params()[i];
    EXPECT_EQ(vector<float>(p->cpu_diff(), p->cpu_diff() + p->count()),
              before[i]) << "parameter " << i;
  }
}

string Replace(string s, const string& from, const string& to) {
  const size_t at = s.find(from);
  EXPECT_NE(at, string::npos) << from;
  if (at != string::npos) s.replace(at, from.size(), to);
  return s;
}

// Every learnable weight of `solver`'s net, after training.
vector<float> TrainedWeights(const SolverParameter& param) {
  shared_ptr<Solver<float> > solver(
      SolverRegistry<float>::CreateSolver(param));
  solver->Solve();
  vector<float> w;
  for (Blob<float>* p : solver->net()->learnable_params())
    w.insert(w.end(), p->cpu_data(), p->cpu_data() + p->count());
  return w;
}

TEST(GpuNcclTest, TwoGpusTrainTheWeightsOfOneGpuWithTheWholeBatch) {
  SKIP_WITHOUT_NCCL();
  if (Caffe::GpuCount() < 2)
    GTEST_SKIP() << "no several-GPU test ran: this machine has one GPU";
  // DummyData's constant inputs: each rank's batch equals the whole
  // batch's halves, so 2 x 4 must train what 1 x 8 trains.
  const string net = Replace(kNet, "data_filler { type: 'gaussian' }",
                             "data_filler { type: 'constant' value: 0.3 }");
  SolverParameter param;
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(
      "base_lr: 0.1 lr_policy: 'fixed' momentum: 0.9 max_iter: 10 "
      "random_seed: 5 snapshot_after_train: false", &param));
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(
      net, param.mutable_net_param()));
  vector<float> one;
  {
    ModeScope scope(Caffe::GPU);
    one = TrainedWeights(param);
  }
  const string half = Replace(Replace(net, "dim: 8 dim: 3", "dim: 4 dim: 3"),
                              "shape { dim: 8 }", "shape { dim: 4 }");
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(
      half, param.mutable_net_param()));
  vector<vector<float> > ranks(2);
  RunOnGpus({0, 1}, [&](int r) { ranks[r] = TrainedWeights(param); });
  EXPECT_EQ(ranks[0], ranks[1]);
  ASSERT_EQ(ranks[0].size(), one.size());
  for (size_t i = 0; i < one.size(); ++i)
    EXPECT_NEAR(ranks[0][i], one[i], 1e-4 * std::max(1.0f, std::fabs(one[i])))
        << "weight " << i;
}

}  // namespace
}  // namespace caffe
