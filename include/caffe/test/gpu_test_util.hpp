// gpu_test_util.hpp: what the GPU tests share.
//
// SKIP_WITHOUT_GPU() ends a test as skipped, printing why there is no GPU
// (a CPU-only build, or no device: CUDA's own error), so a run on a
// machine without one says plainly that nothing ran.  ModeScope sets the
// Caffe mode for a scope and restores CPU mode after it.
#ifndef CAFFE_TEST_GPU_TEST_UTIL_HPP_
#define CAFFE_TEST_GPU_TEST_UTIL_HPP_

#include <gtest/gtest.h>

#include <string>

#include "caffe/common.hpp"

namespace caffe {

#define SKIP_WITHOUT_GPU()                                        \
  do {                                                            \
    std::string skip_why_;                                        \
    if (::caffe::Caffe::GpuCount(&skip_why_) == 0)                \
      GTEST_SKIP() << "no GPU test ran: " << skip_why_;           \
  } while (0)

class ModeScope {
 public:
  explicit ModeScope(Caffe::Brew mode) { Caffe::set_mode(mode); }
  ~ModeScope() { Caffe::set_mode(Caffe::CPU); }
};

}  // namespace caffe

#endif  // CAFFE_TEST_GPU_TEST_UTIL_HPP_
