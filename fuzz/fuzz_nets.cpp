#include "fuzz_nets.hpp"

#include "caffe/solver_factory.hpp"
#include "caffe/util/io.hpp"

namespace caffe {
namespace fuzz {

NetParameter WeightsNet() {
  NetParameter param;
  ReadProtoFromTextString(R"(
name: "fuzz_weights_net"
layer { name: "x" type: "DummyData" top: "x" top: "label"
  dummy_data_param { shape { dim: 2 dim: 2 dim: 5 dim: 5 } shape { dim: 2 }
    data_filler { type: "gaussian" std: 1 }
    data_filler { type: "constant" value: 1 } } }
layer { name: "conv" type: "Convolution" bottom: "x" top: "conv"
  convolution_param { num_output: 3 kernel_size: 3
    weight_filler { type: "gaussian" std: 0.1 } } }
layer { name: "bn" type: "BatchNorm" bottom: "conv" top: "conv" }
layer { name: "scale" type: "Scale" bottom: "conv" top: "conv"
  scale_param { bias_term: true } }
layer { name: "fc1" type: "InnerProduct" bottom: "conv" top: "fc1"
  param { name: "shared_w" } param { name: "shared_b" }
  inner_product_param { num_output: 27
    weight_filler { type: "gaussian" std: 0.1 } } }
layer { name: "fc2" type: "InnerProduct" bottom: "conv" top: "fc2"
  param { name: "shared_w" } param { name: "shared_b" }
  inner_product_param { num_output: 27 } }
layer { name: "sum" type: "Eltwise" bottom: "fc1" bottom: "fc2" top: "sum" }
layer { name: "loss" type: "SoftmaxWithLoss" bottom: "sum" bottom: "label"
  top: "loss" }
)", "fuzz_weights_net", &param);
  param.mutable_state()->set_phase(TRAIN);
  return param;
}

std::unique_ptr<Solver<float> > WeightsSolver(
    const std::string& type, SolverParameter::SnapshotFormat format) {
  SolverParameter s;
  s.set_snapshot_format(format);
  *s.mutable_net_param() = WeightsNet();
  s.set_type(type);
  s.set_base_lr(0.01f);
  s.set_lr_policy("fixed");
  s.set_max_iter(1);
  s.set_snapshot_prefix("fuzz_state");
  if (type == "AdaGrad" || type == "RMSProp") s.set_momentum(0);
  return std::unique_ptr<Solver<float> >(
      SolverRegistry<float>::CreateSolver(s));
}

void EnsureWeightsFiles() {
  static bool done = false;
  if (done) return;
  done = true;
  for (auto format : {SolverParameter::BINARYPROTO, SolverParameter::HDF5}) {
    std::unique_ptr<Solver<float> > solver = WeightsSolver("SGD", format);
    solver->Step(1);
    solver->Snapshot();
  }
}

}  // namespace fuzz
}  // namespace caffe
