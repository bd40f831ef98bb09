// Compatibility with BVLC Caffe 1.0: files it wrote must load, and computing
// with them must reproduce what it computed (fixture: test_data/compat_lenet,
// see shared/compat/README.md in the project's history for how it was made).
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <memory>
#include <sstream>
#include <vector>

#include "caffe/caffe.hpp"
#include "caffe/test/temp_dir.hpp"

namespace caffe {
namespace {

const std::string kFixture = std::string(CAFFE_TEST_DATA_DIR) + "/compat_lenet";

std::vector<float> ReadFloats(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in.good()) << path;
  std::vector<float> v;
  float x;
  while (in.read(reinterpret_cast<char*>(&x), sizeof(x))) v.push_back(x);
  return v;
}

// Largest difference relative to the blob's scale (its largest magnitude):
// float sums in a different order differ in the last bits, which matters
// only relative to the values around them, not to entries near zero.
double MaxRelDiff(const float* a, const std::vector<float>& ref) {
  double worst = 0, scale = 0;
  for (size_t i = 0; i < ref.size(); ++i) {
    worst = std::max(worst, std::fabs(double(a[i]) - ref[i]));
    scale = std::max(scale, std::fabs(double(ref[i])));
  }
  return scale > 0 ? worst / scale : worst;
}

// ||a - ref|| / ||ref||.  Used after training steps: a last-bit difference
// between OpenBLAS kernels can flip a ReLU or max-pooling tie, which moves a
// handful of weights by more than their neighbours; the blob as a whole
// stays on Caffe's trajectory.
double L2RelDiff(const float* a, const std::vector<float>& ref) {
  double num = 0, den = 0;
  for (size_t i = 0; i < ref.size(); ++i) {
    num += (double(a[i]) - ref[i]) * (double(a[i]) - ref[i]);
    den += double(ref[i]) * ref[i];
  }
  return den > 0 ? std::sqrt(num / den) : std::sqrt(num);
}

class CompatLeNetTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Caffe::set_mode(Caffe::CPU);
    dir_.CopyFrom(kFixture);
    cd_.reset(new ScopedChdir(dir_.path()));
  }
  void TearDown() override { cd_.reset(); }

  TempDir dir_;
  std::unique_ptr<ScopedChdir> cd_;
};

TEST_F(CompatLeNetTest, ForwardBackwardMatchesCaffeDump) {
  Net<float> net("lenet_hdf5_fixed.prototxt", TRAIN);
  net.CopyTrainedLayersFrom("lenet_init_iter_0.caffemodel");
  float loss = 0;
  net.Forward(&loss);
  net.ClearParamDiffs();
  net.Backward();
  EXPECT_NEAR(loss, 2.35190678, 2.35190678 * 1e-5);

  const char* blobs[] = {"ip2", "ip1", "pool2"};
  for (const char* name : blobs) {
    auto blob = net.blob_by_name(name);
    std::vector<float> data = ReadFloats(std::string("dump_init_iter_0/blob_") +
                                         name + ".data.f32");
    ASSERT_EQ(static_cast<int>(data.size()), blob->count()) << name;
    EXPECT_LT(MaxRelDiff(blob->cpu_data(), data), 1e-5) << name << " data";
    std::vector<float> diff = ReadFloats(std::string("dump_init_iter_0/blob_") +
                                         name + ".diff.f32");
    EXPECT_LT(MaxRelDiff(blob->cpu_diff(), diff), 1e-5)
        << name << " diff";
  }
  const char* layers[] = {"conv1", "conv2", "ip1", "ip2"};
  for (const char* layer : layers) {
    auto l = net.layer_by_name(layer);
    for (int i = 0; i < 2; ++i) {
      const std::string base = std::string("dump_init_iter_0/param_") + layer +
                               "_" + std::to_string(i);
      std::vector<float> data = ReadFloats(base + ".data.f32");
      std::vector<float> diff = ReadFloats(base + ".diff.f32");
      ASSERT_EQ(static_cast<int>(data.size()), l->blobs()[i]->count());
      EXPECT_LT(MaxRelDiff(l->blobs()[i]->cpu_data(), data), 1e-6);
      EXPECT_LT(MaxRelDiff(l->blobs()[i]->cpu_diff(), diff), 1e-5)
          << base;
    }
  }
}

TEST_F(CompatLeNetTest, ResumeFromIter10ReachesIter20Weights) {
  SolverParameter param;
  ReadSolverParamsFromTextFileOrDie("lenet_sgd_solver.prototxt", &param);
  param.set_snapshot_prefix("resumed");
  shared_ptr<Solver<float> > solver(
      SolverRegistry<float>::CreateSolver(param));
  solver->Solve("lenet_sgd_iter_10.solverstate");
  EXPECT_EQ(solver->iter(), 20);
  NetParameter expected;
  ReadProtoFromBinaryFileOrDie("lenet_sgd_iter_20.caffemodel", &expected);
  int checked = 0;
  for (const LayerParameter& lp : expected.layer()) {
    if (lp.blobs_size() == 0) continue;
    auto layer = solver->net()->layer_by_name(lp.name());
    for (int i = 0; i < lp.blobs_size(); ++i) {
      std::vector<float> ref(lp.blobs(i).data().begin(),
                             lp.blobs(i).data().end());
      EXPECT_LT(L2RelDiff(layer->blobs()[i]->cpu_data(), ref), 1e-4)
          << lp.name() << " blob " << i;
      ++checked;
    }
  }
  EXPECT_EQ(checked, 8);
  // The resumed run wrote its own snapshot, loadable as a net.
  EXPECT_TRUE(FileExists("resumed_iter_20.caffemodel"));
  EXPECT_TRUE(FileExists("resumed_iter_20.solverstate"));
}

TEST_F(CompatLeNetTest, TrainingFromInitFollowsCaffeTrajectory) {
  std::ifstream traj("lenet_sgd_loss_trajectory.txt");
  std::vector<double> losses, rates;
  std::string line;
  while (std::getline(traj, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream s(line);
    int it;
    double loss, lr;
    s >> it >> loss;
    if (s >> lr) {
      losses.push_back(loss);
      rates.push_back(lr);
    }
  }
  ASSERT_EQ(losses.size(), 20u);
  SolverParameter param;
  ReadSolverParamsFromTextFileOrDie("lenet_sgd_solver.prototxt", &param);
  param.set_snapshot(0);
  param.set_snapshot_after_train(false);
  param.set_test_interval(1000);
  param.set_test_initialization(false);
  shared_ptr<SGDSolver<float> > solver(new SGDSolver<float>(param));
  solver->net()->CopyTrainedLayersFrom("lenet_init_iter_0.caffemodel");
  for (int i = 0; i < 20; ++i) {
    EXPECT_NEAR(solver->GetLearningRate(), rates[i], rates[i] * 1e-5);
    solver->Step(1);
    EXPECT_NEAR(solver->smoothed_loss(), losses[i], losses[i] * 1e-4)
        << "iteration " << i;
  }
  // The test net at iteration 20 (same data): accuracy and loss as Caffe's.
  vector<vector<float> > scores = solver->TestAll();
  ASSERT_EQ(scores.size(), 1u);
  ASSERT_EQ(scores[0].size(), 2u);  // accuracy, loss
  EXPECT_NEAR(scores[0][0], 0.96875, 1e-6);
  EXPECT_NEAR(scores[0][1], 1.91226, 1.91226 * 1e-4);
}

TEST_F(CompatLeNetTest, ConstantInputTestMatchesCaffe) {
  Net<float> net("lenet_b64_const.prototxt", TEST);
  net.CopyTrainedLayersFrom("lenet_sgd_iter_20.caffemodel");
  float loss = 0;
  net.Forward(&loss);
  EXPECT_NEAR(net.blob_by_name("loss")->cpu_data()[0], 2.31291,
              2.31291 * 1e-5);
  EXPECT_EQ(net.blob_by_name("accuracy")->cpu_data()[0], 0.f);
}

TEST_F(CompatLeNetTest, SnapshotRoundTripIsExact) {
  Net<float> net("lenet_hdf5_fixed.prototxt", TRAIN);
  net.CopyTrainedLayersFrom("lenet_sgd_iter_10.caffemodel");
  NetParameter written;
  net.ToProto(&written);
  WriteProtoToBinaryFile(written, "copy.caffemodel");
  net.ToHDF5("copy.caffemodel.h5");
  for (const char* file : {"copy.caffemodel", "copy.caffemodel.h5"}) {
    Net<float> other("lenet_hdf5_fixed.prototxt", TRAIN);
    other.CopyTrainedLayersFrom(file);
    for (size_t i = 0; i < net.learnable_params().size(); ++i) {
      const Blob<float>* a = net.learnable_params()[i];
      const Blob<float>* b = other.learnable_params()[i];
      ASSERT_EQ(a->count(), b->count());
      for (int k = 0; k < a->count(); ++k)
        ASSERT_EQ(a->cpu_data()[k], b->cpu_data()[k]) << file;
    }
  }
}

}  // namespace
}  // namespace caffe
