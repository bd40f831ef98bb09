// An HDF5 file as the HDF5 snapshot readers take it: weights
// (.caffemodel.h5 through CopyTrainedLayersFrom) and solver state
// (.solverstate.h5 through Solver::Restore, which also loads the weights
// file it names).
//
// The net and the Adam solver are built once per process and put back to
// the same starting point before every input (weights, solver history,
// random stream), so an input's outcome does not depend on the inputs
// before it.  With that, HDF5's free lists off and every refused file
// closed whole, each input frees what it allocates, so libFuzzer's leak
// check after an input is a cheap count instead of a heap scan: about 200
// inputs/s under ASan where building per input and scanning gave 20-25.
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include <hdf5.h>

#include "caffe/common.hpp"
#include "caffe/net.hpp"
#include "fuzz_nets.hpp"
#include "fuzz_target.hpp"

namespace {

// Copies of a set of blobs' values, written back on Reset.
class BlobValues {
 public:
  explicit BlobValues(
      const std::vector<caffe::shared_ptr<caffe::Blob<float> > >& blobs)
      : blobs_(blobs) {
    for (const auto& b : blobs_) {
      shapes_.push_back(b->shape());
      saved_.emplace_back(b->cpu_data(), b->cpu_data() + b->count());
    }
  }
  void Reset() {
    for (size_t i = 0; i < blobs_.size(); ++i) {
      blobs_[i]->Reshape(shapes_[i]);
      std::copy(saved_[i].begin(), saved_[i].end(),
                blobs_[i]->mutable_cpu_data());
      caffe::caffe_set(blobs_[i]->count(), 0.f,
                       blobs_[i]->mutable_cpu_diff());
    }
  }

 private:
  std::vector<caffe::shared_ptr<caffe::Blob<float> > > blobs_;
  std::vector<std::vector<int> > shapes_;
  std::vector<std::vector<float> > saved_;
};

struct Fixture {
  Fixture()
      : net(caffe::fuzz::WeightsNet()),
        solver(caffe::fuzz::WeightsSolver("Adam")),
        net_params(net.params()),
        solver_params(solver->net()->params()),
        history(static_cast<caffe::SGDSolver<float>*>(solver.get())
                    ->history()) {}
  void Reset() {
    caffe::Caffe::set_random_seed(1701);
    net_params.Reset();
    solver_params.Reset();
    history.Reset();
  }
  caffe::Net<float> net;
  std::unique_ptr<caffe::Solver<float> > solver;
  BlobValues net_params, solver_params, history;
};

}  // namespace

LEANCAFFE_FUZZ_TARGET(hdf5_snapshot) {
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  if (!caffe::fuzz::SafePaths(bytes)) return;
  caffe::fuzz::EnsureWeightsFiles();
  // HDF5 keeps freed blocks on free lists of its own and hands them out
  // again: a leak would then show the stack of the block's first user,
  // and every input would allocate more than it frees.  Without the lists
  // each block is malloc'd and freed where HDF5 uses it.
  static const bool no_free_lists =
      H5set_free_list_limits(0, 0, 0, 0, 0, 0) >= 0;
  (void)no_free_lists;
  static Fixture* fixture = new Fixture;  // lives as long as the process
  fixture->Reset();
  const std::string weights =
      caffe::fuzz::WriteInput("fuzz.caffemodel.h5", data, size);
  caffe::fuzz::Guard([&] {
    fixture->net.CopyTrainedLayersFrom(weights);
    fixture->net.Forward();
  });
  const std::string state =
      caffe::fuzz::WriteInput("fuzz.solverstate.h5", data, size);
  caffe::fuzz::Guard([&] {
    fixture->solver->Restore(state.c_str());
    fixture->solver->Step(1);
  });
  // A refused file must leave nothing open (Hdf5ReadFile's strong close):
  // an open group keeps its file, and its memory, for the process's life.
  const ssize_t open = H5Fget_obj_count(H5F_OBJ_ALL, H5F_OBJ_ALL);
  if (open != 0)
    caffe::fuzz::Finding(std::to_string(open) +
                         " HDF5 objects left open after the input");
}
