// The shared pieces of every fuzz target (see fuzz_target.hpp).
#include <glog/logging.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <stdexcept>

#include "caffe/common.hpp"
#include "caffe/util/host_memory_room.hpp"
#include "fuzz_target.hpp"

namespace caffe {
namespace fuzz {

std::map<std::string, TargetFn>& Targets() {
  static std::map<std::string, TargetFn> targets;
  return targets;
}

void Setup() {
  static bool done = false;
  if (done) return;
  done = true;
  FLAGS_minloglevel = 3;  // errors are values here, not log lines
  FLAGS_logtostderr = 1;
  if (!google::IsGoogleLoggingInitialized())
    google::InitGoogleLogging("leancaffe_fuzz");
  char dir[] = "/tmp/leancaffe_fuzz_XXXXXX";
  if (!mkdtemp(dir) || chdir(dir) != 0) Finding("cannot make a work dir");
  SetHostMemoryLimit(kFuzzMemoryLimit);
}

void Guard(const std::function<void()>& body) {
  try {
    body();
  } catch (const InternalError& e) {
    Finding(std::string("caffe::InternalError: ") + e.what());
  } catch (const Error& e) {
    // Bad input, refused with a message: what should happen.
    static const bool verbose = std::getenv("LEANCAFFE_FUZZ_VERBOSE");
    if (verbose) std::cerr << "refused: " << e.what() << std::endl;
  } catch (const std::exception& e) {
    Finding(std::string("an exception that is not caffe::Error: ") +
            e.what());
  }
}

void Finding(const std::string& what) {
  std::cerr << "FUZZ FINDING: " << what << std::endl;
  std::abort();
}

bool SafePaths(const std::string& text) {
  for (const char* bad : {"/dev/", "/proc/", "/sys/"})
    if (text.find(bad) != std::string::npos) return false;
  return true;
}

std::string WriteInput(const std::string& name, const uint8_t* data,
                       size_t size) {
  std::ofstream out(name, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(data), size);
  if (!out) Finding("cannot write " + name);
  return name;
}

}  // namespace fuzz
}  // namespace caffe
