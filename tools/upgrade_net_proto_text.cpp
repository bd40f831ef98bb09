// upgrade_net_proto_text IN OUT: rewrites a V0/V1/legacy-input net prototxt
// in the current format.
#include <iostream>

#include "caffe/caffe.hpp"

int main(int argc, char** argv) {
  FLAGS_logtostderr = 1;
  ::google::InitGoogleLogging(argv[0]);
  if (argc != 3) {
    std::cerr << "Usage: upgrade_net_proto_text "
                 "V0_NET_PROTO_TEXT_FILE_IN NET_PROTO_TEXT_FILE_OUT\n";
    return 1;
  }
  try {
    caffe::NetParameter net_param;
    caffe::ReadProtoFromTextFileOrDie(argv[1], &net_param);
    const bool need_upgrade = caffe::NetNeedsUpgrade(net_param);
    if (need_upgrade) {
      caffe::UpgradeNetAsNeeded(argv[1], &net_param);
    } else {
      LOG(INFO) << "File already in latest proto format: " << argv[1];
    }
    caffe::WriteProtoToTextFile(net_param, argv[2]);
    LOG(INFO) << "Wrote upgraded NetParameter text proto to " << argv[2];
  } catch (const std::exception& e) {
    std::cerr << "Error: " << e.what() << std::endl;
    return 1;
  }
  return 0;
}
