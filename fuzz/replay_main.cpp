// fuzz_replay: runs saved fuzz inputs through the targets in the normal
// build, so every input that ever crashed or hung stays fixed (ctest runs
// it per target).
//   fuzz_replay <target> <file or directory>...
// Prints each input before running it, so a crash names its file.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <vector>

#include "fuzz_target.hpp"

namespace fs = std::filesystem;

int main(int argc, char** argv) {
  if (argc < 3) {
    std::cerr << "usage: fuzz_replay <target> <file or dir>...\ntargets:";
    for (const auto& t : caffe::fuzz::Targets()) std::cerr << " " << t.first;
    std::cerr << "\n";
    return 2;
  }
  auto it = caffe::fuzz::Targets().find(argv[1]);
  if (it == caffe::fuzz::Targets().end()) {
    std::cerr << "unknown target " << argv[1] << "\n";
    return 2;
  }
  std::vector<fs::path> inputs;
  for (int i = 2; i < argc; ++i) {
    if (fs::is_directory(argv[i])) {
      for (const auto& e : fs::directory_iterator(argv[i]))
        if (e.is_regular_file()) inputs.push_back(e.path());
    } else if (fs::exists(argv[i])) {
      inputs.push_back(argv[i]);
    }
  }
  std::sort(inputs.begin(), inputs.end());
  if (inputs.empty()) {
    std::cerr << "no inputs for " << argv[1] << "\n";
    return 1;
  }
  // Absolute paths: Setup() changes the working directory.
  for (fs::path& p : inputs) p = fs::absolute(p);
  caffe::fuzz::Setup();
  for (const fs::path& p : inputs) {
    std::cout << argv[1] << ": " << p.filename().string() << std::endl;
    std::ifstream in(p, std::ios::binary);
    const std::vector<char> bytes((std::istreambuf_iterator<char>(in)),
                                  std::istreambuf_iterator<char>());
    it->second(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  }
  std::cout << inputs.size() << " inputs replayed through " << argv[1]
            << ", no finding" << std::endl;
  return 0;
}
