// isolated_run.hpp: runs a function in a child process, so that a crash or
// a hang inside a library reading untrusted input (HDF5 1.10 on a damaged
// file) becomes an error value instead of killing the caller -- a Python
// or Octave host included.
//
// Contract:
//  * RunIsolated(fn, timeout_seconds) forks.  The child restores the
//    default action of the fatal signals (so a crash ends it, not a
//    handler the caller installed), arms an alarm of timeout_seconds, runs
//    fn, and exits.  The result says how it ended: fn returned (kOk),
//    threw caffe::Error (kError, with its message), threw anything else
//    (kError), died of a signal (kCrashed, with the signal), ran past the
//    timeout (kTimedOut), or any other exit (kCrashed: a sanitizer's own
//    report ends a process that way).
//  * fn runs on a copy of the caller's memory: what it writes is lost.  It
//    may only read files into buffers of its own -- no devices (CUDA does
//    not survive fork), no blobs, no locks other threads may hold.
//  * When the process cannot fork (no memory for the page tables, a
//    process limit), the result is kNotRun and the caller decides.
//  * POSIX only; one fork per call, so not for hot paths.
#ifndef CAFFE_UTIL_ISOLATED_RUN_HPP_
#define CAFFE_UTIL_ISOLATED_RUN_HPP_

#include <functional>
#include <string>
#include <vector>

namespace caffe {

struct IsolatedResult {
  enum Kind { kOk, kError, kCrashed, kTimedOut, kNotRun };
  Kind kind = kNotRun;
  // kError: the exception's message.  kCrashed: how the child ended.
  std::string message;
  // kCrashed by a signal: its number, else 0.
  int signal = 0;
};

IsolatedResult RunIsolated(const std::function<void()>& fn,
                           int timeout_seconds);

// Runs `program` with `args` (posix_spawn: no copy of the caller's memory,
// so cheap from a large process) and waits at most timeout_seconds, then
// kills it.  Exit 0 is kOk; a signal is kCrashed (kTimedOut when the
// timeout killed it); any other exit status is kCrashed; a program that
// cannot be started is kNotRun.  It inherits the environment, stdout and
// stderr.
IsolatedResult RunProgram(const std::string& program,
                          const std::vector<std::string>& args,
                          int timeout_seconds);

}  // namespace caffe

#endif  // CAFFE_UTIL_ISOLATED_RUN_HPP_
