#include "caffe/util/isolated_run.hpp"

#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>
#include <exception>

#include "caffe/common.hpp"

namespace caffe {

namespace {

// Exit codes of the child; anything else means it did not end normally.
const int kExitOk = 0;
const int kExitError = 93;
const int kExitOtherException = 94;
const size_t kMaxMessage = 4096;

[[noreturn]] void ChildExit(int fd, int code, const std::string& message) {
  const std::string m = message.substr(0, kMaxMessage);
  size_t done = 0;
  while (done < m.size()) {
    const ssize_t n = write(fd, m.data() + done, m.size() - done);
    if (n <= 0) break;
    done += static_cast<size_t>(n);
  }
  close(fd);
  _exit(code);  // no atexit handlers, no leak check, no flushing of the
                // parent's buffered streams a second time
}

void RunChild(int fd, const std::function<void()>& fn, int timeout_seconds) {
  for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGALRM})
    signal(sig, SIG_DFL);
  alarm(static_cast<unsigned>(timeout_seconds));
  try {
    fn();
  } catch (const Error& e) {
    ChildExit(fd, kExitError, e.what());
  } catch (const std::exception& e) {
    ChildExit(fd, kExitOtherException, e.what());
  } catch (...) {
    ChildExit(fd, kExitOtherException, "an exception of unknown type");
  }
  ChildExit(fd, kExitOk, "");
}

void Describe(int status, IsolatedResult* result) {
  if (WIFSIGNALED(status)) {
    result->signal = WTERMSIG(status);
    result->kind = IsolatedResult::kCrashed;
    result->message = std::string("killed by signal ") +
                      std::to_string(result->signal) + " (" +
                      strsignal(result->signal) + ")";
  } else if (WIFEXITED(status) && WEXITSTATUS(status) == kExitOk) {
    result->kind = IsolatedResult::kOk;
  } else {
    result->kind = IsolatedResult::kCrashed;
    result->message =
        "exited with status " + std::to_string(WEXITSTATUS(status));
  }
}

}  // namespace

IsolatedResult RunIsolated(const std::function<void()>& fn,
                           int timeout_seconds) {
  IsolatedResult result;
  int fds[2];
  if (pipe(fds) != 0) return result;
  const pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    return result;
  }
  if (pid == 0) {
    close(fds[0]);
    RunChild(fds[1], fn, timeout_seconds);
  }
  close(fds[1]);
  std::string message;
  char buf[512];
  for (;;) {
    const ssize_t n = read(fds[0], buf, sizeof(buf));
    if (n > 0) {
      message.append(buf, static_cast<size_t>(n));
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else {
      break;
    }
  }
  close(fds[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) {
      result.kind = IsolatedResult::kCrashed;
      result.message = std::string("cannot wait for it: ") + strerror(errno);
      return result;
    }
  }
  Describe(status, &result);
  if (result.signal == SIGALRM) {
    result.kind = IsolatedResult::kTimedOut;
  } else if (WIFEXITED(status) && (WEXITSTATUS(status) == kExitError ||
                                   WEXITSTATUS(status) ==
                                       kExitOtherException)) {
    result.kind = IsolatedResult::kError;
    result.message = message;
  }
  return result;
}

extern "C" char** environ;  // NOLINT: posix_spawn passes it on

IsolatedResult RunProgram(const std::string& program,
                          const std::vector<std::string>& args,
                          int timeout_seconds) {
  IsolatedResult result;
  std::vector<char*> argv;
  argv.push_back(const_cast<char*>(program.c_str()));
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  pid_t pid;
  if (posix_spawn(&pid, program.c_str(), nullptr, nullptr, argv.data(),
                  environ) != 0)
    return result;
  // Polls, sleeping a little longer each time: most checks end within a
  // few milliseconds.
  timespec pause_for = {0, 200 * 1000};
  double waited = 0;
  int status = 0;
  for (;;) {
    const pid_t done = waitpid(pid, &status, WNOHANG);
    if (done == pid) break;
    if (done < 0 && errno != EINTR) {
      result.kind = IsolatedResult::kCrashed;
      result.message = std::string("cannot wait for it: ") + strerror(errno);
      return result;
    }
    if (waited >= timeout_seconds) {
      kill(pid, SIGKILL);
      while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
      }
      result.kind = IsolatedResult::kTimedOut;
      result.message = "killed after " + std::to_string(timeout_seconds) + " s";
      return result;
    }
    nanosleep(&pause_for, nullptr);
    waited += pause_for.tv_sec + pause_for.tv_nsec * 1e-9;
    if (pause_for.tv_nsec < 50 * 1000 * 1000) pause_for.tv_nsec *= 2;
  }
  Describe(status, &result);
  return result;
}

}  // namespace caffe
