// extract_features: runs a trained net and stores the values of chosen blobs
// for every input item in databases, as Caffe's tool of the same name.
//   extract_features pretrained_net_param feature_extraction_proto_file
//     blob_name1[,name2,...] save_feature_dataset_name1[,name2,...]
//     num_mini_batches db_type [CPU/GPU] [DEVICE_ID=0]
#include <gflags/gflags.h>

#include <cstdlib>
#include <cstring>
#include <iostream>

#include "caffe/common.hpp"
#include "caffe/util/dataset_tools.hpp"

int main(int argc, char** argv) {
  ::gflags::SetUsageMessage(
      "This program takes in a trained network and an input data layer, and "
      "then\n"
      "extract features of the input data produced by the net.\n"
      "Usage: extract_features  pretrained_net_param"
      "  feature_extraction_proto_file  extract_feature_blob_name1[,name2,...]"
      "  save_feature_dataset_name1[,name2,...]  num_mini_batches  db_type"
      "  [CPU/GPU] [DEVICE_ID=0]\n"
      "Note: you can extract multiple features in one pass by specifying\n"
      "multiple feature blob names and dataset names separated by ','.\n"
      "The names cannot contain white space characters and the number of "
      "blobs\n"
      "and datasets must be equal.");
  caffe::GlobalInit(&argc, &argv);
  const int num_required_args = 7;
  if (argc < num_required_args) {
    ::gflags::ShowUsageWithFlagsRestrict(argv[0], "extract_features");
    return 1;
  }
  try {
    if (argc > num_required_args &&
        std::strcmp(argv[num_required_args], "GPU") == 0) {
      throw caffe::Error(
          "GPU: this LeanCaffe build has no GPU support (CPU only); pass CPU "
          "or nothing");
    }
    LOG(INFO) << "Using CPU";
    caffe::Caffe::set_mode(caffe::Caffe::CPU);
    const int num_mini_batches = std::atoi(argv[5]);
    caffe::ExtractFeatures(argv[1], argv[2], caffe::SplitCommaList(argv[3]),
                           caffe::SplitCommaList(argv[4]), num_mini_batches,
                           argv[6]);
  } catch (const caffe::Error& e) {
    std::cerr << "Error: " << e.what() << std::endl;
    return 1;
  }
  return 0;
}
