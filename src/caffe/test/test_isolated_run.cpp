// RunIsolated (util/isolated_run.hpp): each way a child can end is reported
// as such, and nothing the child does reaches the caller.
#include <gtest/gtest.h>

#include <signal.h>
#include <unistd.h>

#include <stdexcept>

#include "caffe/common.hpp"
#include "caffe/util/isolated_run.hpp"

namespace caffe {
namespace {

TEST(IsolatedRunTest, AFunctionThatReturnsIsOk) {
  const IsolatedResult r = RunIsolated([] {}, 10);
  EXPECT_EQ(IsolatedResult::kOk, r.kind) << r.message;
}

TEST(IsolatedRunTest, TheChildsWritesStayInTheChild) {
  int value = 1;
  const IsolatedResult r = RunIsolated([&value] { value = 2; }, 10);
  EXPECT_EQ(IsolatedResult::kOk, r.kind) << r.message;
  EXPECT_EQ(1, value);
}

TEST(IsolatedRunTest, AnErrorComesBackWithItsMessage) {
  const IsolatedResult r =
      RunIsolated([] { throw Error("file x.h5: no group 'data'"); }, 10);
  EXPECT_EQ(IsolatedResult::kError, r.kind);
  EXPECT_EQ("file x.h5: no group 'data'", r.message);
}

TEST(IsolatedRunTest, AnotherExceptionIsAnErrorToo) {
  const IsolatedResult r =
      RunIsolated([] { throw std::runtime_error("bad thing"); }, 10);
  EXPECT_EQ(IsolatedResult::kError, r.kind);
  EXPECT_EQ("bad thing", r.message);
}

TEST(IsolatedRunTest, ACrashIsReportedWithItsSignal) {
  // gtest (and libFuzzer, under make fuzz) install handlers for fatal
  // signals; the child must die of the signal all the same.
  const IsolatedResult r = RunIsolated([] { raise(SIGSEGV); }, 10);
  EXPECT_EQ(IsolatedResult::kCrashed, r.kind);
  EXPECT_EQ(SIGSEGV, r.signal);
  EXPECT_NE(std::string::npos, r.message.find("signal 11")) << r.message;
}

TEST(IsolatedRunTest, AnAbortIsACrash) {
  const IsolatedResult r = RunIsolated([] { abort(); }, 10);
  EXPECT_EQ(IsolatedResult::kCrashed, r.kind);
  EXPECT_EQ(SIGABRT, r.signal);
}

TEST(IsolatedRunTest, AHangEndsAtTheTimeout) {
  const IsolatedResult r = RunIsolated([] { for (;;) pause(); }, 1);
  EXPECT_EQ(IsolatedResult::kTimedOut, r.kind) << r.message;
}

TEST(IsolatedRunTest, AnExitOfItsOwnIsNotOk) {
  const IsolatedResult r = RunIsolated([] { _exit(1); }, 10);
  EXPECT_EQ(IsolatedResult::kCrashed, r.kind);
  EXPECT_NE(std::string::npos, r.message.find("status 1")) << r.message;
}

TEST(RunProgramTest, ExitZeroIsOk) {
  EXPECT_EQ(IsolatedResult::kOk, RunProgram("/bin/true", {}, 10).kind);
}

TEST(RunProgramTest, ArgumentsReachTheProgram) {
  EXPECT_EQ(IsolatedResult::kOk,
            RunProgram("/bin/sh", {"-c", "test \"$0\" = x", "x"}, 10).kind);
  EXPECT_EQ(IsolatedResult::kCrashed,
            RunProgram("/bin/sh", {"-c", "test \"$0\" = x", "y"}, 10).kind);
}

TEST(RunProgramTest, AnotherExitStatusIsNotOk) {
  const IsolatedResult r = RunProgram("/bin/false", {}, 10);
  EXPECT_EQ(IsolatedResult::kCrashed, r.kind);
  EXPECT_NE(std::string::npos, r.message.find("status 1")) << r.message;
}

TEST(RunProgramTest, ACrashIsReportedWithItsSignal) {
  const IsolatedResult r = RunProgram("/bin/sh", {"-c", "kill -SEGV $$"}, 10);
  EXPECT_EQ(IsolatedResult::kCrashed, r.kind);
  EXPECT_EQ(SIGSEGV, r.signal);
}

TEST(RunProgramTest, AHangIsKilledAtTheTimeout) {
  const IsolatedResult r = RunProgram("/bin/sleep", {"30"}, 1);
  EXPECT_EQ(IsolatedResult::kTimedOut, r.kind) << r.message;
}

TEST(RunProgramTest, AMissingProgramIsNotRun) {
  EXPECT_EQ(IsolatedResult::kNotRun,
            RunProgram("/nonexistent/program", {}, 10).kind);
}

}  // namespace
}  // namespace caffe
