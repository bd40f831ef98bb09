// Nothing a user had is lost: the `caffe` tool is killed with SIGKILL at
// random moments while it writes snapshots, made to hit a file-size limit
// mid-snapshot, and sent SIGINT and SIGHUP with each effect.  Every
// snapshot on disk always loads, resuming from the newest one gives the
// weights of a run never interrupted (byte for byte), and a failed write
// leaves the previous snapshot as it was.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <random>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "caffe/caffe.hpp"
#include "caffe/test/temp_dir.hpp"
#include "caffe/util/hdf5.hpp"
#include "caffe/util/io.hpp"

namespace caffe {
namespace {

namespace fs = std::filesystem;

// Constant data, so a resumed run sees what an uninterrupted one does; a
// 4 MiB weight, so writing snapshots is most of the run.
const char* kNet = R"(
name: "wide"
layer { name: "x" type: "DummyData" top: "x" top: "label"
  dummy_data_param { shape { dim: 4 dim: 1024 } shape { dim: 4 }
    data_filler { type: "constant" value: 0.5 }
    data_filler { type: "constant" value: 3 } } }
layer { name: "fc" type: "InnerProduct" bottom: "x" top: "fc"
  inner_product_param { num_output: 1024
    weight_filler { type: "gaussian" std: 0.01 } } }
layer { name: "loss" type: "SoftmaxWithLoss" bottom: "fc" bottom: "label"
  top: "loss" }
)";

std::string Solver(int max_iter, int snapshot, bool hdf5) {
  std::ostringstream s;
  s << "net: \"net.prototxt\" base_lr: 0.01 momentum: 0.9 "
       "lr_policy: \"fixed\" random_seed: 5 display: 1 "
    << "max_iter: " << max_iter << " snapshot: " << snapshot
    << " snapshot_prefix: \"snap\" solver_mode: CPU"
    << (hdf5 ? " snapshot_format: HDF5" : "") << "\n";
  return s.str();
}

void WriteFile(const std::string& path, const std::string& text) {
  std::ofstream(path) << text;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Starts `caffe train` in `dir` with its output in dir/train.log (appended),
// optionally under a file-size limit.
pid_t StartTrain(const std::string& dir, const std::vector<std::string>& flags,
                 long file_size_limit = 0) {
  const pid_t pid = fork();
  if (pid != 0) return pid;
  if (chdir(dir.c_str()) != 0) _exit(120);
  const int log = open("train.log", O_WRONLY | O_CREAT | O_APPEND, 0644);
  if (log < 0) _exit(121);
  dup2(log, 1);
  dup2(log, 2);
  if (file_size_limit > 0) {
    struct rlimit rl = {static_cast<rlim_t>(file_size_limit),
                        static_cast<rlim_t>(file_size_limit)};
    setrlimit(RLIMIT_FSIZE, &rl);
  }
  const std::string tool = std::string(CAFFE_TOOLS_DIR) + "/caffe";
  std::vector<std::string> args = {"caffe", "train",
                                   "--solver=solver.prototxt"};
  args.insert(args.end(), flags.begin(), flags.end());
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(&a[0]);
  argv.push_back(nullptr);
  execv(tool.c_str(), argv.data());
  _exit(122);
}

// Exit status, or 128 + signal.
int Wait(pid_t pid) {
  int raw = 0;
  waitpid(pid, &raw, 0);
  return WIFEXITED(raw) ? WEXITSTATUS(raw) : 128 + WTERMSIG(raw);
}

int CountOf(const std::string& text, const std::string& part) {
  int n = 0;
  for (size_t at = text.find(part); at != std::string::npos;
       at = text.find(part, at + 1))
    ++n;
  return n;
}

// Waits (at most 60 s) until the log holds `text` `times` times; false
// when it does not or the process ended.
bool WaitForLog(const std::string& dir, const std::string& text, int times,
                pid_t pid) {
  for (int i = 0; i < 600; ++i) {
    if (CountOf(ReadFile(dir + "/train.log"), text) >= times) return true;
    if (waitpid(pid, nullptr, WNOHANG) == pid) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return false;
}

struct Snapshots {
  std::string dir;
  std::vector<std::string> models, states, temporaries;
  int newest_state_iter = -1;
  std::string newest_state;
};

Snapshots List(const std::string& dir) {
  Snapshots s;
  s.dir = dir;
  const std::regex state("snap_iter_(\\d+)\\.solverstate(\\.h5)?");
  for (const auto& e : fs::directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    std::smatch m;
    if (name.find(".tmp") != std::string::npos) {
      s.temporaries.push_back(name);
    } else if (std::regex_match(name, m, state)) {
      s.states.push_back(name);
      if (std::stoi(m[1]) > s.newest_state_iter) {
        s.newest_state_iter = std::stoi(m[1]);
        s.newest_state = name;
      }
    } else if (name.find(".caffemodel") != std::string::npos) {
      s.models.push_back(name);
    }
  }
  return s;
}

// Every complete snapshot file loads: weights into the net, states parse
// and name a weights file that is there.
void ExpectAllLoad(const std::string& dir, const Snapshots& s) {
  NetParameter param;
  ReadProtoFromTextString(kNet, "net", &param);
  param.mutable_state()->set_phase(TRAIN);
  Net<float> net(param);
  for (const std::string& m : s.models)
    EXPECT_NO_THROW(net.CopyTrainedLayersFrom(dir + "/" + m)) << m;
  for (const std::string& st : s.states) {
    const std::string path = dir + "/" + st;
    std::string learned;
    if (st.size() > 3 && st.compare(st.size() - 3, 3, ".h5") == 0) {
      hdf5_silence_errors();
      const hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
      ASSERT_GE(f, 0) << st;
      EXPECT_NO_THROW(learned = hdf5_load_string(f, "learned_net")) << st;
      H5Fclose(f);
    } else {
      SolverState state;
      std::string error;
      EXPECT_TRUE(ReadProtoFromBinaryFile(path, &state, &error)) << error;
      learned = state.learned_net();
    }
    EXPECT_TRUE(fs::exists(dir + "/" + learned) || fs::exists(learned))
        << st << " names missing weights " << learned;
  }
}

// The parameters stored in a weights file (HDF5 files also hold object
// times, so files are compared by what they hold, not byte for byte).
std::vector<std::vector<float> > WeightsIn(const std::string& path) {
  NetParameter param;
  ReadProtoFromTextString(kNet, "net", &param);
  param.mutable_state()->set_phase(TRAIN);
  Net<float> net(param);
  net.CopyTrainedLayersFrom(path);
  std::vector<std::vector<float> > weights;
  for (const auto& p : net.params())
    weights.emplace_back(p->cpu_data(), p->cpu_data() + p->count());
  return weights;
}

bool HasNewTemporary(const std::string& dir, const Snapshots& before) {
  for (const std::string& t : List(dir).temporaries)
    if (std::find(before.temporaries.begin(), before.temporaries.end(), t) ==
        before.temporaries.end())
      return true;
  return false;
}

// Polls `dir` (at most 10 s) until the trainer has a snapshot's temporary
// file open, freezes it with SIGSTOP and checks that the file is still
// there: true when the trainer is now stopped in the middle of a write.  A
// write that ends between the poll and the stop lets it go on and polls
// again.
bool StopMidWrite(pid_t pid, const Snapshots& before) {
  for (int i = 0; i < 50000; ++i) {
    siginfo_t ended = {};
    // WNOWAIT: an ended trainer stays unreaped, for Wait to read its status.
    if (waitid(P_PID, pid, &ended, WEXITED | WNOHANG | WNOWAIT) == 0 &&
        ended.si_pid == pid)
      return false;
    if (HasNewTemporary(before.dir, before)) {
      kill(pid, SIGSTOP);
      int raw = 0;
      if (waitpid(pid, &raw, WUNTRACED) != pid || !WIFSTOPPED(raw))
        return false;
      if (HasNewTemporary(before.dir, before)) return true;
      kill(pid, SIGCONT);
    }
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  return false;
}

class SnapshotSafetyTest : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override {
    for (const TempDir* d : {&reference_, &killed_})
      WriteFile(d->file("net.prototxt"), kNet);
  }
  std::string Model(int iter) const {
    return "snap_iter_" + std::to_string(iter) +
           (GetParam() ? ".caffemodel.h5" : ".caffemodel");
  }
  std::string State(int iter) const {
    return "snap_iter_" + std::to_string(iter) +
           (GetParam() ? ".solverstate.h5" : ".solverstate");
  }
  TempDir reference_, killed_;
};

TEST_P(SnapshotSafetyTest, KilledMidSnapshotResumesToTheSameWeights) {
  const int kMaxIter = 150;
  const std::string solver = Solver(kMaxIter, 1, GetParam());
  WriteFile(reference_.file("solver.prototxt"), solver);
  WriteFile(killed_.file("solver.prototxt"), solver);
  ASSERT_EQ(Wait(StartTrain(reference_.path(), {})), 0)
      << ReadFile(reference_.file("train.log"));
  const std::vector<std::vector<float> > expected =
      WeightsIn(reference_.file(Model(kMaxIter)));

  // Kill, check, resume from the newest complete state, kill again...
  std::mt19937 rng(20261124);
  std::uniform_int_distribution<int> delay_ms(100, 700);
  int kills = 0, mid_write = 0;
  bool finished = false;
  for (int cycle = 0; cycle < 12 && !finished; ++cycle) {
    const Snapshots before = List(killed_.path());
    std::vector<std::string> flags;
    if (!before.newest_state.empty())
      flags.push_back("--snapshot=" + before.newest_state);
    const pid_t pid = StartTrain(killed_.path(), flags);
    // Every third cycle hunts for a write in progress, so at least one kill
    // lands mid-snapshot whatever the timing; the others kill at random.
    if (cycle % 3 != 1 || !StopMidWrite(pid, before))
      std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms(rng)));
    kill(pid, SIGKILL);
    const int status = Wait(pid);
    finished = status == 0;
    if (!finished) {
      ASSERT_EQ(status, 128 + SIGKILL) << ReadFile(killed_.file("train.log"));
      ++kills;
    }
    const Snapshots after = List(killed_.path());
    mid_write += after.temporaries.size() > before.temporaries.size();
    EXPECT_GE(after.newest_state_iter, before.newest_state_iter);
    ExpectAllLoad(killed_.path(), after);
  }
  if (!finished) {
    const Snapshots last = List(killed_.path());
    std::vector<std::string> flags;
    if (!last.newest_state.empty())
      flags.push_back("--snapshot=" + last.newest_state);
    ASSERT_EQ(Wait(StartTrain(killed_.path(), flags)), 0)
        << ReadFile(killed_.file("train.log"));
  }
  std::cout << "  " << kills << " kills, " << mid_write
            << " of them while a snapshot was being written\n";
  EXPECT_GE(kills, 8) << "most cycles should be cut short";
  EXPECT_GE(mid_write, 1) << "no kill landed while a snapshot was written";
  // Bit for bit: float vectors compare with ==, element by element.
  EXPECT_TRUE(WeightsIn(killed_.file(Model(kMaxIter))) == expected)
      << "resumed weights differ from the uninterrupted run's";
}

TEST_P(SnapshotSafetyTest, FileSizeLimitStopsWithErrorAndKeepsThePrevious) {
  WriteFile(killed_.file("solver.prototxt"), Solver(2, 2, GetParam()));
  ASSERT_EQ(Wait(StartTrain(killed_.path(), {})), 0)
      << ReadFile(killed_.file("train.log"));
  const std::string model = ReadFile(killed_.file(Model(2)));
  const std::string state = ReadFile(killed_.file(State(2)));
  ASSERT_GT(model.size(), size_t(4) << 20);
  // Resume to iteration 4, snapshotting there with 2 MB per file allowed:
  // the 4 MiB weights cannot be written.
  WriteFile(killed_.file("solver.prototxt"), Solver(4, 2, GetParam()));
  fs::remove(killed_.file("train.log"));
  const int status = Wait(StartTrain(
      killed_.path(), {"--snapshot=" + State(2)}, 2 << 20));
  const std::string log = ReadFile(killed_.file("train.log"));
  EXPECT_EQ(status, 1) << log;
  EXPECT_NE(log.find(Model(4) + ": write failed (File too large); the "
                     "previous file is unchanged"),
            std::string::npos) << log;
  const Snapshots after = List(killed_.path());
  EXPECT_TRUE(after.temporaries.empty()) << after.temporaries[0];
  EXPECT_FALSE(fs::exists(killed_.file(Model(4))));
  EXPECT_FALSE(fs::exists(killed_.file(State(4))));
  EXPECT_TRUE(ReadFile(killed_.file(Model(2))) == model);
  EXPECT_TRUE(ReadFile(killed_.file(State(2))) == state);
  ExpectAllLoad(killed_.path(), after);
}

INSTANTIATE_TEST_SUITE_P(Formats, SnapshotSafetyTest,
                         ::testing::Values(false, true),
                         [](const ::testing::TestParamInfo<bool>& info) {
                           return info.param ? "HDF5" : "BinaryProto";
                         });

class SignalEffectTest : public ::testing::Test {
 protected:
  void SetUp() override {
    WriteFile(dir_.file("net.prototxt"), kNet);
    // Runs until a signal stops it; no periodic snapshots.
    WriteFile(dir_.file("solver.prototxt"), Solver(100000000, 0, false));
  }
  int SnapshotCount() const { return List(dir_.path()).states.size(); }
  TempDir dir_;
};

TEST_F(SignalEffectTest, SighupSnapshotsAndTrainingGoesOn) {
  const pid_t pid = StartTrain(dir_.path(), {});
  ASSERT_TRUE(WaitForLog(dir_.path(), "Iteration", 1, pid));
  kill(pid, SIGHUP);  // default effect: snapshot
  ASSERT_TRUE(WaitForLog(dir_.path(), "Snapshotting solver state", 1, pid));
  const int iterations = CountOf(ReadFile(dir_.file("train.log")), "Iteration");
  ASSERT_TRUE(WaitForLog(dir_.path(), "Iteration", iterations + 5, pid))
      << "training did not go on after SIGHUP";
  EXPECT_EQ(SnapshotCount(), 1);
  kill(pid, SIGINT);  // default effect: stop (with a final snapshot)
  EXPECT_EQ(Wait(pid), 0);
  EXPECT_NE(ReadFile(dir_.file("train.log")).find("Optimization stopped early"),
            std::string::npos);
  EXPECT_EQ(SnapshotCount(), 2);
}

TEST_F(SignalEffectTest, EffectsFollowTheFlags) {
  const pid_t pid = StartTrain(
      dir_.path(), {"--sigint_effect=none", "--sighup_effect=stop"});
  ASSERT_TRUE(WaitForLog(dir_.path(), "Iteration", 1, pid));
  kill(pid, SIGINT);  // ignored
  const int iterations = CountOf(ReadFile(dir_.file("train.log")), "Iteration");
  ASSERT_TRUE(WaitForLog(dir_.path(), "Iteration", iterations + 5, pid))
      << "SIGINT with --sigint_effect=none stopped training";
  EXPECT_EQ(SnapshotCount(), 0);
  kill(pid, SIGHUP);  // stop
  EXPECT_EQ(Wait(pid), 0);
  EXPECT_NE(ReadFile(dir_.file("train.log")).find("Optimization stopped early"),
            std::string::npos);
}

TEST_F(SignalEffectTest, BadEffectIsRefused) {
  const int status =
      Wait(StartTrain(dir_.path(), {"--sighup_effect=pause"}));
  EXPECT_EQ(status, 1);
  EXPECT_NE(ReadFile(dir_.file("train.log"))
                .find("invalid signal effect 'pause' (use stop, snapshot or "
                      "none)"),
            std::string::npos);
}

}  // namespace
}  // namespace caffe
