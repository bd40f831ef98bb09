// data_parallel_worker: what test_data_parallel.cpp runs under mpirun to
// look inside a data-parallel job through the C++ API, in double
// precision (the caffe tool trains in float).
//
//   data_parallel_worker train SOLVER OUT
//       trains a Solver<double> to max_iter; rank r writes its weights to
//       OUT.rank<r>.caffemodel (binary NetParameter, double_data)
//   data_parallel_worker labels NET ITERATIONS OUT
//       runs the TRAIN net forward ITERATIONS times; rank r writes the
//       labels of each batch, one batch per line, to OUT.rank<r>.txt
//       (random seed 5 on every rank)
//
// An error prints "[rank r] Error: ..." and ends the job with status 1.
#include <fstream>
#include <iostream>
#include <string>

#include "caffe/caffe.hpp"
#include "caffe/parallel/distributed.hpp"

namespace {

std::string RankFile(const std::string& out, const std::string& extension) {
  return out + ".rank" + std::to_string(caffe::Caffe::solver_rank()) +
         extension;
}

int Train(const std::string& solver_file, const std::string& out) {
  caffe::SolverParameter param;
  caffe::ReadSolverParamsFromTextFileOrDie(solver_file, &param);
  caffe::shared_ptr<caffe::Solver<double> > solver(
      caffe::SolverRegistry<double>::CreateSolver(param));
  solver->Solve();
  caffe::NetParameter weights;
  solver->net()->ToProto(&weights, false);
  caffe::WriteProtoToBinaryFile(weights, RankFile(out, ".caffemodel"));
  return 0;
}

int Labels(const std::string& net_file, int iterations,
           const std::string& out) {
  caffe::InitDistributed();
  // The same seed on every rank (a Solver sees to this itself): shuffles
  // then follow one global order.
  caffe::Caffe::set_random_seed(5);
  caffe::Net<double> net(net_file, caffe::TRAIN);
  std::ofstream file(RankFile(out, ".txt"));
  const caffe::shared_ptr<caffe::Blob<double> > label =
      net.blob_by_name("label");
  for (int i = 0; i < iterations; ++i) {
    net.Forward();
    for (int k = 0; k < label->count(); ++k)
      file << (k ? " " : "") << label->cpu_data()[k];
    file << "\n";
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  caffe::GlobalInit(&argc, &argv);
  try {
    const std::string mode = argc > 1 ? argv[1] : "";
    if (mode == "train" && argc == 4) return Train(argv[2], argv[3]);
    if (mode == "labels" && argc == 5)
      return Labels(argv[2], std::stoi(argv[3]), argv[4]);
    std::cerr << "usage: data_parallel_worker train SOLVER OUT | labels NET "
                 "ITERATIONS OUT"
              << std::endl;
    return 2;
  } catch (const std::exception& e) {
    caffe::AbortDistributed(e.what());
  }
}
