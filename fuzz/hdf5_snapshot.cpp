// An HDF5 file as the HDF5 snapshot readers take it: weights
// (.caffemodel.h5 through CopyTrainedLayersFrom) and solver state
// (.solverstate.h5 through Solver::Restore, which also loads the weights
// file it names).
#include <string>

#include "caffe/net.hpp"
#include "fuzz_nets.hpp"
#include "fuzz_target.hpp"

LEANCAFFE_FUZZ_TARGET(hdf5_snapshot) {
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  if (!caffe::fuzz::SafePaths(bytes)) return;
  caffe::fuzz::EnsureWeightsFiles();
  const std::string weights =
      caffe::fuzz::WriteInput("fuzz.caffemodel.h5", data, size);
  caffe::fuzz::Guard([&] {
    caffe::Net<float> net(caffe::fuzz::WeightsNet());
    net.CopyTrainedLayersFrom(weights);
    net.Forward();
  });
  const std::string state =
      caffe::fuzz::WriteInput("fuzz.solverstate.h5", data, size);
  caffe::fuzz::Guard([&] {
    std::unique_ptr<caffe::Solver<float> > solver =
        caffe::fuzz::WeightsSolver("Adam");
    solver->Restore(state.c_str());
    solver->Step(1);
  });
}
