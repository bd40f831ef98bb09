// caffe_hdf5_check FILE [NAME...]: walks an HDF5 file whole (util/
// hdf5_walk.hpp) and exits 0.  LeanCaffe's HDF5 readers run it before
// they trust a file: if HDF5 crashes or hangs on the file, it does so in
// this process, and the reader refuses the file instead of dying.  It
// links HDF5 and nothing else, so starting it costs little.  Exit 2: no
// FILE given.
#include <unistd.h>

#include <cstdio>
#include <string>
#include <vector>

#include "caffe/util/hdf5_walk.hpp"

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: caffe_hdf5_check FILE [NAME...]\n");
    return 2;
  }
  const std::vector<std::string> names(argv + 2, argv + argc);
  caffe::hdf5_walk::WalkFile(argv[1], names);
  // _exit, not return: under AddressSanitizer (make test-asan, make fuzz)
  // the leak check at exit would turn HDF5's own leaks on a damaged file
  // into a failed check.  Nothing here outlives the process anyway.
  _exit(0);
}
