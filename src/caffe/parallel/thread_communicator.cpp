// The Communicator among threads of one process: barriers on a shared
// group, sums added in rank order in slices (each rank adds its slice).
#include "caffe/parallel/thread_communicator.hpp"

#include <chrono>
#include <cstring>
#include <functional>
#include <sstream>

#include "caffe/common.hpp"
#include "caffe/parallel/distributed.hpp"

namespace caffe {

namespace {

template <typename T>
void SumSlice(const std::vector<void*>& inputs, size_t begin, size_t end,
              void* out) {
  T* y = static_cast<T*>(out);
  for (size_t i = begin; i < end; ++i) {
    T sum = static_cast<const T*>(inputs[0])[i];
    for (size_t r = 1; r < inputs.size(); ++r)
      sum += static_cast<const T*>(inputs[r])[i];
    y[i] = sum;
  }
}

size_t TypeBytes(Communicator::Type type) {
  return type == Communicator::FLOAT ? sizeof(float) : 8;
}

}  // namespace

ThreadGroup::ThreadGroup(int size)
    : size_(size), slots_(size), gather_slots_(size) {
  if (size < 1) throw Error("a thread group needs at least one rank");
}

void ThreadGroup::Abort(const std::string& why) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (abort_reason_.empty()) abort_reason_ = why.empty() ? "aborted" : why;
  changed_.notify_all();
}

bool ThreadGroup::aborted() {
  std::lock_guard<std::mutex> lock(mutex_);
  return !abort_reason_.empty();
}

void ThreadGroup::Arrive(const std::string& what) {
  std::unique_lock<std::mutex> lock(mutex_);
  if (!abort_reason_.empty()) throw Error(abort_reason_);
  const uint64_t generation = generation_;
  if (++arrived_ == size_) {
    arrived_ = 0;
    ++generation_;
    changed_.notify_all();
    return;
  }
  auto released = [&] {
    return generation_ != generation || !abort_reason_.empty();
  };
  const double timeout = dist_timeout();
  if (timeout > 0) {
    const auto deadline =
        std::chrono::steady_clock::now() +
        std::chrono::duration_cast<std::chrono::steady_clock::duration>(
            std::chrono::duration<double>(timeout));
    if (!changed_.wait_until(lock, deadline, released)) {
      std::ostringstream why;
      why << what << " did not finish within " << timeout
          << " s (--dist_timeout): a peer stalled or died";
      abort_reason_ = why.str();
      changed_.notify_all();
      throw Error(abort_reason_);
    }
  } else {
    changed_.wait(lock, released);
  }
  if (generation_ == generation) throw Error(abort_reason_);
}

ThreadCommunicator::ThreadCommunicator(ThreadGroup* group, int rank)
    : group_(group), rank_(rank) {
  CAFFE_INTERNAL_CHECK(rank >= 0 && rank < group->size());
}

void ThreadCommunicator::AllreduceSum(void* data, size_t count, Type type,
                                      const std::string& what) {
  ThreadGroup& g = *group_;
  const size_t bytes = TypeBytes(type);
  {
    std::lock_guard<std::mutex> lock(g.mutex_);
    g.slots_[rank_] = data;
    // Every rank asks for the same size, so whoever comes first grows it
    // and the rest find it grown (nobody reads it before the barrier).
    if (g.result_.size() < count * bytes) g.result_.resize(count * bytes);
  }
  g.Arrive(what);
  const size_t n = static_cast<size_t>(size());
  const size_t begin = count * rank_ / n, end = count * (rank_ + 1) / n;
  void* out = g.result_.data();
  if (type == FLOAT) {
    SumSlice<float>(g.slots_, begin, end, out);
  } else if (type == DOUBLE) {
    SumSlice<double>(g.slots_, begin, end, out);
  } else {
    SumSlice<int64_t>(g.slots_, begin, end, out);
  }
  g.Arrive(what);
  std::memcpy(data, g.result_.data(), count * bytes);
  g.Arrive(what);  // nobody reuses the slots or the result before this
}

int ThreadCommunicator::StartAllreduceSum(void* data, size_t count, Type type,
                                          const std::string& what) {
  AllreduceSum(data, count, type, what);
  return next_handle_++;
}

void ThreadCommunicator::Wait(int handle) {
  CAFFE_INTERNAL_CHECK(handle >= 0 && handle < next_handle_);
}

void ThreadCommunicator::Broadcast(void* data, size_t bytes, int root,
                                   const std::string& what) {
  ThreadGroup& g = *group_;
  CAFFE_INTERNAL_CHECK(root >= 0 && root < size());
  {
    std::lock_guard<std::mutex> lock(g.mutex_);
    g.slots_[rank_] = data;
  }
  g.Arrive(what);
  if (rank_ != root && bytes > 0) std::memcpy(data, g.slots_[root], bytes);
  g.Arrive(what);
}

std::vector<std::vector<uint64_t> > ThreadCommunicator::Allgather(
    const std::vector<uint64_t>& mine, const std::string& what) {
  ThreadGroup& g = *group_;
  {
    std::lock_guard<std::mutex> lock(g.mutex_);
    g.gather_slots_[rank_] = &mine;
  }
  g.Arrive(what);
  std::vector<std::vector<uint64_t> > all(size());
  for (int r = 0; r < size(); ++r) all[r] = *g.gather_slots_[r];
  g.Arrive(what);
  return all;
}

void ThreadCommunicator::Abort(int exit_code) {
  const std::string why = "rank " + std::to_string(rank_) +
                          " of the job failed (status " +
                          std::to_string(exit_code) + ")";
  group_->Abort(why);
  throw Error(why);
}

}  // namespace caffe
