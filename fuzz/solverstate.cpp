// A binary .solverstate as `caffe train --snapshot` restores it: the
// state's iteration, step and history blobs, and the weights file it
// names (tried beside the working directory and the state).  The first
// input byte picks the solver type, since history layouts differ.
#include <string>

#include "caffe/net.hpp"
#include "fuzz_nets.hpp"
#include "fuzz_target.hpp"

LEANCAFFE_FUZZ_TARGET(solverstate) {
  if (size < 1) return;
  const std::string bytes(reinterpret_cast<const char*>(data) + 1, size - 1);
  if (!caffe::fuzz::SafePaths(bytes)) return;
  static const char* kTypes[] = {"SGD", "Nesterov", "AdaGrad",
                                 "RMSProp", "AdaDelta", "Adam"};
  const std::string type = kTypes[data[0] % 6];
  const std::string path =
      caffe::fuzz::WriteInput("fuzz.solverstate", data + 1, size - 1);
  caffe::fuzz::EnsureWeightsFiles();
  caffe::fuzz::Guard([&] {
    std::unique_ptr<caffe::Solver<float> > solver =
        caffe::fuzz::WeightsSolver(type);
    solver->Restore(path.c_str());
    solver->Step(1);
  });
}
