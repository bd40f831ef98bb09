// run_command.hpp: runs a shell command for a test and returns its exit
// status, its output (stdout and stderr together) and how long it took.
//
// Contract: the status is the command's exit code, or 128 + the signal
// that ended it.  The caller bounds the run (e.g. with `timeout`).
#ifndef CAFFE_TEST_RUN_COMMAND_HPP_
#define CAFFE_TEST_RUN_COMMAND_HPP_

#include <sys/wait.h>

#include <chrono>
#include <cstdio>
#include <string>

namespace caffe {

struct RunResult {
  int status;
  std::string output;
  double seconds = 0;
};

inline RunResult RunShell(const std::string& command) {
  const auto start = std::chrono::steady_clock::now();
  RunResult r{-1, ""};
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  if (!pipe) return {-1, "popen failed"};
  char buf[4096];
  while (fgets(buf, sizeof(buf), pipe)) r.output += buf;
  const int raw = pclose(pipe);
  r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : 128 + WTERMSIG(raw);
  r.seconds = std::chrono::duration<double>(
                  std::chrono::steady_clock::now() - start)
                  .count();
  return r;
}

}  // namespace caffe

#endif  // CAFFE_TEST_RUN_COMMAND_HPP_
