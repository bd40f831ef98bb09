// convert_mnist_siamese_data: MNIST-format idx files into a database of
// image pairs for Caffe's siamese example (examples/siamese), as the
// converter of that example does: one record per image, holding two
// randomly chosen images as 2 channels, labelled 1 when they show the
// same class.
//   convert_mnist_siamese_data [--backend=leveldb|lmdb] [--random_seed=N]
//       images labels db_path
#include <gflags/gflags.h>

#include <iostream>

#include "caffe/common.hpp"
#include "caffe/util/mnist_convert.hpp"

DEFINE_string(backend, "leveldb",
              "The backend for storing the result {leveldb, lmdb}; Caffe's "
              "siamese example reads leveldb.");
DEFINE_int32(random_seed, 0, "Seed of the random pairing.");

int main(int argc, char** argv) {
  ::gflags::SetUsageMessage(
      "Pairs MNIST images at random into a leveldb/lmdb of 2-channel "
      "Datums (label 1: same class) for the siamese example.\n"
      "Usage:\n"
      "    convert_mnist_siamese_data [FLAGS] input_image_file "
      "input_label_file output_db_file");
  caffe::GlobalInit(&argc, &argv);
  if (argc != 4) {
    ::gflags::ShowUsageWithFlagsRestrict(argv[0],
                                         "convert_mnist_siamese_data");
    return 1;
  }
  try {
    const int n = caffe::ConvertMnistSiamese(
        argv[1], argv[2], argv[3], FLAGS_backend,
        static_cast<unsigned int>(FLAGS_random_seed));
    LOG(INFO) << "Wrote " << n << " pairs to " << argv[3];
  } catch (const caffe::Error& e) {
    std::cerr << "Error: " << e.what() << std::endl;
    return 1;
  }
  return 0;
}
