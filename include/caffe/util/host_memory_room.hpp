// host_memory_room.hpp: how much host memory this process may still take.
//
// LeanCaffe knows what a net needs before it allocates it (the plan), so it
// can refuse a net that does not fit with an error that says what would,
// instead of being killed by the kernel's OOM killer, an rlimit or a
// fuzzer's RSS limit halfway through an iteration.
//
// Contract:
//  * HostMemoryRoom() is the smallest of these, each minus what is already
//    used against it, with the name of the one that binds:
//      - the machine's MemAvailable (/proc/meminfo);
//      - the cgroup v2 memory.max of this process (containers, systemd);
//      - RLIMIT_AS (ulimit -v) minus the address space in use;
//      - RLIMIT_DATA (ulimit -d) minus the data segment in use;
//      - LeanCaffe's own limit (SetHostMemoryLimit, or the environment
//        variable CAFFE_MEMORY_LIMIT read once at first use: a byte count
//        with an optional K, M, G or T suffix, powers of 1024) minus
//        HostBytesInUse().
//    Sources that do not exist on the machine are skipped; when none
//    exists the room is SIZE_MAX ("unknown").
//  * CheckHostAllocation(bytes) is called by CaffeMallocHost before every
//    allocation.  It throws caffe::Error naming the size, the room and its
//    source when the allocation cannot fit.  To stay cheap it reads /proc
//    only for allocations of at least kRoomCheckBytes; the explicit limit
//    is checked for every allocation (one atomic load).
//  * Everything here reads the platform; nothing here allocates through
//    CaffeMallocHost.
#ifndef CAFFE_UTIL_HOST_MEMORY_ROOM_HPP_
#define CAFFE_UTIL_HOST_MEMORY_ROOM_HPP_

#include <cstddef>
#include <string>

namespace caffe {

struct HostRoom {
  size_t bytes = static_cast<size_t>(-1);  // SIZE_MAX: no limit found
  std::string limited_by;                  // "" when unlimited
};

HostRoom HostMemoryRoom();

// 0 removes LeanCaffe's own limit (CAFFE_MEMORY_LIMIT included).
void SetHostMemoryLimit(size_t bytes);
// The limit in force (0: none).
size_t HostMemoryLimit();

// "512M" -> 536870912.  Throws caffe::Error for anything else.
size_t ParseByteSize(const std::string& text);
// "1.50 GiB", "12.0 MiB", "900 bytes".
std::string FormatBytes(size_t bytes);

const size_t kRoomCheckBytes = size_t(64) << 20;
void CheckHostAllocation(size_t bytes);

}  // namespace caffe

#endif  // CAFFE_UTIL_HOST_MEMORY_ROOM_HPP_
