// temp_dir.hpp: a scratch directory for one test, removed afterwards, and a
// scoped change of the working directory (restored even if the test fails).
#ifndef CAFFE_TEST_TEMP_DIR_HPP_
#define CAFFE_TEST_TEMP_DIR_HPP_

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>

namespace caffe {

class TempDir {
 public:
  TempDir() {
    char tmpl[] = "/tmp/leancaffe_test_XXXXXX";
    char* p = mkdtemp(tmpl);
    path_ = p ? p : "";
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }
  std::string file(const std::string& name) const { return path_ + "/" + name; }
  // Copies every regular file of `dir` (recursively) into this directory.
  void CopyFrom(const std::string& dir) const {
    std::filesystem::copy(dir, path_,
                          std::filesystem::copy_options::recursive |
                              std::filesystem::copy_options::overwrite_existing);
    // Fixture files may be read-only; tests write beside them.
    for (auto& e : std::filesystem::recursive_directory_iterator(path_))
      std::filesystem::permissions(e.path(), std::filesystem::perms::owner_write,
                                   std::filesystem::perm_options::add);
  }

 private:
  std::string path_;
};

class ScopedChdir {
 public:
  explicit ScopedChdir(const std::string& dir)
      : old_(std::filesystem::current_path()) {
    std::filesystem::current_path(dir);
  }
  ~ScopedChdir() { std::filesystem::current_path(old_); }

 private:
  std::filesystem::path old_;
};

}  // namespace caffe

#endif  // CAFFE_TEST_TEMP_DIR_HPP_
