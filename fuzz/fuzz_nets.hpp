// fuzz_nets.hpp: the fixed nets the weight and state targets load into.
#ifndef LEANCAFFE_FUZZ_FUZZ_NETS_HPP_
#define LEANCAFFE_FUZZ_FUZZ_NETS_HPP_

#include <memory>

#include "caffe/sgd_solvers.hpp"

namespace caffe {
namespace fuzz {

// Convolution, BatchNorm, Scale, InnerProduct (with shared weights) and a
// loss: every kind of parameter blob a weights file can hold.
NetParameter WeightsNet();
// An SGD-family solver (`type`) on WeightsNet, snapshotting to the work
// directory in `format`.
std::unique_ptr<Solver<float> > WeightsSolver(
    const std::string& type,
    SolverParameter::SnapshotFormat format = SolverParameter::BINARYPROTO);
// Once per process: the weights files the seed states name
// (fuzz_state_iter_1.caffemodel and .caffemodel.h5) in the work directory.
void EnsureWeightsFiles();

}  // namespace fuzz
}  // namespace caffe

#endif  // LEANCAFFE_FUZZ_FUZZ_NETS_HPP_
