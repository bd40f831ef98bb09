#include "caffe/util/host_memory_room.hpp"

#include <sys/resource.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <sstream>

#include "caffe/common.hpp"
#include "caffe/syncedmem.hpp"

namespace caffe {

namespace {

const size_t kUnlimited = static_cast<size_t>(-1);

std::atomic<size_t> g_limit(0);
std::once_flag g_env_once;

void ReadEnvLimitOnce() {
  std::call_once(g_env_once, [] {
    const char* env = std::getenv("CAFFE_MEMORY_LIMIT");
    if (!env || !*env) return;
    try {
      g_limit.store(ParseByteSize(env));
    } catch (const Error& e) {
      throw Error(std::string("CAFFE_MEMORY_LIMIT: ") + e.what());
    }
  });
}

// The value of `key` (in kB) in a /proc file such as meminfo or status;
// false when the file or key is missing.
bool ReadProcKb(const char* path, const std::string& key, size_t* bytes) {
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    if (line.compare(0, key.size(), key) != 0) continue;
    unsigned long long kb = 0;
    if (std::sscanf(line.c_str() + key.size(), " %llu", &kb) != 1)
      return false;
    *bytes = static_cast<size_t>(kb) * 1024;
    return true;
  }
  return false;
}

bool ReadNumber(const std::string& path, size_t* value) {
  std::ifstream in(path);
  std::string text;
  if (!(in >> text) || text == "max") return false;
  *value = static_cast<size_t>(std::strtoull(text.c_str(), nullptr, 10));
  return true;
}

// The cgroup v2 folder of this process ("0::/path" in /proc/self/cgroup).
std::string CgroupDir() {
  std::ifstream in("/proc/self/cgroup");
  std::string line;
  while (std::getline(in, line))
    if (line.compare(0, 3, "0::") == 0)
      return "/sys/fs/cgroup" + line.substr(3);
  return "";
}

void Consider(size_t limit, size_t used, const std::string& name,
              HostRoom* room) {
  const size_t left = used >= limit ? 0 : limit - used;
  if (left < room->bytes) {
    room->bytes = left;
    room->limited_by = name;
  }
}

void ConsiderRlimit(int resource, const char* status_key, const char* name,
                    HostRoom* room) {
  struct rlimit rl;
  if (getrlimit(resource, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY) return;
  size_t used = 0;
  ReadProcKb("/proc/self/status", status_key, &used);
  Consider(static_cast<size_t>(rl.rlim_cur), used, name, room);
}

}  // namespace

void SetHostMemoryLimit(size_t bytes) {
  ReadEnvLimitOnce();  // a later first use must not override this call
  g_limit.store(bytes);
}

size_t HostMemoryLimit() {
  ReadEnvLimitOnce();
  return g_limit.load();
}

HostRoom HostMemoryRoom() {
  HostRoom room;
  size_t available = 0;
  if (ReadProcKb("/proc/meminfo", "MemAvailable:", &available))
    Consider(available, 0, "the machine's available memory (MemAvailable)",
             &room);
  const std::string cgroup = CgroupDir();
  size_t max = 0, current = 0;
  if (!cgroup.empty() && ReadNumber(cgroup + "/memory.max", &max) &&
      ReadNumber(cgroup + "/memory.current", &current))
    Consider(max, current, "the cgroup's memory.max (" + cgroup + ")", &room);
  ConsiderRlimit(RLIMIT_AS, "VmSize:",
                 "the address-space limit (ulimit -v, RLIMIT_AS)", &room);
  ConsiderRlimit(RLIMIT_DATA, "VmData:",
                 "the data-segment limit (ulimit -d, RLIMIT_DATA)", &room);
  const size_t limit = HostMemoryLimit();
  if (limit)
    Consider(limit, HostBytesInUse(),
             "LeanCaffe's memory limit (CAFFE_MEMORY_LIMIT or "
             "set_memory_limit: " + FormatBytes(limit) + ")",
             &room);
  return room;
}

size_t ParseByteSize(const std::string& text) {
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || !(value >= 0))
    throw Error("'" + text + "' is not a byte size (e.g. 512M, 2G)");
  std::string suffix(end);
  double scale = 1;
  if (!suffix.empty()) {
    const std::string units = "KMGT";
    const size_t at = units.find(static_cast<char>(std::toupper(suffix[0])));
    const std::string rest = suffix.substr(1);
    if (at == std::string::npos ||
        !(rest.empty() || rest == "B" || rest == "iB" || rest == "b"))
      throw Error("'" + text + "' is not a byte size (e.g. 512M, 2G)");
    for (size_t i = 0; i <= at; ++i) scale *= 1024;
  }
  const double bytes = value * scale;
  if (bytes >= 1.8e19) throw Error("'" + text + "' is too large a byte size");
  return static_cast<size_t>(bytes);
}

std::string FormatBytes(size_t bytes) {
  char buf[48];
  if (bytes == kUnlimited) return "unlimited";
  if (bytes >= (size_t(1) << 30))
    std::snprintf(buf, sizeof(buf), "%.2f GiB", bytes / 1073741824.0);
  else if (bytes >= (size_t(1) << 20))
    std::snprintf(buf, sizeof(buf), "%.1f MiB", bytes / 1048576.0);
  else if (bytes >= 1024)
    std::snprintf(buf, sizeof(buf), "%.1f KiB", bytes / 1024.0);
  else
    std::snprintf(buf, sizeof(buf), "%zu bytes", bytes);
  return buf;
}

void CheckHostAllocation(size_t bytes) {
  const size_t limit = HostMemoryLimit();
  const size_t in_use = HostBytesInUse();
  if (limit && (bytes > limit || in_use > limit - bytes)) {
    throw Error("cannot allocate " + FormatBytes(bytes) +
                " of host memory: LeanCaffe's memory limit is " +
                FormatBytes(limit) + " (CAFFE_MEMORY_LIMIT or "
                "set_memory_limit) and " + FormatBytes(in_use) +
                " is in use");
  }
  if (bytes < kRoomCheckBytes) return;
  const HostRoom room = HostMemoryRoom();
  if (bytes > room.bytes)
    throw Error("cannot allocate " + FormatBytes(bytes) +
                " of host memory: only " + FormatBytes(room.bytes) +
                " is available, limited by " + room.limited_by);
}

}  // namespace caffe
