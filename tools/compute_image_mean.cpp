// compute_image_mean: averages all Datums of a database into a mean image
// (a 1 x C x H x W BlobProto usable as transform_param.mean_file) and logs
// the per-channel means, as Caffe's tool of the same name.
//   compute_image_mean [--backend=lmdb] input_db [output_file]
#include <gflags/gflags.h>

#include <iostream>

#include "caffe/common.hpp"
#include "caffe/util/io.hpp"
#include "caffe/util/mnist_convert.hpp"

DEFINE_string(backend, "lmdb",
              "The backend {leveldb, lmdb} containing the images");

int main(int argc, char** argv) {
  ::gflags::SetUsageMessage(
      "Compute the mean_image of a set of images given by a leveldb/lmdb\n"
      "Usage:\n"
      "    compute_image_mean [FLAGS] INPUT_DB [OUTPUT_FILE]\n");
  caffe::GlobalInit(&argc, &argv);
  if (argc < 2 || argc > 3) {
    ::gflags::ShowUsageWithFlagsRestrict(argv[0], "compute_image_mean");
    return 1;
  }
  try {
    caffe::BlobProto mean;
    caffe::ComputeImageMean(argv[1], FLAGS_backend, &mean);
    if (argc == 3) {
      LOG(INFO) << "Write to " << argv[2];
      caffe::WriteProtoToBinaryFile(mean, argv[2]);
    }
  } catch (const caffe::Error& e) {
    std::cerr << "Error: " << e.what() << std::endl;
    return 1;
  }
  return 0;
}
