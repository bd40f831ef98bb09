// caffe_hdf5_check FILE [NAME...]: walks an HDF5 file whole (util/
// hdf5_walk.hpp) and exits 0.  LeanCaffe's HDF5 readers run it before
// they trust a file: if HDF5 crashes or hangs on the file, it does so in
// this process, and the reader refuses the file instead of dying.  It
// links HDF5 and nothing else, so starting it costs little.  Exit 2: no
// FILE given.
#include <sys/resource.h>
#include <unistd.h>

#include <cstdio>
#include <string>
#include <vector>

#include "caffe/util/hdf5_walk.hpp"

// A damaged file can make HDF5 allocate without end (a fuzz finding took
// all 24 GB of the machine before the kernel killed it).  The walk needs
// little: at most 64 MiB of values at a time and HDF5's caches.  Past
// kMemoryLimit the check fails, and the reader refuses the file.
const rlim_t kMemoryLimit = rlim_t(2) << 30;

#if defined(__SANITIZE_ADDRESS__)
#define CAFFE_HDF5_CHECK_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CAFFE_HDF5_CHECK_ASAN 1
#endif
#endif

#ifdef CAFFE_HDF5_CHECK_ASAN
// AddressSanitizer reserves terabytes of address space, so the limit is on
// the resident set instead (make test-asan, make fuzz).
extern "C" const char* __asan_default_options() {
  return "hard_rss_limit_mb=2048";
}
#endif

// /proc/self/status's VmHWM in bytes, 0 when it cannot be read.
rlim_t PeakResidentBytes() {
  std::FILE* f = std::fopen("/proc/self/status", "r");
  if (!f) return 0;
  char line[256];
  unsigned long long kb = 0;
  while (std::fgets(line, sizeof(line), f))
    if (std::sscanf(line, "VmHWM: %llu kB", &kb) == 1) break;
  std::fclose(f);
  return static_cast<rlim_t>(kb) * 1024;
}

int main(int argc, char** argv) {
#ifndef CAFFE_HDF5_CHECK_ASAN
  const rlimit limit = {kMemoryLimit, kMemoryLimit};
  setrlimit(RLIMIT_AS, &limit);
#endif
  if (argc < 2) {
    std::fprintf(stderr, "usage: caffe_hdf5_check FILE [NAME...]\n");
    return 2;
  }
  const std::vector<std::string> names(argv + 2, argv + argc);
  caffe::hdf5_walk::WalkFile(argv[1], names);
  // HDF5 fails gracefully when an allocation is refused, so a walk that
  // ran into the limit can end normally; the reader, without a limit,
  // would then take the machine's memory.  Near the limit is a failure.
  // VmHWM, the peak of this program's own memory: getrusage's ru_maxrss
  // keeps the peak of the process that spawned it (exec preserves it).
  if (PeakResidentBytes() > kMemoryLimit / 4 * 3)
    _exit(caffe::hdf5_walk::kExitOutOfMemory);
  // _exit, not return: under AddressSanitizer (make test-asan, make fuzz)
  // the leak check at exit would turn HDF5's own leaks on a damaged file
  // into a failed check.  Nothing here outlives the process anyway.
  _exit(0);
}
