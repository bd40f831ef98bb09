// convert_imageset: stores a list of images as Datums in a leveldb/lmdb
// database for the Data layer, as Caffe's tool of the same name.
//   convert_imageset [FLAGS] ROOTFOLDER/ LISTFILE DB_NAME
// LISTFILE holds "subfolder1/file1.JPEG 7" lines; paths are relative to
// ROOTFOLDER (which therefore usually ends in '/').
#include <gflags/gflags.h>

#include <iostream>

#include "caffe/common.hpp"
#include "caffe/util/dataset_tools.hpp"

DEFINE_bool(gray, false,
            "When this option is on, treat images as grayscale ones");
DEFINE_bool(shuffle, false,
            "Randomly shuffle the order of images and their labels");
DEFINE_string(backend, "lmdb",
              "The backend {lmdb, leveldb} for storing the result");
DEFINE_int32(resize_width, 0, "Width images are resized to");
DEFINE_int32(resize_height, 0, "Height images are resized to");
DEFINE_bool(check_size, false,
            "When this option is on, check that all the datum have the same "
            "size");
DEFINE_bool(encoded, false,
            "When this option is on, the encoded image will be save in datum");
DEFINE_string(encode_type, "",
              "Optional: What type should we encode the image as "
              "('png','jpg',...).");

int main(int argc, char** argv) {
  ::gflags::SetUsageMessage(
      "Convert a set of images to the leveldb/lmdb\n"
      "format used as input for Caffe.\n"
      "Usage:\n"
      "    convert_imageset [FLAGS] ROOTFOLDER/ LISTFILE DB_NAME\n"
      "The ImageNet dataset for the training demo is at\n"
      "    http://www.image-net.org/download-images\n");
  caffe::GlobalInit(&argc, &argv);
  if (argc < 4) {
    ::gflags::ShowUsageWithFlagsRestrict(argv[0], "convert_imageset");
    return 1;
  }
  caffe::ConvertImagesetOptions options;
  options.gray = FLAGS_gray;
  options.shuffle = FLAGS_shuffle;
  options.backend = FLAGS_backend;
  options.resize_width = FLAGS_resize_width;
  options.resize_height = FLAGS_resize_height;
  options.check_size = FLAGS_check_size;
  options.encoded = FLAGS_encoded;
  options.encode_type = FLAGS_encode_type;
  try {
    caffe::ConvertImageset(argv[1], argv[2], argv[3], options);
  } catch (const caffe::Error& e) {
    std::cerr << "Error: " << e.what() << std::endl;
    return 1;
  }
  return 0;
}
