// A solver prototxt as `caffe train` reads it: text parse, upgrade of the
// legacy solver_type, solver construction for its type, two iterations
// with tests and a snapshot.  The nets are replaced by a fixed small one
// (net prototxts have their own target), counts are clamped so a run
// stays short, and snapshots go to the work directory.
#include <algorithm>
#include <memory>
#include <string>

#include "caffe/sgd_solvers.hpp"
#include "caffe/solver_factory.hpp"
#include "caffe/util/io.hpp"
#include "caffe/util/upgrade_proto.hpp"
#include "fuzz_target.hpp"

namespace {

const char* kNet = R"(
name: "fuzz_solver_net"
layer { name: "x" type: "DummyData" top: "x" top: "label"
  dummy_data_param { shape { dim: 4 dim: 6 } shape { dim: 4 }
    data_filler { type: "gaussian" std: 1 }
    data_filler { type: "constant" value: 1 } } }
layer { name: "fc" type: "InnerProduct" bottom: "x" top: "fc"
  inner_product_param { num_output: 3
    weight_filler { type: "gaussian" std: 0.1 } } }
layer { name: "bn" type: "BatchNorm" bottom: "fc" top: "fc" }
layer { name: "loss" type: "SoftmaxWithLoss" bottom: "fc" bottom: "label"
  top: "loss" }
layer { name: "acc" type: "Accuracy" bottom: "fc" bottom: "label"
  top: "acc" include { phase: TEST } }
)";

}  // namespace

LEANCAFFE_FUZZ_TARGET(solver_prototxt) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  caffe::fuzz::Guard([&] {
    caffe::SolverParameter param;
    caffe::ReadProtoFromTextString(text, "fuzz_solver.prototxt", &param);
    caffe::UpgradeSolverAsNeeded("fuzz_solver.prototxt", &param);
    param.clear_net();
    param.clear_train_net();
    param.clear_test_net();
    param.clear_train_net_param();
    param.clear_test_net_param();
    caffe::ReadProtoFromTextString(kNet, "fuzz_net", param.mutable_net_param());
    param.set_max_iter(std::min(param.max_iter(), 2));
    param.set_iter_size(std::max(1, std::min(param.iter_size(), 3)));
    param.set_average_loss(std::max(1, std::min(param.average_loss(), 3)));
    for (int i = 0; i < param.test_iter_size(); ++i)
      param.set_test_iter(i, std::min(param.test_iter(i), 2));
    param.set_snapshot_prefix("fuzz_snap");
    param.clear_solver_mode();
    param.clear_device_id();
    std::unique_ptr<caffe::Solver<float> > solver(
        caffe::SolverRegistry<float>::CreateSolver(param));
    solver->Solve();
    if (param.max_iter() > 0) solver->Snapshot();
  });
}
