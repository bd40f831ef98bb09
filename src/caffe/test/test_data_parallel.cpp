// Data-parallel training (parallel/): bucket planning on synthetic
// gradients; ranks as threads of one process (the thread communicator and
// launcher that multi-GPU training uses); and real jobs under mpirun,
// through the caffe tool (float) and data_parallel_worker (double): N ranks
// x batch B must train the weights one process trains with batch N*B,
// shard records exactly, and end the whole job on any rank's failure.
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/types.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <google/protobuf/text_format.h>

#include "caffe/caffe.hpp"
#include "caffe/parallel/data_parallel.hpp"
#include "caffe/parallel/distributed.hpp"
#include "caffe/parallel/gradient_buckets.hpp"
#include "caffe/parallel/multi_device.hpp"
#include "caffe/parallel/nccl_communicator.hpp"
#include "caffe/test/run_command.hpp"
#include "caffe/test/test_image_helpers.hpp"
#include "caffe/test/temp_dir.hpp"
#include "caffe/util/db.hpp"
#include "caffe/util/hdf5.hpp"

namespace caffe {
namespace {

// ---- bucket planning (pure) ----

TEST(GradientBucketsTest, GroupsInReduceOrderUpToTheLimit) {
  // Four float gradients of 10, 20, 5 and 30 elements, 100-byte buckets.
  const vector<GradientToReduce> g = {
      {3, 10, 6}, {2, 20, 4}, {1, 5, 2}, {0, 30, 0}};
  const vector<GradientBucket> b = PlanGradientBuckets(g, 4, 100);
  ASSERT_EQ(b.size(), 3u);
  EXPECT_EQ(b[0].members, (vector<int>{0}));  // 40 + 80 bytes > 100
  EXPECT_EQ(b[1].members, (vector<int>{1, 2}));
  EXPECT_EQ(b[1].count, 25u);
  EXPECT_EQ(b[1].ready_layer, 2);
  EXPECT_EQ(b[2].members, (vector<int>{3}));
  EXPECT_EQ(b[2].ready_layer, 0);
}

TEST(GradientBucketsTest, AGradientLargerThanABucketIsABucketOfItsOwn) {
  const vector<GradientToReduce> g = {{2, 1, 5}, {1, 1000, 3}, {0, 1, 1}};
  const vector<GradientBucket> b = PlanGradientBuckets(g, 8, 64);
  ASSERT_EQ(b.size(), 3u);
  EXPECT_EQ(b[1].members, (vector<int>{1}));
  EXPECT_EQ(b[1].count, 1000u);
}

TEST(GradientBucketsTest, ABucketIsReadyWhenItsLastWrittenMemberIs) {
  // A shared parameter (ready at layer 1) grouped with a later layer's
  // gradient makes the whole bucket wait for layer 1; a gradient no
  // backward writes (-1) waits for the end.
  const vector<GradientToReduce> g = {{2, 4, 7}, {1, 4, 1}, {0, 4, -1}};
  const vector<GradientBucket> one = PlanGradientBuckets(g, 4, 32);
  ASSERT_EQ(one.size(), 2u);
  EXPECT_EQ(one[0].ready_layer, 1);
  EXPECT_EQ(one[1].ready_layer, -1);
}

// A rule the reduction relies on: gradients in flight (parameter diffs)
// never live in memory the plan hands to another buffer.  Every setting
// of mem_param, after a full pass: no parameter diff overlaps any blob's
// data or diff.
// A small LeNet on 'data' (1 x 8 x 8) and 'label': conv, max pooling, two
// inner products, softmax loss.
string SmallLenetLayers() {
  return R"(
layer { name: 'conv1' type: 'Convolution' bottom: 'data' top: 'conv1'
  convolution_param { num_output: 4 kernel_size: 3 weight_filler { type: 'xavier' }
    bias_filler { type: 'constant' value: 0.1 } } }
layer { name: 'pool1' type: 'Pooling' bottom: 'conv1' top: 'pool1'
  pooling_param { pool: MAX kernel_size: 2 stride: 2 } }
layer { name: 'ip1' type: 'InnerProduct' bottom: 'pool1' top: 'ip1'
  inner_product_param { num_output: 16 weight_filler { type: 'xavier' } } }
layer { name: 'relu1' type: 'ReLU' bottom: 'ip1' top: 'ip1' }
layer { name: 'ip2' type: 'InnerProduct' bottom: 'ip1' top: 'ip2'
  inner_product_param { num_output: 10 weight_filler { type: 'xavier' } } }
layer { name: 'loss' type: 'SoftmaxWithLoss' bottom: 'ip2' bottom: 'label' top: 'loss' }
)";
}

TEST(DataParallelMemoryTest, ParameterDiffsStayOutOfThePlan) {
  const string body =
      "layer { name: 'data' type: 'DummyData' top: 'data' top: 'label'\n"
      "  dummy_data_param { shape { dim: 4 dim: 1 dim: 8 dim: 8 } shape { "
      "dim: 4 }\n    data_filler { type: 'gaussian' } data_filler { type: "
      "'constant' value: 1 } } }\n" + SmallLenetLayers();
  const char* settings[] = {"level: 0", "level: 1", "level: 2",
                            "level: 2 release: DYNAMIC",
                            "level: 2 recompute { auto: SQRT }"};
  for (const char* setting : settings) {
    NetParameter param;
    ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(
        "name: 'n' mem_param { optimize_train: true " + string(setting) +
            " }" + body,
        &param));
    param.mutable_state()->set_phase(TRAIN);
    Net<float> net(param);
    ASSERT_NE(net.memory(), nullptr);
    net.ForwardBackward();
    vector<std::pair<const char*, const char*> > planned;
    for (const auto& blob : net.blobs()) {
      for (SyncedMemory* m : {blob->data().get(), blob->diff().get()}) {
        if (m == nullptr || m->size() == 0) continue;
        const char* p = static_cast<const char*>(m->mutable_cpu_data());
        planned.emplace_back(p, p + m->size());
      }
    }
    ASSERT_FALSE(planned.empty());
    for (Blob<float>* p : net.learnable_params()) {
      const char* d = reinterpret_cast<const char*>(p->cpu_diff());
      const char* end = d + p->count() * sizeof(float);
      for (const auto& range : planned)
        EXPECT_TRUE(end <= range.first || d >= range.second) << setting;
    }
  }
}

// ---- jobs: data shared by the in-process and the mpirun tests ----

const int kImage = 8;  // 1 x 8 x 8 images

// `n` Datums; record i has pseudo-random pixels and label label_of(i).
template <typename LabelOf>
void WriteLmdb(const string& path, int n, LabelOf label_of,
               int corrupt_record = -1, int image = kImage,
               const string& backend = "lmdb") {
  std::unique_ptr<db::DB> store(db::GetDB(backend));
  store->Open(path, db::NEW);
  std::unique_ptr<db::Transaction> txn(store->NewTransaction());
  uint32_t state = 12345;
  for (int i = 0; i < n; ++i) {
    Datum datum;
    datum.set_channels(1);
    datum.set_height(image);
    datum.set_width(image);
    // Noise, plus for larger images a bright bar whose row is the label,
    // so the images can be learnt (training follows a smooth path).
    const int label = label_of(i);
    string pixels(image * image, '\0');
    for (int k = 0; k < image * image; ++k) {
      state = state * 1664525u + 1013904223u;
      int v = static_cast<int>(state >> 26);  // 0..63
      if (image >= 20 && k / image == 2 + 2 * (label % 10)) v += 160;
      pixels[k] = static_cast<char>(v);
    }
    datum.set_data(pixels);
    datum.set_label(label);
    string value;
    datum.SerializeToString(&value);
    if (i == corrupt_record) value = "this is not a Datum";
    char key[16];
    snprintf(key, sizeof(key), "%08d", i);
    txn->Put(key, value);
  }
  txn->Commit();
  store->Close();
}

void WriteFile(const string& path, const string& text) {
  std::ofstream(path) << text;
}

// A Data layer reading the database "lmdb" (or "leveldb" with that
// backend) in the job's directory.
string DataLayerText(int batch, const string& backend = "LMDB") {
  const string source = backend == "LMDB" ? "lmdb" : "leveldb";
  return "layer { name: 'data' type: 'Data' top: 'data' top: 'label'\n"
         "  transform_param { scale: 0.00390625 }\n"
         "  data_param { source: '" + source + "' batch_size: " +
         std::to_string(batch) + " backend: " + backend + " } }\n";
}

// A small LeNet: conv, max pooling, two inner products, softmax loss.
string LenetNet(int batch, const string& extra = "") {
  return "name: 'lenet'\n" + extra + DataLayerText(batch) + SmallLenetLayers();
}

// Caffe's LeNet (models/lenet) on 28 x 28 images from 'lenet_lmdb'.
string RealLenet(int batch) {
  return "name: 'LeNet'\n"
         "layer { name: 'mnist' type: 'Data' top: 'data' top: 'label'\n"
         "  transform_param { scale: 0.00390625 }\n"
         "  data_param { source: 'lenet_lmdb' batch_size: " +
         std::to_string(batch) + " backend: LMDB } }\n" + R"(
layer { name: 'conv1' type: 'Convolution' bottom: 'data' top: 'conv1'
  convolution_param { num_output: 20 kernel_size: 5 stride: 1
    weight_filler { type: 'xavier' } bias_filler { type: 'constant' } } }
layer { name: 'pool1' type: 'Pooling' bottom: 'conv1' top: 'pool1'
  pooling_param { pool: MAX kernel_size: 2 stride: 2 } }
layer { name: 'conv2' type: 'Convolution' bottom: 'pool1' top: 'conv2'
  convolution_param { num_output: 50 kernel_size: 5 stride: 1
    weight_filler { type: 'xavier' } bias_filler { type: 'constant' } } }
layer { name: 'pool2' type: 'Pooling' bottom: 'conv2' top: 'pool2'
  pooling_param { pool: MAX kernel_size: 2 stride: 2 } }
layer { name: 'ip1' type: 'InnerProduct' bottom: 'pool2' top: 'ip1'
  inner_product_param { num_output: 500 weight_filler { type: 'xavier' }
    bias_filler { type: 'constant' } } }
layer { name: 'relu1' type: 'ReLU' bottom: 'ip1' top: 'ip1' }
layer { name: 'ip2' type: 'InnerProduct' bottom: 'ip1' top: 'ip2'
  inner_product_param { num_output: 10 weight_filler { type: 'xavier' }
    bias_filler { type: 'constant' } } }
layer { name: 'loss' type: 'SoftmaxWithLoss' bottom: 'ip2' bottom: 'label' top: 'loss' }
)";
}

// Convolution, BatchNorm and Scale: each rank normalizes with its own
// batch's statistics, so this net is not the single process's; the ranks
// must still end with the same weights and statistics.
string BatchNormNet(int batch) {
  return "name: 'bn'\n" + DataLayerText(batch) + R"(
layer { name: 'conv1' type: 'Convolution' bottom: 'data' top: 'conv1'
  convolution_param { num_output: 4 kernel_size: 3 weight_filler { type: 'xavier' } } }
layer { name: 'bn1' type: 'BatchNorm' bottom: 'conv1' top: 'conv1' }
layer { name: 'scale1' type: 'Scale' bottom: 'conv1' top: 'conv1'
  scale_param { bias_term: true } }
layer { name: 'relu1' type: 'ReLU' bottom: 'conv1' top: 'conv1' }
layer { name: 'ip2' type: 'InnerProduct' bottom: 'conv1' top: 'ip2'
  inner_product_param { num_output: 10 weight_filler { type: 'xavier' } } }
layer { name: 'loss' type: 'SoftmaxWithLoss' bottom: 'ip2' bottom: 'label' top: 'loss' }
)";
}

// Two branches share one inner product's weights (as siamese nets do).
string SharedWeightsNet(int batch) {
  return "name: 'shared'\n" + DataLayerText(batch) + R"(
layer { name: 'ip_a' type: 'InnerProduct' bottom: 'data' top: 'a'
  param { name: 'shared_w' } param { name: 'shared_b' }
  inner_product_param { num_output: 12 weight_filler { type: 'xavier' } } }
layer { name: 'sq' type: 'Power' bottom: 'data' top: 'sq' power_param { power: 2 } }
layer { name: 'ip_b' type: 'InnerProduct' bottom: 'sq' top: 'b'
  param { name: 'shared_w' } param { name: 'shared_b' }
  inner_product_param { num_output: 12 weight_filler { type: 'xavier' } } }
layer { name: 'sum' type: 'Eltwise' bottom: 'a' bottom: 'b' top: 'ab' }
layer { name: 'ip2' type: 'InnerProduct' bottom: 'ab' top: 'ip2'
  inner_product_param { num_output: 10 weight_filler { type: 'xavier' } } }
layer { name: 'loss' type: 'SoftmaxWithLoss' bottom: 'ip2' bottom: 'label' top: 'loss' }
)";
}

string SolverText(const string& net, int max_iter, const string& extra = "",
                  bool snapshot_after_train = false,
                  const string& base_lr = "0.05") {
  return "net: '" + net + "'\nbase_lr: " + base_lr + " momentum: 0.9 " +
         "weight_decay: 0.0005 lr_policy: 'inv' gamma: 0.0001 power: 0.75\n" +
         "max_iter: " + std::to_string(max_iter) +
         " display: 5 random_seed: 3 snapshot_after_train: " +
         (snapshot_after_train ? "true\n" : "false\n") + extra;
}

// mpirun as root, more ranks than cores, one thread per rank, bounded.
// In a sanitized build LeakSanitizer is off for the ranks: Open MPI's
// plugins leak at MPI_Finalize, unloaded and so beyond suppression by
// name (the single-process tests check LeanCaffe's own code for leaks).
string Mpirun(int ranks, const string& program, int timeout_s = 120) {
  return "ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 "
         "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 "
         "OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 timeout " +
         std::to_string(timeout_s) +
         " mpirun --oversubscribe --bind-to none -np " +
         std::to_string(ranks) + " " + program;
}

string Worker() { return string(CAFFE_BINARY_DIR) + "/data_parallel_worker"; }
string Tool() { return string(CAFFE_TOOLS_DIR) + "/caffe"; }

typedef std::map<string, vector<double> > Weights;

Weights WeightsOf(const NetParameter& param) {
  Weights w;
  for (const LayerParameter& layer : param.layer()) {
    for (int i = 0; i < layer.blobs_size(); ++i) {
      const BlobProto& b = layer.blobs(i);
      vector<double>& v = w[layer.name() + "/" + std::to_string(i)];
      if (b.double_data_size()) {
        v.assign(b.double_data().begin(), b.double_data().end());
      } else {
        v.assign(b.data().begin(), b.data().end());
      }
    }
  }
  return w;
}

Weights LoadWeights(const string& file) {
  NetParameter param;
  ReadProtoFromBinaryFileOrDie(file, &param);
  return WeightsOf(param);
}

// The largest ||a - b|| / ||a|| over blobs.
double WorstRelativeDifference(const Weights& a, const Weights& b) {
  EXPECT_EQ(a.size(), b.size());
  double worst = 0;
  for (const auto& entry : a) {
    const vector<double>& x = entry.second;
    const auto it = b.find(entry.first);
    if (it == b.end() || it->second.size() != x.size()) return INFINITY;
    double diff = 0, norm = 0;
    for (size_t i = 0; i < x.size(); ++i) {
      diff += (x[i] - it->second[i]) * (x[i] - it->second[i]);
      norm += x[i] * x[i];
    }
    worst = std::max(worst, std::sqrt(diff) / std::max(std::sqrt(norm), 1e-30));
  }
  return worst;
}

string ReadFile(const string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

// ---- ranks as threads of one process ----

TEST(ThreadCommunicatorTest, EveryRankGetsTheSameAnswer) {
  const int n = 3;
  vector<vector<double> > sums(n);
  vector<vector<vector<uint64_t> > > gathered(n);
  vector<int64_t> broadcast(n);
  vector<float> started(n);
  RunRanksInThreads(n, [&](int r, ThreadCommunicator* c) {
    EXPECT_EQ(Caffe::solver_rank(), r);
    EXPECT_EQ(Caffe::solver_count(), n);
    EXPECT_EQ(DistributedCommunicator(), c);
    vector<double> v = {0.1 * (r + 1), 1e16, -1.0 * r};
    c->AllreduceSum(v.data(), v.size(), Communicator::DOUBLE, "a sum");
    sums[r] = v;
    vector<float> f(1001, r + 0.5f);
    const int handle = c->StartAllreduceSum(f.data(), f.size(),
                                            Communicator::FLOAT, "a start");
    c->Wait(handle);
    started[r] = f[1000];
    int64_t x = r == 1 ? 42 : -1;
    c->Broadcast(&x, sizeof(x), 1, "a broadcast");
    broadcast[r] = x;
    gathered[r] = c->Allgather(vector<uint64_t>(r + 1, 7 * r), "a gather");
  });
  // Added in rank order, the same bits on every rank.
  EXPECT_EQ(sums[0][0], (0.1 * 1 + 0.1 * 2) + 0.1 * 3);
  EXPECT_EQ(sums[0][1], 3e16);
  EXPECT_EQ(sums[0][2], -3.0);
  for (int r = 0; r < n; ++r) {
    EXPECT_EQ(sums[r], sums[0]);
    EXPECT_EQ(started[r], 0.5f + 1.5f + 2.5f);
    EXPECT_EQ(broadcast[r], 42);
    ASSERT_EQ(gathered[r].size(), 3u);
    for (int k = 0; k < n; ++k)
      EXPECT_EQ(gathered[r][k], vector<uint64_t>(k + 1, 7 * k));
  }
  // Outside the threads nothing is left installed.
  EXPECT_EQ(DistributedCommunicator(), nullptr);
}

TEST(ThreadCommunicatorTest, AFailingRankReleasesTheOthers) {
  const auto start = std::chrono::steady_clock::now();
  string message;
  try {
    RunRanksInThreads(3, [](int r, ThreadCommunicator* c) {
      if (r == 2) throw Error("the disk is full");
      double v = 1;
      c->AllreduceSum(&v, 1, Communicator::DOUBLE, "the test sum");
      c->AllreduceSum(&v, 1, Communicator::DOUBLE, "the test sum");
    });
  } catch (const Error& e) {
    message = e.what();
  }
  EXPECT_EQ(message, "rank 2: the disk is full");
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
}

TEST(ThreadCommunicatorTest, AStalledRankEndsTheCollectiveAfterTheTimeout) {
  const double saved = dist_timeout();
  set_dist_timeout(1);
  string message;
  try {
    RunRanksInThreads(2, [](int r, ThreadCommunicator* c) {
      if (r == 1) {
        std::this_thread::sleep_for(std::chrono::seconds(3));
        return;  // never joins the sum
      }
      double v = 1;
      c->AllreduceSum(&v, 1, Communicator::DOUBLE, "the stalled sum");
    });
  } catch (const Error& e) {
    message = e.what();
  }
  set_dist_timeout(saved);
  EXPECT_EQ(message,
            "rank 0: the stalled sum did not finish within 1 s "
            "(--dist_timeout): a peer stalled or died");
}

TEST(MultiDeviceTest, SeveralGpusAreRefusedClearlyWhereThereAreNone) {
  string why;
  if (Caffe::GpuCount(&why) > 0)
    GTEST_SKIP() << "a GPU is present: test_gpu_nccl.cpp covers this";
  bool ran = false;
  string message;
  try {
    RunOnGpus({0, 1}, [&](int) { ran = true; });
  } catch (const Error& e) {
    message = e.what();
  }
  EXPECT_FALSE(ran);
  if (NcclSupported()) {
    EXPECT_EQ(message, "no GPU: " + why);
  } else {
    EXPECT_NE(message.find("needs NCCL, which this LeanCaffe build lacks"),
              string::npos) << message;
  }
}

// Solver<double> jobs whose ranks are threads: each rank's final weights.
class InProcessDataParallelTest : public ::testing::Test {
 protected:
  void SetUp() override {
    WriteLmdb(dir_.file("lmdb"), 1000, [](int i) { return (i * 7) % 10; });
  }
  vector<Weights> Train(int ranks, const string& net_text, int max_iter,
                        const string& solver_extra = "") {
    SolverParameter param;
    EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(
        SolverText("unused", max_iter, solver_extra), &param));
    param.clear_net();
    string text = net_text;
    const string relative = "source: 'lmdb'";
    text.replace(text.find(relative), relative.size(),
                 "source: '" + dir_.file("lmdb") + "'");
    EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(
        text, param.mutable_net_param()));
    vector<Weights> weights(ranks);
    auto train = [&](int r) {
      shared_ptr<Solver<double> > solver(
          SolverRegistry<double>::CreateSolver(param));
      if (ranks > 1) {
        EXPECT_TRUE(solver->data_parallel() &&
                    solver->data_parallel()->size() == ranks);
      }
      solver->Solve();
      NetParameter trained;
      solver->net()->ToProto(&trained, false);
      weights[r] = WeightsOf(trained);
    };
    if (ranks == 1) {
      train(0);
    } else {
      RunRanksInThreads(ranks, [&](int r, ThreadCommunicator*) { train(r); });
    }
    return weights;
  }

  TempDir dir_;
};

TEST_F(InProcessDataParallelTest, ThreadRanksTrainTheSingleProcessWeights) {
  const Weights one = Train(1, LenetNet(12), 15)[0];
  EXPECT_GT(WorstRelativeDifference(Train(1, LenetNet(12), 0)[0], one), 1e-3);
  for (int ranks : {2, 3}) {
    const vector<Weights> many = Train(ranks, LenetNet(12 / ranks), 15);
    EXPECT_LT(WorstRelativeDifference(one, many[0]), 1e-10) << ranks;
    for (int r = 1; r < ranks; ++r) EXPECT_EQ(many[r], many[0]) << ranks;
  }
}

TEST_F(InProcessDataParallelTest, MemParamAndBucketsNeverChangeTheWeights) {
  const Weights plain = Train(2, LenetNet(6), 10)[0];
  EXPECT_EQ(Train(2, LenetNet(6), 10, "reduce_bucket_bytes: 200\n")[1], plain);
  EXPECT_EQ(Train(2, LenetNet(6), 10, "layer_wise_reduce: false\n")[0], plain);
  for (const char* setting :
       {"level: 2", "level: 2 release: DYNAMIC",
        "level: 2 recompute { auto: SQRT }"}) {
    const string mem = "mem_param { optimize_train: true " + string(setting) +
                       " }\n";
    EXPECT_EQ(Train(2, LenetNet(6, mem), 10)[1], plain) << setting;
  }
}

#ifdef USE_MPI

// ---- jobs under mpirun ----

class DataParallelTest : public ::testing::Test {
 protected:
  void SetUp() override {
    WriteLmdb(dir_.file("lmdb"), 1000, [](int i) { return (i * 7) % 10; });
  }
  // Trains `net_text` in double with `ranks` ranks; returns rank r's
  // weights file.
  string TrainWorker(int ranks, const string& net_text, int max_iter,
                     const string& name, const string& solver_extra = "",
                     bool snapshot_after_train = false) {
    WriteFile(dir_.file(name + ".net"), net_text);
    WriteFile(dir_.file(name + ".solver"),
              SolverText(name + ".net", max_iter, solver_extra,
                         snapshot_after_train));
    const RunResult r = RunShell(
        "cd " + dir_.path() + " && " +
        Mpirun(ranks, Worker() + " train " + name + ".solver " + name));
    EXPECT_EQ(r.status, 0) << r.output;
    return dir_.file(name + ".rank0.caffemodel");
  }
  string Path(const string& name) { return dir_.file(name); }

  TempDir dir_;
};

// Runs `net_of_batch(B * ranks)` in one process and `net_of_batch(B)` on
// `ranks` ranks for `iterations` batches, comparing the labels read: in
// rank order, the ranks' batches must be the single process's batch (so
// they are also disjoint within it).
// With rank_dirs, rank r runs in the subdirectory r<r>, as if on a machine
// of its own (each reads its own copy of a database there).
template <typename NetOfBatch>
void ExpectShardsMakeTheSingleBatch(const TempDir& dir, NetOfBatch net_of_batch,
                                    int ranks, int batch, int iterations,
                                    bool rank_dirs = false) {
  WriteFile(dir.file("one.net"), net_of_batch(batch * ranks));
  WriteFile(dir.file("many.net"), net_of_batch(batch));
  const string go = "cd " + dir.path() + " && ";
  const string n = std::to_string(iterations);
  RunResult r = RunShell(go + Worker() + " labels one.net " + n + " one");
  ASSERT_EQ(r.status, 0) << r.output;
  const string many =
      rank_dirs ? "sh -c 'cd r$OMPI_COMM_WORLD_RANK && exec " + Worker() +
                      " labels ../many.net " + n + " ../many'"
                : Worker() + " labels many.net " + n + " many";
  r = RunShell(go + Mpirun(ranks, many));
  ASSERT_EQ(r.status, 0) << r.output;
  std::ifstream single(dir.file("one.rank0.txt"));
  vector<std::unique_ptr<std::ifstream> > shards;
  for (int k = 0; k < ranks; ++k)
    shards.emplace_back(new std::ifstream(
        dir.file("many.rank" + std::to_string(k) + ".txt")));
  for (int t = 0; t < iterations; ++t) {
    string want, line, got;
    ASSERT_TRUE(std::getline(single, want));
    for (int k = 0; k < ranks; ++k) {
      ASSERT_TRUE(std::getline(*shards[k], line)) << "rank " << k;
      std::istringstream keys(line);
      int count = 0;
      for (string key; keys >> key; ++count)
        got += (got.empty() ? "" : " ") + key;
      EXPECT_EQ(count, batch);
    }
    EXPECT_EQ(got, want) << ranks << " ranks, batch " << t;
  }
}

TEST_F(DataParallelTest, DatabaseShardsMakeTheSingleProcessBatch) {
  std::filesystem::remove_all(Path("lmdb"));
  WriteLmdb(Path("lmdb"), 90, [](int i) { return i; });  // label = key
  // 9 batches of 3 x 4 records pass the 90 records' end: it wraps.
  for (int ranks : {2, 3}) {
    ExpectShardsMakeTheSingleBatch(
        dir_, [](int b) { return "name: 'db'\n" + DataLayerText(b); }, ranks,
        4, 9);
  }
}

#ifdef USE_LEVELDB
TEST_F(DataParallelTest, LevelDbShardsMakeTheSingleProcessBatch) {
  // LevelDB admits one process per database, so each rank reads its own
  // copy, as ranks on separate machines do.
  std::filesystem::remove_all(Path("leveldb"));
  WriteLmdb(Path("leveldb"), 90, [](int i) { return i; }, -1, kImage,
            "leveldb");
  for (int k = 0; k < 3; ++k) {
    const string copy = Path("r" + std::to_string(k) + "/leveldb");
    std::filesystem::remove_all(copy);
    std::filesystem::create_directories(copy);
    std::filesystem::copy(Path("leveldb"), copy);
  }
  auto net = [](int b) {
    return "name: 'db'\n" + DataLayerText(b, "LEVELDB");
  };
  for (int ranks : {2, 3})
    ExpectShardsMakeTheSingleBatch(dir_, net, ranks, 4, 9, true);
  // Ranks sharing one LevelDB on one machine: an error that says why.
  // (Enough batches that the first rank still holds the database when
  // the other opens it.)
  WriteFile(Path("shared.net"), net(4));
  RunResult r = RunShell(
      "cd " + dir_.path() + " && " +
      Mpirun(2, Worker() + " labels shared.net 100000 shared"));
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.output.find("one process open a database at a time"),
            string::npos) << r.output;
}
#endif  // USE_LEVELDB

#ifdef USE_OPENCV  // the ImageData layer reads PNG files
TEST_F(DataParallelTest, ShuffledImageShardsMakeTheSingleProcessBatch) {
  string list;
  for (int i = 0; i < 29; ++i) {
    const string file = "img" + std::to_string(i) + ".png";
    test::WritePng(Path(file), test::PatternImage(i, 4, 4, 1));
    list += file + " " + std::to_string(i) + "\n";  // label = line
  }
  WriteFile(Path("images.txt"), list);
  auto net = [this](int b) {
    return "name: 'images'\nlayer { name: 'data' type: 'ImageData' "
           "top: 'data' top: 'label' image_data_param { source: 'images.txt' "
           "root_folder: '" + dir_.path() + "/' is_color: false shuffle: true "
           "batch_size: " + std::to_string(b) + " } }\n";
  };
  // 7 batches of 2 x 5 lines reshuffle twice on the way.
  ExpectShardsMakeTheSingleBatch(dir_, net, 2, 5, 7);
}
#endif  // USE_OPENCV

TEST_F(DataParallelTest, LenetOnTwoRanksTrainsTheSingleProcessWeights) {
  // Caffe's LeNet, 2 ranks x 32 against 1 process x 64, 20 iterations.
  WriteLmdb(Path("lenet_lmdb"), 1000, [](int i) { return (i * 3) % 10; }, -1,
            28);
  // Double precision, through the C++ API.
  const Weights one = LoadWeights(TrainWorker(1, RealLenet(64), 20, "one"));
  const string two = TrainWorker(2, RealLenet(32), 20, "two");
  EXPECT_LT(WorstRelativeDifference(one, LoadWeights(two)), 1e-10);
  // Every rank holds the same bits.
  EXPECT_EQ(ReadFile(two), ReadFile(Path("two.rank1.caffemodel")));
  // The weights moved: the comparison is not between initial weights.
  const Weights start = LoadWeights(TrainWorker(1, RealLenet(64), 0, "zero"));
  EXPECT_GT(WorstRelativeDifference(start, one), 1e-3);
  // Float, through the caffe tool.
  WriteFile(Path("one.net"), RealLenet(64));
  WriteFile(Path("two.net"), RealLenet(32));
  // Caffe's LeNet solver settings (base_lr 0.01, momentum 0.9, inv).
  WriteFile(Path("one.solver"), SolverText("one.net", 20,
                                           "snapshot_prefix: 'f1'\n", true,
                                           "0.01"));
  WriteFile(Path("two.solver"), SolverText("two.net", 20,
                                           "snapshot_prefix: 'f2'\n", true,
                                           "0.01"));
  const string go = "cd " + dir_.path() + " && ";
  const RunResult single = RunShell(go + Tool() + " train --solver=one.solver");
  ASSERT_EQ(single.status, 0) << single.output;
  const RunResult r =
      RunShell(go + Mpirun(2, Tool() + " train --solver=two.solver"));
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_LT(WorstRelativeDifference(LoadWeights(Path("f1_iter_20.caffemodel")),
                                    LoadWeights(Path("f2_iter_20.caffemodel"))),
            1e-4)
      << single.output << r.output;
  EXPECT_NE(r.output.find("effective batch 2 x 32 x iter_size 1 = 64"),
            string::npos)
      << r.output;
}

TEST_F(DataParallelTest, BatchNormStatisticsAgreeAcrossRanks) {
  const string two =
      TrainWorker(2, BatchNormNet(8), 12, "bn",
                  "snapshot_prefix: 'bn_snap'\n", /*snapshot_after_train=*/true);
  EXPECT_EQ(ReadFile(two), ReadFile(Path("bn.rank1.caffemodel")));
  // The statistics were gathered (not left at their zero start).
  const Weights w = LoadWeights(two);
  double sum = 0;
  for (double v : w.at("bn1/0")) sum += std::fabs(v);
  EXPECT_GT(sum, 0);
}

TEST_F(DataParallelTest, BucketSizeAndOverlapGiveIdenticalWeights) {
  const string base = ReadFile(TrainWorker(2, LenetNet(8), 12, "base"));
  const string small = ReadFile(TrainWorker(2, LenetNet(8), 12, "small",
                                            "reduce_bucket_bytes: 200\n"));
  const string after = ReadFile(TrainWorker(2, LenetNet(8), 12, "after",
                                            "layer_wise_reduce: false\n"));
  EXPECT_EQ(base, small);
  EXPECT_EQ(base, after);
  // A rerun gives the same bits again.
  EXPECT_EQ(base, ReadFile(TrainWorker(2, LenetNet(8), 12, "again")));
}

TEST_F(DataParallelTest, ThreeRanksTrainTheSingleProcessWeights) {
  const Weights one = LoadWeights(TrainWorker(1, LenetNet(12), 15, "one"));
  const string three = TrainWorker(3, LenetNet(4), 15, "three");
  EXPECT_LT(WorstRelativeDifference(one, LoadWeights(three)), 1e-10);
  EXPECT_EQ(ReadFile(three), ReadFile(Path("three.rank2.caffemodel")));
}

TEST_F(DataParallelTest, IterSizeTwoMatchesTheSingleProcess) {
  const Weights one = LoadWeights(
      TrainWorker(1, LenetNet(8), 10, "one", "iter_size: 2\n"));
  const Weights two = LoadWeights(
      TrainWorker(2, LenetNet(4), 10, "two", "iter_size: 2\n"));
  EXPECT_LT(WorstRelativeDifference(one, two), 1e-10);
}

TEST_F(DataParallelTest, SharedWeightsMatchTheSingleProcess) {
  const Weights one =
      LoadWeights(TrainWorker(1, SharedWeightsNet(16), 12, "one"));
  const Weights two = LoadWeights(TrainWorker(
      2, SharedWeightsNet(8), 12, "two", "reduce_bucket_bytes: 100\n"));
  EXPECT_LT(WorstRelativeDifference(one, two), 1e-10);
}

// Three HDF5 files of 37, 50 and 23 rows (data 1x8x8, label).
void WriteHdf5Files(const TempDir& dir) {
  std::ofstream list(dir.file("h5list"));
  uint32_t state = 99;
  int k = 0;
  for (int rows : {37, 50, 23}) {
    Blob<float> data(vector<int>{rows, 1, kImage, kImage});
    Blob<float> label(vector<int>{rows});
    for (int i = 0; i < data.count(); ++i) {
      state = state * 1664525u + 1013904223u;
      data.mutable_cpu_data()[i] = (state >> 8) / 16777216.0f;
    }
    for (int i = 0; i < rows; ++i) label.mutable_cpu_data()[i] = (i + k) % 10;
    const string file = dir.file("part" + std::to_string(k++) + ".h5");
    hid_t id = H5Fcreate(file.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    hdf5_save_nd_dataset(id, "data", data);
    hdf5_save_nd_dataset(id, "label", label);
    H5Fclose(id);
    list << file << "\n";
  }
}

string Hdf5Net(int batch) {
  return "name: 'h5'\n"
         "layer { name: 'data' type: 'HDF5Data' top: 'data' top: 'label'\n"
         "  hdf5_data_param { source: 'h5list' shuffle: true batch_size: " +
         std::to_string(batch) + " } }\n" + R"(
layer { name: 'ip1' type: 'InnerProduct' bottom: 'data' top: 'ip1'
  inner_product_param { num_output: 16 weight_filler { type: 'xavier' } } }
layer { name: 'relu1' type: 'ReLU' bottom: 'ip1' top: 'ip1' }
layer { name: 'ip2' type: 'InnerProduct' bottom: 'ip1' top: 'ip2'
  inner_product_param { num_output: 10 weight_filler { type: 'xavier' } } }
layer { name: 'loss' type: 'SoftmaxWithLoss' bottom: 'ip2' bottom: 'label' top: 'loss' }
)";
}

TEST_F(DataParallelTest, ShuffledHdf5DataMatchesTheSingleProcess) {
  // 25 iterations x 12 rows pass the 110 rows more than twice: reshuffles
  // of files and rows happen on the way.
  WriteHdf5Files(dir_);
  const Weights one = LoadWeights(TrainWorker(1, Hdf5Net(12), 25, "one"));
  const Weights two = LoadWeights(TrainWorker(2, Hdf5Net(6), 25, "two"));
  const Weights three = LoadWeights(TrainWorker(3, Hdf5Net(4), 25, "three"));
  EXPECT_LT(WorstRelativeDifference(one, two), 1e-10);
  EXPECT_LT(WorstRelativeDifference(one, three), 1e-10);
}

TEST_F(DataParallelTest, MemParamNeverChangesTheWeights) {
  const string plain = ReadFile(TrainWorker(2, LenetNet(8), 10, "plain"));
  const char* settings[] = {
      "level: 0 check: true", "level: 1 check: true", "level: 2 check: true",
      "level: 2 release: DYNAMIC check: true",
      "level: 2 check: true recompute { auto: SQRT }"};
  int k = 0;
  for (const char* s : settings) {
    const string mem = "mem_param { optimize_train: true " + string(s) + " }\n";
    const string name = "mem" + std::to_string(k++);
    EXPECT_EQ(plain, ReadFile(TrainWorker(2, LenetNet(8, mem), 10, name)))
        << s;
  }
}

TEST_F(DataParallelTest, OnlyRankZeroSnapshotsAndLogsIterations) {
  WriteFile(Path("two.net"), LenetNet(8));
  WriteFile(Path("two.solver"),
            SolverText("two.net", 20, "snapshot_prefix: 'two'\n", true));
  const RunResult r = RunShell("cd " + dir_.path() + " && " +
                               Mpirun(2, Tool() + " train --solver=two.solver"));
  ASSERT_EQ(r.status, 0) << r.output;
  // Rank 0 alone snapshots and logs iterations; rank 1 logs no INFO.
  auto count = [&](const string& needle) {
    size_t n = 0;
    for (size_t at = r.output.find(needle); at != string::npos;
         at = r.output.find(needle, at + 1))
      ++n;
    return n;
  };
  EXPECT_EQ(count("Snapshotting to binary proto file"), 1u);
  EXPECT_EQ(count("Iteration 15 ("), 1u);
  EXPECT_EQ(count("[rank 1] I"), 0u);
}

// Every "<name> = <value>" the log has, in order.
vector<double> LoggedValues(const string& log, const string& name) {
  vector<double> values;
  const string needle = name + " = ";
  for (size_t at = log.find(needle); at != string::npos;
       at = log.find(needle, at + 1))
    values.push_back(std::stod(log.substr(at + needle.size())));
  return values;
}

TEST_F(DataParallelTest, TestIterationsAreSplitAcrossRanks) {
  // Train batches 2 x 8 against 16; the test net reads batches of 8 in
  // both, 6 per test: the ranks run 3 each and sum their outputs.
  auto net = [](int train_batch) {
    string text = LenetNet(train_batch);
    text.replace(text.find("layer { name: 'data'"), 0,
                 "layer { name: 'test_data' type: 'Data' top: 'data' "
                 "top: 'label' include { phase: TEST } transform_param { "
                 "scale: 0.00390625 } data_param { source: 'lmdb' "
                 "batch_size: 8 backend: LMDB } }\n");
    const string train_top = "top: 'label'\n  transform_param";
    text.insert(text.find(train_top) + 12, " include { phase: TRAIN }");
    return text + "layer { name: 'acc' type: 'Accuracy' bottom: 'ip2' "
                  "bottom: 'label' top: 'acc' include { phase: TEST } }\n";
  };
  WriteFile(Path("one.net"), net(16));
  WriteFile(Path("two.net"), net(8));
  const string tests = "test_iter: 6 test_interval: 5\n";
  WriteFile(Path("one.solver"), SolverText("one.net", 10, tests));
  WriteFile(Path("two.solver"), SolverText("two.net", 10, tests));
  const string go = "cd " + dir_.path() + " && ";
  const RunResult one = RunShell(go + Tool() + " train --solver=one.solver");
  ASSERT_EQ(one.status, 0) << one.output;
  const RunResult two =
      RunShell(go + Mpirun(2, Tool() + " train --solver=two.solver"));
  ASSERT_EQ(two.status, 0) << two.output;
  for (const char* name : {"Test net output #0: acc", "Test net output #1: loss"}) {
    const vector<double> a = LoggedValues(one.output, name);
    const vector<double> b = LoggedValues(two.output, name);
    ASSERT_EQ(a.size(), 3u) << one.output;  // iterations 0, 5 and 10
    ASSERT_EQ(b.size(), 3u) << two.output;
    for (size_t k = 0; k < a.size(); ++k)
      EXPECT_NEAR(a[k], b[k], 1e-4 * std::max(1.0, std::fabs(a[k])))
          << name << " at test " << k;
  }
}

TEST_F(DataParallelTest, DifferentNetsOnTwoRanksFailAtStartUp) {
  WriteFile(Path("a.net"), LenetNet(8));
  string other = LenetNet(8);
  other.replace(other.find("num_output: 16"), 14, "num_output: 17");
  WriteFile(Path("b.net"), other);
  WriteFile(Path("a.solver"), SolverText("a.net", 5));
  WriteFile(Path("b.solver"), SolverText("a.net", 5).replace(6, 5, "b.net"));
  const RunResult r = RunShell(
      "cd " + dir_.path() + " && " +
      Mpirun(1, Tool() + " train --solver=a.solver : -np 1 " + Tool() +
                    " train --solver=b.solver"));
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.output.find("rank 1 does not train the same model as rank 0"),
            string::npos)
      << r.output;
  EXPECT_NE(r.output.find("parameter 'ip1' #0 (of rank 0's net) has shape "
                          "16 36 on rank 0 but rank 1 has shape 17 36"),
            string::npos)
      << r.output;
  // The same net with gradient clipping on one rank only.
  WriteFile(Path("b.solver"), SolverText("a.net", 5, "clip_gradients: 1\n"));
  const RunResult lr = RunShell(
      "cd " + dir_.path() + " && " +
      Mpirun(1, Tool() + " train --solver=a.solver : -np 1 " + Tool() +
                    " train --solver=b.solver"));
  EXPECT_NE(lr.status, 0);
  EXPECT_NE(lr.output.find("the solver parameters differ"), string::npos)
      << lr.output;
}

TEST_F(DataParallelTest, ACorruptRecordReadByRankOneNamesRankOne) {
  // Record 8 is rank 1's first record at batch 8.
  std::filesystem::remove_all(Path("lmdb"));
  WriteLmdb(Path("lmdb"), 100, [](int i) { return i % 10; }, 8);
  WriteFile(Path("net"), LenetNet(8));
  WriteFile(Path("solver"), SolverText("net", 5));
  const RunResult r = RunShell("cd " + dir_.path() + " && " +
                               Mpirun(2, Tool() + " train --solver=solver"));
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.output.find("[rank 1] Error:"), string::npos) << r.output;
  EXPECT_NE(r.output.find("record '00000008'"), string::npos) << r.output;
  EXPECT_EQ(r.output.find("[rank 0] Error:"), string::npos) << r.output;
}

// The pid of rank `rank` of the job whose environment carries `tag`, or
// of its mpirun with rank -1.
pid_t FindProcess(const string& tag, int rank) {
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    const string name = entry.path().filename();
    if (name.find_first_not_of("0123456789") != string::npos) continue;
    const string env = ReadFile(entry.path().string() + "/environ");
    if (env.find("LEANCAFFE_TEST_TAG=" + tag) == string::npos) continue;
    const string exe = ReadFile(entry.path().string() + "/comm");
    if (rank < 0) {
      if (exe == "mpirun\n") return static_cast<pid_t>(std::stol(name));
      continue;
    }
    if (env.find(string("OMPI_COMM_WORLD_RANK=") + std::to_string(rank) +
                 '\0') == string::npos)
      continue;
    if (exe.find("caffe") != 0) continue;  // not the shell or timeout
    return static_cast<pid_t>(std::stol(name));
  }
  return -1;
}

// True once the job's log in `dir` shows rank 0 training.
bool JobTrains(const TempDir& dir) {
  std::ifstream log(dir.file("job.log"));
  const string text((std::istreambuf_iterator<char>(log)),
                    std::istreambuf_iterator<char>());
  return text.find("Iteration ") != string::npos;
}

// Starts a long 2-rank job in the background and, once rank 0 logs
// training iterations, sends each of `signals` to `target` (a rank, or -1:
// mpirun) 2 s apart; returns the job's result.  Waiting for the log, not
// just for the process, keeps a slow start-up on a loaded machine from
// turning a signal meant for training into one during start-up.
RunResult SignalJob(const TempDir& dir, int target, vector<int> signals,
                    const string& flags) {
  WriteFile(dir.file("net"), LenetNet(8));
  WriteFile(dir.file("solver"),
            SolverText("net", 100000000, "snapshot_prefix: 'sig'\n"));
  const string tag = dir.path();
  RunResult result{-1, ""};
  std::thread job([&] {
    result = RunShell(
        "cd " + dir.path() + " && (LEANCAFFE_TEST_TAG=" + tag + " " +
        Mpirun(2, Tool() + " train --solver=solver " + flags, 120) +
        ") > job.log 2>&1; status=$?; cat job.log; exit $status");
  });
  pid_t pid = -1;
  for (int i = 0; i < 600 && (pid < 0 || !JobTrains(dir)); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    if (pid < 0) pid = FindProcess(tag, target);
  }
  auto last_signal = std::chrono::steady_clock::now();
  for (int sig : signals) {
    std::this_thread::sleep_for(std::chrono::seconds(2));  // training
    last_signal = std::chrono::steady_clock::now();
    if (pid > 0) kill(pid, sig);
  }
  job.join();
  EXPECT_GT(pid, 0) << "the job never started: " << result.output;
  // From now on `seconds` is the time from the last signal to the end.
  result.seconds = std::chrono::duration<double>(
                       std::chrono::steady_clock::now() - last_signal)
                       .count();
  return result;
}

RunResult SignalRankOne(const TempDir& dir, int sig, const string& flags) {
  return SignalJob(dir, 1, {sig}, flags);
}

TEST_F(DataParallelTest, SignalsSnapshotAndStopEveryRankTogether) {
  // mpirun forwards SIGUSR1 and SIGUSR2 to every rank.
  const RunResult r =
      SignalJob(dir_, -1, {SIGUSR1, SIGUSR2},
                "--sigusr1_effect=snapshot --sigusr2_effect=stop");
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("Optimization stopped early"), string::npos)
      << r.output;
  int snapshots = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir_.path())) {
    const string name = entry.path().filename();
    if (name.rfind("sig_iter_", 0) == 0 &&
        name.find(".caffemodel") != string::npos)
      ++snapshots;
  }
  EXPECT_GE(snapshots, 1) << r.output;
}

TEST_F(DataParallelTest, AKilledRankEndsTheJob) {
  const RunResult r = SignalRankOne(dir_, SIGKILL, "");
  EXPECT_NE(r.status, 0) << r.output;
  EXPECT_NE(r.status, 124) << "the job had to be ended by timeout";
  EXPECT_LT(r.seconds, 30) << r.output;
}

TEST_F(DataParallelTest, AStalledRankEndsTheJobAfterTheTimeout) {
  const RunResult r = SignalRankOne(dir_, SIGSTOP, "--dist_timeout=5");
  EXPECT_LT(r.seconds, 20) << r.output;
  EXPECT_NE(r.status, 0) << r.output;
  EXPECT_NE(r.status, 124) << "the job had to be ended by timeout";
  EXPECT_NE(r.output.find("a peer stalled or died"), string::npos)
      << r.output;
  EXPECT_NE(r.output.find("did not finish within 5 s"), string::npos)
      << r.output;
}

TEST_F(DataParallelTest, ARankThatNeverStartsEndsTheJobAfterTheTimeout) {
  // Rank 1 sleeps before it starts, so rank 0 waits alone in MPI's
  // start-up, which waits for every rank: the watch must cover it too.
  WriteFile(Path("net"), LenetNet(8));
  WriteFile(Path("solver"), SolverText("net", 10));
  const string train = Tool() + " train --solver=solver --dist_timeout=3";
  const string late = "sh -c 'sleep 60; exec " + train + "'";
  const RunResult r = RunShell("cd " + dir_.path() + " && " +
                               Mpirun(1, train + " : -np 1 " + late, 120));
  EXPECT_NE(r.status, 0) << r.output;
  EXPECT_NE(r.status, 124) << "the job had to be ended by timeout";
  EXPECT_LT(r.seconds, 40) << r.output;
  EXPECT_NE(r.output.find("MPI_Init (the start-up of all ranks) did not "
                          "finish within 3 s"),
            string::npos)
      << r.output;
}

TEST_F(DataParallelTest, ResumesOnFewerAndMoreRanks) {
  WriteFile(Path("net"), LenetNet(8));
  WriteFile(Path("solver"),
            SolverText("net", 10, "snapshot: 10 snapshot_prefix: 'dp'\n"));
  const string go = "cd " + dir_.path() + " && ";
  RunResult r = RunShell(go + Mpirun(2, Tool() + " train --solver=solver"));
  ASSERT_EQ(r.status, 0) << r.output;
  ASSERT_TRUE(std::filesystem::exists(Path("dp_iter_10.solverstate")));
  WriteFile(Path("solver20"),
            SolverText("net", 20, "snapshot: 20 snapshot_prefix: 'more'\n"));
  r = RunShell(go + Mpirun(3, Tool() + " train --solver=solver20 "
                                       "--snapshot=dp_iter_10.solverstate"));
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("the data order restarts"), string::npos);
  EXPECT_TRUE(std::filesystem::exists(Path("more_iter_20.caffemodel")));
  EXPECT_FALSE(std::filesystem::exists(Path("more_iter_10.caffemodel")));
  WriteFile(Path("solver20"),
            SolverText("net", 20, "snapshot: 20 snapshot_prefix: 'fewer'\n"));
  r = RunShell(go + Tool() +
               " train --solver=solver20 --snapshot=dp_iter_10.solverstate");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(std::filesystem::exists(Path("fewer_iter_20.caffemodel")));
}

#endif  // USE_MPI

}  // namespace
}  // namespace caffe
