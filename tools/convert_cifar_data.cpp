// convert_cifar_data: converts the CIFAR-10 binary batches into train and
// test databases, as Caffe's tool of the same name.
//   convert_cifar_data input_folder output_folder db_type
// Reads data_batch_1..5.bin and test_batch.bin from input_folder and writes
// output_folder/cifar10_train_<db_type> and cifar10_test_<db_type>.
#include <gflags/gflags.h>

#include <iostream>

#include "caffe/common.hpp"
#include "caffe/util/dataset_tools.hpp"

int main(int argc, char** argv) {
  ::gflags::SetUsageMessage(
      "This script converts the CIFAR dataset to the leveldb/lmdb format "
      "used\n"
      "by caffe to perform classification.\n"
      "Usage:\n"
      "    convert_cifar_data input_folder output_folder db_type\n"
      "Where the input folder should contain the binary batch files.\n"
      "The CIFAR dataset could be downloaded at\n"
      "    http://www.cs.toronto.edu/~kriz/cifar.html\n"
      "You should gunzip them after downloading.");
  caffe::GlobalInit(&argc, &argv);
  if (argc != 4) {
    ::gflags::ShowUsageWithFlagsRestrict(argv[0], "convert_cifar_data");
    return 1;
  }
  try {
    caffe::ConvertCifar(argv[1], argv[2], argv[3]);
  } catch (const caffe::Error& e) {
    std::cerr << "Error: " << e.what() << std::endl;
    return 1;
  }
  return 0;
}
