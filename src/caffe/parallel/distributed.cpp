// The process-level side of data-parallel jobs: is this an mpirun launch,
// the communicator, the collective watchdog and ending the whole job.
#include "caffe/parallel/distributed.hpp"

#include <glog/logging.h>
#include <unistd.h>

#include <chrono>
#include <ctime>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <algorithm>
#include <mutex>
#include <thread>

#include "caffe/common.hpp"

namespace caffe {

#ifdef USE_MPI
// Defined in mpi_communicator.cpp: starts MPI.
Communicator* StartMpiCommunicator();
#endif

namespace {

int EnvInt(const char* name, int fallback) {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0') return fallback;
  return std::atoi(v);
}

// Open MPI's mpirun, PMIx launchers and the PMI-1/2 family (MPICH, Slurm).
const char* const kSizeVariables[] = {"OMPI_COMM_WORLD_SIZE", "PMIX_SIZE",
                                      "PMI_SIZE"};
const char* const kRankVariables[] = {"OMPI_COMM_WORLD_RANK", "PMIX_RANK",
                                      "PMI_RANK"};

Communicator* g_communicator = nullptr;
thread_local Communicator* t_communicator = nullptr;
bool g_started = false;
double g_timeout_seconds = 600;

// Shared with the watchdog thread; never freed (the detached thread may
// still wait on it while the process exits).
struct WatchState {
  std::mutex mutex;
  std::condition_variable changed;
  bool active = false;
  unsigned long generation = 0;
  std::string what;
  std::chrono::steady_clock::time_point deadline;
  bool thread_started = false;
};
WatchState* g_watch = new WatchState();

void WatchdogLoop() {
  WatchState& w = *g_watch;
  std::unique_lock<std::mutex> lock(w.mutex);
  for (;;) {
    w.changed.wait(lock, [&] { return w.active; });
    const unsigned long generation = w.generation;
    const auto deadline = w.deadline;
    const bool done = w.changed.wait_until(lock, deadline, [&] {
      return !w.active || w.generation != generation;
    });
    if (done) continue;
    std::fprintf(stderr,
                 "[rank %d] Error: %s did not finish within %g s "
                 "(--dist_timeout): a peer stalled or died\n",
                 LaunchRank(), w.what.c_str(), g_timeout_seconds);
    std::fflush(stderr);
    _exit(1);  // mpirun ends the other ranks when one exits non-zero
  }
}

// Ranks other than 0 log warnings and errors only, each line prefixed
// with the rank, so that the job's log reads as one.
class RankLogSink : public google::LogSink {
 public:
  explicit RankLogSink(int rank) : rank_(rank) {}
  void send(google::LogSeverity severity, const char* full_filename,
            const char* base_filename, int line, const struct ::tm* tm_time,
            const char* message, size_t message_len) override {
    static const char kLetters[] = "IWEF";
    const char letter = kLetters[severity >= 0 && severity < 4 ? severity : 0];
    std::fprintf(stderr, "[rank %d] %c%02d%02d %02d:%02d:%02d %s:%d] %.*s\n",
                 rank_, letter, tm_time->tm_mon + 1, tm_time->tm_mday,
                 tm_time->tm_hour, tm_time->tm_min, tm_time->tm_sec,
                 base_filename, line, static_cast<int>(message_len), message);
  }

 private:
  int rank_;
};

void ConfigureRankLogging(int rank) {
  if (rank == 0) return;
  FLAGS_minloglevel = std::max(FLAGS_minloglevel, 1);
  FLAGS_logtostderr = false;
  FLAGS_alsologtostderr = false;
  FLAGS_stderrthreshold = google::NUM_SEVERITIES;
  for (int severity = 0; severity < google::NUM_SEVERITIES; ++severity)
    google::SetLogDestination(severity, "");
  static RankLogSink* sink = new RankLogSink(rank);
  google::AddLogSink(sink);
}

}  // namespace

bool LaunchedByMpirun() {
  for (const char* name : kSizeVariables)
    if (std::getenv(name) != nullptr) return true;
  return false;
}

int LaunchSize() {
  for (const char* name : kSizeVariables) {
    const int v = EnvInt(name, -1);
    if (v > 0) return v;
  }
  return 1;
}

int LaunchRank() {
  for (const char* name : kRankVariables) {
    const int v = EnvInt(name, -1);
    if (v >= 0) return v;
  }
  return 0;
}

int LaunchLocalRank() {
  for (const char* name : {"OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID",
                           "SLURM_LOCALID"}) {
    const int v = EnvInt(name, -1);
    if (v >= 0) return v;
  }
  return LaunchRank();
}

bool DistributedSupported() {
#ifdef USE_MPI
  return true;
#else
  return false;
#endif
}

Communicator* InitDistributed() {
  if (t_communicator) return t_communicator;
  if (g_started) return g_communicator;
  if (!LaunchedByMpirun()) return nullptr;
#ifdef USE_MPI
  g_communicator = StartMpiCommunicator();
#else
  if (LaunchSize() > 1)
    throw Error("launched by mpirun with " + std::to_string(LaunchSize()) +
                " ranks, but this LeanCaffe build has no MPI support "
                "(build with libopenmpi-dev installed and -DUSE_MPI=ON)");
  g_started = true;
  return nullptr;
#endif
  g_started = true;
  Caffe::set_solver_count(g_communicator->size());
  Caffe::set_solver_rank(g_communicator->rank());
  ConfigureRankLogging(g_communicator->rank());
  return g_communicator;
}

void SetThreadCommunicator(Communicator* comm) { t_communicator = comm; }
Communicator* ThreadCommunicatorOrNull() { return t_communicator; }

Communicator* DistributedCommunicator() {
  if (t_communicator) return t_communicator->size() > 1 ? t_communicator
                                                        : nullptr;
  return (g_communicator && g_communicator->size() > 1) ? g_communicator
                                                        : nullptr;
}

void set_dist_timeout(double seconds) {
  if (!(seconds >= 0))
    throw Error("--dist_timeout must be >= 0 seconds (0: no timeout)");
  g_timeout_seconds = seconds;
}

double dist_timeout() { return g_timeout_seconds; }

void AbortDistributed(const std::string& message) {
  std::fprintf(stderr, "[rank %d] Error: %s\n", LaunchRank(),
               message.c_str());
  std::fflush(stderr);
  if (g_communicator) g_communicator->Abort(1);
  std::exit(1);
}

CollectiveWatch::CollectiveWatch(const std::string& what) {
  if (g_timeout_seconds <= 0) return;
  WatchState& w = *g_watch;
  std::lock_guard<std::mutex> lock(w.mutex);
  if (!w.thread_started) {
    std::thread(WatchdogLoop).detach();
    w.thread_started = true;
  }
  w.active = true;
  ++w.generation;
  w.what = what;
  w.deadline = std::chrono::steady_clock::now() +
               std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                   std::chrono::duration<double>(g_timeout_seconds));
  w.changed.notify_all();
}

CollectiveWatch::~CollectiveWatch() {
  WatchState& w = *g_watch;
  std::lock_guard<std::mutex> lock(w.mutex);
  if (!w.active) return;
  w.active = false;
  w.changed.notify_all();
}

}  // namespace caffe
