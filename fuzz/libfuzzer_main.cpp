// libFuzzer's entry points for a target executable built from one target
// file (make fuzz): the only registered target runs each input.
#include "fuzz_target.hpp"

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  caffe::fuzz::Setup();
  if (caffe::fuzz::Targets().size() != 1)
    caffe::fuzz::Finding("a fuzz executable must hold exactly one target");
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  caffe::fuzz::Targets().begin()->second(data, size);
  return 0;
}
