// test_data_helpers.hpp: scratch directories and small input files for the
// data-layer, database and tool tests.
//
// Contract: TempDir makes a fresh directory with mkdtemp under /tmp and
// removes it with everything in it when it goes out of scope, so tests leave
// nothing behind even when an expectation fails.  WriteIdxImages/Labels
// write MNIST-format idx files (big-endian header), plain or gzip-compressed.
#ifndef CAFFE_TEST_TEST_DATA_HELPERS_HPP_
#define CAFFE_TEST_TEST_DATA_HELPERS_HPP_

#include <zlib.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "caffe/common.hpp"

namespace caffe {
namespace test {

class TempDir {
 public:
  TempDir() {
    char tmpl[] = "/tmp/leancaffe_test_XXXXXX";
    char* made = mkdtemp(tmpl);
    CAFFE_CHECK(made != nullptr) << "mkdtemp failed";
    path_ = made;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const string& path() const { return path_; }
  // A path for a file or directory inside the scratch directory.
  string file(const string& name) const { return path_ + "/" + name; }

 private:
  string path_;
  DISABLE_COPY_AND_ASSIGN(TempDir);
};

inline void AppendBigEndian32(uint32_t v, string* out) {
  out->push_back(static_cast<char>((v >> 24) & 0xff));
  out->push_back(static_cast<char>((v >> 16) & 0xff));
  out->push_back(static_cast<char>((v >> 8) & 0xff));
  out->push_back(static_cast<char>(v & 0xff));
}

inline void WriteBytes(const string& filename, const string& bytes,
                       bool gzip) {
  if (gzip) {
    gzFile f = gzopen(filename.c_str(), "wb");
    CAFFE_CHECK(f != nullptr) << "cannot write " << filename;
    gzwrite(f, bytes.data(), static_cast<unsigned int>(bytes.size()));
    gzclose(f);
  } else {
    std::ofstream f(filename.c_str(), std::ios::binary);
    f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  }
}

// num images of rows x cols; pixels[i] holds image i's rows*cols bytes.
inline void WriteIdxImages(const string& filename,
                           const vector<string>& pixels, int rows, int cols,
                           bool gzip = false, uint32_t magic = 2051) {
  string bytes;
  AppendBigEndian32(magic, &bytes);
  AppendBigEndian32(static_cast<uint32_t>(pixels.size()), &bytes);
  AppendBigEndian32(static_cast<uint32_t>(rows), &bytes);
  AppendBigEndian32(static_cast<uint32_t>(cols), &bytes);
  for (const string& p : pixels) bytes += p;
  WriteBytes(filename, bytes, gzip);
}

inline void WriteIdxLabels(const string& filename,
                           const vector<int>& labels, bool gzip = false,
                           uint32_t magic = 2049) {
  string bytes;
  AppendBigEndian32(magic, &bytes);
  AppendBigEndian32(static_cast<uint32_t>(labels.size()), &bytes);
  for (int l : labels) bytes.push_back(static_cast<char>(l));
  WriteBytes(filename, bytes, gzip);
}

}  // namespace test
}  // namespace caffe

#endif  // CAFFE_TEST_TEST_DATA_HELPERS_HPP_
