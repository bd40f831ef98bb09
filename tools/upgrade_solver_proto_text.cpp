// upgrade_solver_proto_text IN OUT: rewrites a solver prototxt that uses the
// deprecated solver_type enum with the `type` string.
#include <iostream>

#include "caffe/caffe.hpp"

int main(int argc, char** argv) {
  FLAGS_logtostderr = 1;
  ::google::InitGoogleLogging(argv[0]);
  if (argc != 3) {
    std::cerr << "Usage: upgrade_solver_proto_text "
                 "OLD_SOLVER_PROTO_FILE_IN NEW_SOLVER_PROTO_FILE_OUT\n";
    return 1;
  }
  try {
    caffe::SolverParameter solver_param;
    caffe::ReadProtoFromTextFileOrDie(argv[1], &solver_param);
    if (caffe::SolverNeedsTypeUpgrade(solver_param)) {
      caffe::UpgradeSolverAsNeeded(argv[1], &solver_param);
    } else {
      LOG(INFO) << "File already in latest proto format: " << argv[1];
    }
    caffe::WriteProtoToTextFile(solver_param, argv[2]);
    LOG(INFO) << "Wrote upgraded SolverParameter text proto to " << argv[2];
  } catch (const std::exception& e) {
    std::cerr << "Error: " << e.what() << std::endl;
    return 1;
  }
  return 0;
}
