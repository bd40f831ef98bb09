// convert_mnist_data: converts MNIST-format idx files (plain or .gz) into a
// database of Datums, as Caffe's tool of the same name.
//   convert_mnist_data [--backend=lmdb|leveldb] images labels db_path
#include <gflags/gflags.h>

#include <iostream>

#include "caffe/common.hpp"
#include "caffe/util/mnist_convert.hpp"

DEFINE_string(backend, "lmdb",
              "The backend for storing the result {lmdb, leveldb}");

int main(int argc, char** argv) {
  ::gflags::SetUsageMessage(
      "Converts the MNIST dataset to the leveldb/lmdb format used by Caffe to load "
      "data.\n"
      "Usage:\n"
      "    convert_mnist_data [FLAGS] input_image_file input_label_file "
      "output_db_file\n"
      "The MNIST dataset could be downloaded at "
      "http://yann.lecun.com/exdb/mnist/\n"
      "Plain and gzip-compressed idx files are both accepted.");
  caffe::GlobalInit(&argc, &argv);
  if (argc != 4) {
    ::gflags::ShowUsageWithFlagsRestrict(argv[0], "convert_mnist_data");
    return 1;
  }
  try {
    caffe::ConvertMnist(argv[1], argv[2], argv[3], FLAGS_backend);
  } catch (const caffe::Error& e) {
    std::cerr << "Error: " << e.what() << std::endl;
    return 1;
  }
  return 0;
}
