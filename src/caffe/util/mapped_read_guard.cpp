#include "caffe/util/mapped_read_guard.hpp"

#include <setjmp.h>
#include <signal.h>

#include <mutex>

#include "caffe/common.hpp"

namespace caffe {

namespace {

struct Guard {
  sigjmp_buf jump;
  const char* cause = nullptr;  // set by MappedReadFailed
};

thread_local Guard* t_guard = nullptr;
struct sigaction g_previous_segv, g_previous_bus;
std::once_flag g_installed;

void OnFault(int sig, siginfo_t* info, void* context) {
  if (t_guard) siglongjmp(t_guard->jump, sig);
  // Not a guarded read: give the signal back to whoever had it.  Returning
  // re-runs the faulting instruction under the previous disposition.
  sigaction(sig, sig == SIGSEGV ? &g_previous_segv : &g_previous_bus,
            nullptr);
}

void Install() {
  struct sigaction action = {};
  action.sa_sigaction = OnFault;
  action.sa_flags = SA_SIGINFO | SA_NODEFER;
  sigemptyset(&action.sa_mask);
  sigaction(SIGSEGV, &action, &g_previous_segv);
  sigaction(SIGBUS, &action, &g_previous_bus);
}

}  // namespace

void MappedReadFailed(const char* cause) {
  if (!t_guard) return;
  t_guard->cause = cause;
  siglongjmp(t_guard->jump, -1);
}

void GuardMappedRead(const std::string& what,
                     const std::function<void()>& body) {
  std::call_once(g_installed, Install);
  Guard guard;
  Guard* const outer = t_guard;
  const int signal = sigsetjmp(guard.jump, 1);
  if (signal == 0) {
    t_guard = &guard;
    try {
      body();
    } catch (...) {
      t_guard = outer;  // never leave a guard to a frame that is gone
      throw;
    }
    t_guard = outer;
    return;
  }
  t_guard = outer;
  std::string cause;
  if (signal == SIGSEGV)
    cause = "a read went outside the file (corrupted offsets or page "
            "numbers)";
  else if (signal == SIGBUS)
    cause = "a page lies beyond the end of the file (truncated?)";
  else
    cause = std::string("its consistency check failed: ") +
            (guard.cause ? guard.cause : "?");
  throw Error(what + ": " + cause);
}

}  // namespace caffe
