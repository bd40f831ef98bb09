// A refused HDF5 load leaves nothing open: weights (CopyTrainedLayersFrom),
// solver state (Restore) and HDF5Data files that fail halfway -- after a
// group or dataset was opened -- give caffe::Error and close the file with
// everything in it.  Before Hdf5ReadFile, the groups a failed weights load
// had opened kept the file open (HDF5's default weak close) for the rest
// of the process: a pycaffe session leaked one file per bad load.
#include <gtest/gtest.h>

#include <stdlib.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "caffe/layers/hdf5_data_layer.hpp"
#include "caffe/net.hpp"
#include "caffe/sgd_solvers.hpp"
#include "caffe/solver_factory.hpp"
#include "caffe/test/model_zoo_util.hpp"
#include "caffe/test/test_data_helpers.hpp"
#include "caffe/util/hdf5.hpp"
#include "caffe/util/io.hpp"
#include "caffe/util/isolated_run.hpp"

namespace caffe {
namespace {

using test::TempDir;

const char* kNet = R"(
name: "small"
layer { name: "x" type: "DummyData" top: "x" top: "label"
  dummy_data_param { shape { dim: 2 dim: 3 } shape { dim: 2 }
    data_filler { type: "gaussian" } data_filler { type: "constant" } } }
layer { name: "fc" type: "InnerProduct" bottom: "x" top: "fc"
  inner_product_param { num_output: 2 weight_filler { type: "gaussian" } } }
layer { name: "loss" type: "SoftmaxWithLoss" bottom: "fc" bottom: "label"
  top: "loss" }
)";

NetParameter SmallNet() {
  NetParameter param;
  ReadProtoFromTextString(kNet, "small", &param);
  param.mutable_state()->set_phase(TRAIN);
  return param;
}

// SGD on SmallNet, snapshotting into `tmp`.
std::unique_ptr<Solver<float> > SmallSolver(const TempDir& tmp) {
  SolverParameter s;
  *s.mutable_net_param() = SmallNet();
  s.set_type("SGD");
  s.set_base_lr(0.1f);
  s.set_lr_policy("fixed");
  s.set_snapshot_prefix(tmp.file("small"));
  return std::unique_ptr<Solver<float> >(
      SolverRegistry<float>::CreateSolver(s));
}

// Every HDF5 file, group, dataset, datatype and attribute open in the
// process.
ssize_t OpenHdf5Objects() {
  return H5Fget_obj_count(H5F_OBJ_ALL, H5F_OBJ_ALL);
}

// Writes an HDF5 file whose root holds `group` with one dataset "0" of
// `shape` (and nothing else), closing everything.
void WriteGroupWithOneDataset(const string& path, const string& group,
                              const vector<int>& shape) {
  hdf5_silence_errors();
  const hid_t file =
      H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  ASSERT_GE(file, 0);
  hid_t parent = file;
  std::vector<hid_t> groups;
  size_t start = 0;
  while (start < group.size()) {
    const size_t slash = group.find('/', start);
    const string part = group.substr(start, slash - start);
    groups.push_back(
        H5Gcreate2(parent, part.c_str(), H5P_DEFAULT, H5P_DEFAULT,
                   H5P_DEFAULT));
    parent = groups.back();
    if (slash == string::npos) break;
    start = slash + 1;
  }
  Blob<float> blob(shape);
  hdf5_save_nd_dataset(parent, "0", blob);
  for (auto g = groups.rbegin(); g != groups.rend(); ++g) H5Gclose(*g);
  H5Fclose(file);
}

TEST(Hdf5FailedLoadTest, WeightsMissingABlobCloseTheFile) {
  TempDir tmp;
  Net<float> net(SmallNet());
  // data/fc holds the weight "0" but not the bias "1": refused while the
  // groups data and data/fc are open.
  const string path = tmp.file("missing_bias.caffemodel.h5");
  WriteGroupWithOneDataset(path, "data/fc", {2, 3});
  const ssize_t before = OpenHdf5Objects();
  try {
    net.CopyTrainedLayersFrom(path);
    ADD_FAILURE() << "a weights file without fc's bias was accepted";
  } catch (const Error& e) {
    EXPECT_NE(string::npos, string(e.what()).find(path)) << e.what();
    EXPECT_NE(string::npos, string(e.what()).find("fc")) << e.what();
  }
  EXPECT_EQ(before, OpenHdf5Objects());
}

TEST(Hdf5FailedLoadTest, WeightsOfTheWrongShapeCloseTheFile) {
  TempDir tmp;
  Net<float> net(SmallNet());
  const string path = tmp.file("wrong_shape.caffemodel.h5");
  WriteGroupWithOneDataset(path, "data/fc", {3, 2});  // fc's weight: 2 x 3
  const ssize_t before = OpenHdf5Objects();
  try {
    net.CopyTrainedLayersFrom(path);
    ADD_FAILURE() << "a 3 x 2 weight for a 2 x 3 blob was accepted";
  } catch (const Error& e) {
    // The dataset's path names the layer.
    EXPECT_NE(string::npos, string(e.what()).find("/data/fc/0")) << e.what();
  }
  EXPECT_EQ(before, OpenHdf5Objects());
}

TEST(Hdf5FailedLoadTest, SolverStateWithTheWrongHistoryClosesTheFile) {
  TempDir tmp;
  std::unique_ptr<Solver<float> > solver = SmallSolver(tmp);
  // iter and current_step read, then a history group with one blob where
  // SGD on this net keeps two: refused while "history" is open.
  const string path = tmp.file("short_history.solverstate.h5");
  WriteGroupWithOneDataset(path, "history", {2, 3});
  {
    const hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
    ASSERT_GE(file, 0);
    hdf5_save_int(file, "iter", 3);
    hdf5_save_int(file, "current_step", 0);
    H5Fclose(file);
  }
  const ssize_t before = OpenHdf5Objects();
  try {
    solver->Restore(path.c_str());
    ADD_FAILURE() << "a state with one history blob of two was accepted";
  } catch (const Error& e) {
    EXPECT_NE(string::npos, string(e.what()).find(path)) << e.what();
    EXPECT_NE(string::npos, string(e.what()).find("history")) << e.what();
  }
  EXPECT_EQ(before, OpenHdf5Objects());
}

TEST(Hdf5FailedLoadTest, HDF5DataWithAMissingTopClosesTheFile) {
  TempDir tmp;
  // "data" is there, "label" is not: refused after "data" was read.
  const string h5 = tmp.file("rows.h5");
  {
    hdf5_silence_errors();
    const hid_t file =
        H5Fcreate(h5.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    ASSERT_GE(file, 0);
    Blob<float> rows(vector<int>{4, 3});
    hdf5_save_nd_dataset(file, "data", rows);
    H5Fclose(file);
  }
  const string list = tmp.file("files.txt");
  test::WriteBytes(list, h5 + "\n", false);
  LayerParameter p;
  p.set_name("h5");
  p.set_type("HDF5Data");
  p.add_top("data");
  p.add_top("label");
  p.mutable_hdf5_data_param()->set_source(list);
  p.mutable_hdf5_data_param()->set_batch_size(2);
  HDF5DataLayer<float> layer(p);
  Blob<float> data, label;
  vector<Blob<float>*> bottom, top{&data, &label};
  const ssize_t before = OpenHdf5Objects();
  try {
    layer.SetUp(bottom, top);
    ADD_FAILURE() << "an HDF5 file without 'label' was accepted";
  } catch (const Error& e) {
    EXPECT_NE(string::npos, string(e.what()).find("label")) << e.what();
  }
  EXPECT_EQ(before, OpenHdf5Objects());
}

// Files the hdf5_snapshot fuzzer found (fuzz/regressions/hdf5_snapshot).
string Regression(const string& name) {
  return SourceDir() + "/fuzz/regressions/hdf5_snapshot/" + name;
}

TEST(Hdf5FailedLoadTest, TheCheckerProgramIsFoundBesideTheLibrary) {
  // Without it each check forks the caller, which costs a copy of its page
  // tables: tens of milliseconds for a large process.
  const string path = hdf5_checker_path();
  ASSERT_FALSE(path.empty());
  EXPECT_EQ("caffe_hdf5_check", path.substr(path.rfind('/') + 1));
  EXPECT_EQ(IsolatedResult::kOk,
            RunProgram(path, {Regression("damaged-header-leak-a7e7ebce")}, 60)
                .kind);
  EXPECT_EQ(IsolatedResult::kCrashed,
            RunProgram(path, {Regression("crash-local-heap-1f7653f6"), "data"},
                       60)
                .kind);
}

TEST(Hdf5FailedLoadTest, TheCheckCanBeSwitchedOffForFuzzing) {
  const string path = Regression("crash-local-heap-1f7653f6");
  EXPECT_THROW(hdf5_check_file(path, {"data"}), Error);
  setenv("LEANCAFFE_HDF5_CHECK", "off", 1);
  EXPECT_NO_THROW(hdf5_check_file(path, {"data"}));
  unsetenv("LEANCAFFE_HDF5_CHECK");
  EXPECT_THROW(hdf5_check_file(path, {"data"}), Error);
}

TEST(Hdf5FailedLoadTest, AFileOnWhichHdf5CrashesIsAnError) {
  // A corrupted local heap: HDF5 1.10.8 copies from a null buffer while
  // looking up the group 'data'.  In-process that killed the caller.
  TempDir tmp;
  Net<float> net(SmallNet());
  const string path = tmp.file("damaged.caffemodel.h5");
  std::filesystem::copy_file(Regression("crash-local-heap-1f7653f6"), path);
  try {
    net.CopyTrainedLayersFrom(path);
    ADD_FAILURE() << "a damaged weights file was accepted";
  } catch (const Error& e) {
    EXPECT_NE(string::npos, string(e.what()).find(path)) << e.what();
    EXPECT_NE(string::npos, string(e.what()).find("damaged HDF5 file"))
        << e.what();
  }
  EXPECT_EQ(0, OpenHdf5Objects());
}

TEST(Hdf5FailedLoadTest, ACompactDatasetWithoutItsBytesIsAnError) {
  // 'iter' is a compact dataset of one int stored in 0 bytes: H5Dread
  // copied from a null buffer.
  TempDir tmp;
  std::unique_ptr<Solver<float> > solver = SmallSolver(tmp);
  const string path = tmp.file("damaged.solverstate.h5");
  std::filesystem::copy_file(Regression("crash-compact-storage-90680e80"),
                             path);
  try {
    solver->Restore(path.c_str());
    ADD_FAILURE() << "a damaged solver state was accepted";
  } catch (const Error& e) {
    EXPECT_NE(string::npos, string(e.what()).find("'iter'")) << e.what();
    EXPECT_NE(string::npos, string(e.what()).find("damaged")) << e.what();
  }
  EXPECT_EQ(0, OpenHdf5Objects());
}

}  // namespace
}  // namespace caffe
