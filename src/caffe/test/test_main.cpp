// Runs every test; logs go to stderr only at WARNING and above so that the
// test output stays readable.
#include <gtest/gtest.h>

#include "caffe/common.hpp"

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  ::google::InitGoogleLogging(argv[0]);
  FLAGS_logtostderr = 1;
  FLAGS_minloglevel = 1;
  caffe::Caffe::set_mode(caffe::Caffe::CPU);
  return RUN_ALL_TESTS();
}
