#include "caffe/util/db_lmdb.hpp"

#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <mutex>
#include <utility>
#include <vector>

#include "caffe/util/mapped_read_guard.hpp"

namespace caffe {
namespace db {

namespace {

// Throws with the store's path, what was being done and LMDB's own words.
void CheckMdb(int rc, const string& source, const char* what) {
  if (rc == MDB_SUCCESS) return;
  CAFFE_THROW() << "LMDB " << what << " failed for '" << source
                << "': " << mdb_strerror(rc);
}

// LMDB's internal assertions abort; on a corrupted file they fire inside
// a guarded read, which this turns into caffe::Error.
void OnLmdbAssert(MDB_env*, const char* message) { MappedReadFailed(message); }

// Every call that reads data.mdb runs under GuardMappedRead, so a corrupted
// or truncated file gives an error naming it (mapped_read_guard.hpp).
void Guarded(const string& source, const char* what,
             const std::function<void()>& read) {
  GuardMappedRead("LMDB '" + source + "' is corrupted (" + what + ")", read);
}

// Where data.mdb (the file `st` describes) is mapped in this process, each
// mapping cut to the file's size: LMDB does not say where its map is
// (mdb_env_info gives the address only for MDB_FIXEDMAP), so it is read
// from /proc/self/maps by device and inode.  Empty when unknown.
std::vector<std::pair<const char*, const char*> > MappedExtents(
    const struct stat& st) {
  std::vector<std::pair<const char*, const char*> > extents;
  std::ifstream maps("/proc/self/maps");
  std::string line;
  while (std::getline(maps, line)) {
    unsigned long long begin, end, offset, inode;
    unsigned int major, minor;
    char perms[8];
    if (std::sscanf(line.c_str(), "%llx-%llx %7s %llx %x:%x %llu", &begin,
                    &end, perms, &offset, &major, &minor, &inode) != 7)
      continue;
    if (inode != st.st_ino || makedev(major, minor) != st.st_dev ||
        offset != 0)
      continue;
    const unsigned long long file_end =
        begin + static_cast<unsigned long long>(st.st_size);
    extents.emplace_back(reinterpret_cast<const char*>(begin),
                         reinterpret_cast<const char*>(std::min(end, file_end)));
  }
  return extents;
}

}  // namespace

namespace {

// Opens the environment at `source` with `flags`; throws naming the store.
MDB_env* OpenEnv(const string& source, unsigned int flags) {
  MDB_env* env = nullptr;
  CheckMdb(mdb_env_create(&env), source, "environment creation");
  mdb_env_set_assert(env, OnLmdbAssert);
  int rc = MDB_SUCCESS;
  try {
    Guarded(source, "open", [&] {
      rc = mdb_env_open(env, source.c_str(), flags, 0664);
    });
  } catch (const Error&) {
    mdb_env_close(env);
    throw;
  }
  if (rc != MDB_SUCCESS) {
    // LMDB requires closing the handle after a failed open.
    mdb_env_close(env);
    CheckMdb(rc, source, "open");
  }
  return env;
}

// LMDB forbids opening one store twice in a process: its locks are the
// process's fcntl locks, so a second open believes it is the store's only
// user and resets the shared lock table while the first is reading (a
// reader then sees transaction 0, an empty store).  Thread ranks and
// solvers per GPU each have a Data layer on the same source, so read-only
// opens of one directory (by device and inode) share one environment,
// counted here and closed with its last user.
struct SharedEnv {
  MDB_env* env;
  int users;
};
std::mutex& SharedEnvMutex() {
  static std::mutex mutex;
  return mutex;
}
std::map<std::pair<dev_t, ino_t>, SharedEnv>& SharedEnvs() {
  static auto* envs = new std::map<std::pair<dev_t, ino_t>, SharedEnv>();
  return *envs;
}

}  // namespace

void LMDB::Open(const string& source, Mode mode) {
  Close();
  source_ = source;
  if (mode == NEW) {
    if (mkdir(source.c_str(), 0744) != 0) {
      CAFFE_THROW() << "Cannot create LMDB directory '" << source
                    << "': " << std::strerror(errno)
                    << (errno == EEXIST ? " (remove it or choose another path)"
                                        : "");
    }
  }
  struct stat st;
  if (mode != READ || stat(source.c_str(), &st) != 0) {
    // Writers own their environment; a missing store fails in the open,
    // with LMDB's words.  Read-only opens take no write lock and, with
    // NOTLS, tie the read transaction to the cursor rather than to the
    // opening thread.
    env_ = OpenEnv(source, mode == READ ? (MDB_RDONLY | MDB_NOTLS) : 0);
  } else {
    std::lock_guard<std::mutex> lock(SharedEnvMutex());
    const std::pair<dev_t, ino_t> key(st.st_dev, st.st_ino);
    auto it = SharedEnvs().find(key);
    if (it == SharedEnvs().end()) {
      SharedEnv shared = {OpenEnv(source, MDB_RDONLY | MDB_NOTLS), 0};
      it = SharedEnvs().emplace(key, shared).first;
    }
    ++it->second.users;
    env_ = it->second.env;
    shared_key_ = key;
    shared_ = true;
  }
  LOG(INFO) << "Opened lmdb " << source;
}

void LMDB::Close() {
  if (!env_) return;
  if (shared_) {
    std::lock_guard<std::mutex> lock(SharedEnvMutex());
    auto it = SharedEnvs().find(shared_key_);
    CAFFE_CHECK(it != SharedEnvs().end() && it->second.env == env_)
        << "shared LMDB environment of '" << source_ << "' lost";
    if (--it->second.users == 0) {
      mdb_env_close(env_);
      SharedEnvs().erase(it);
    }
    shared_ = false;
  } else {
    mdb_env_close(env_);
  }
  env_ = nullptr;
}

LMDBCursor* LMDB::NewCursor() {
  CAFFE_CHECK(env_) << "NewCursor on an LMDB that is not open";
  MDB_txn* txn = nullptr;
  int rc = MDB_SUCCESS;
  Guarded(source_, "read transaction", [&] {
    rc = mdb_txn_begin(env_, nullptr, MDB_RDONLY, &txn);
  });
  CheckMdb(rc, source_, "read transaction");
  MDB_dbi dbi;
  MDB_cursor* cursor = nullptr;
  try {
    Guarded(source_, "cursor creation", [&] {
      rc = mdb_dbi_open(txn, nullptr, 0, &dbi);
      if (rc == MDB_SUCCESS) rc = mdb_cursor_open(txn, dbi, &cursor);
    });
  } catch (const Error&) {
    mdb_txn_abort(txn);
    throw;
  }
  if (rc != MDB_SUCCESS) {
    mdb_txn_abort(txn);
    CheckMdb(rc, source_, "cursor creation");
  }
  // The file's extent in the map, taken after the transaction began: every
  // page the transaction can see was written by then.
  mdb_filehandle_t fd;
  struct stat st;
  if (mdb_env_get_fd(env_, &fd) != MDB_SUCCESS || fstat(fd, &st) != 0) {
    mdb_cursor_close(cursor);
    mdb_txn_abort(txn);
    CAFFE_THROW() << "LMDB '" << source_ << "': cannot stat data.mdb";
  }
  return new LMDBCursor(txn, cursor, source_, MappedExtents(st));
}

LMDBTransaction* LMDB::NewTransaction() {
  CAFFE_CHECK(env_) << "NewTransaction on an LMDB that is not open";
  return new LMDBTransaction(env_, source_);
}

LMDBCursor::LMDBCursor(MDB_txn* txn, MDB_cursor* cursor, const string& source,
                       const Extents& file)
    : txn_(txn), cursor_(cursor), valid_(false), source_(source),
      file_(file) {
  SeekToFirst();
}

LMDBCursor::~LMDBCursor() {
  mdb_cursor_close(cursor_);
  mdb_txn_abort(txn_);
}

void LMDBCursor::Seek(MDB_cursor_op op) {
  int rc = MDB_SUCCESS;
  valid_ = false;
  // The record is copied out here, inside the guard: key_ and value_ point
  // into the map, where a corrupted size or a truncated file faults.
  Guarded(source_, "reading a record", [&] {
    rc = mdb_cursor_get(cursor_, &key_, &value_, op);
    if (rc != MDB_SUCCESS) return;
    // Sizes and offsets read from a corrupted page can be anything: a
    // record must lie inside the file (checked, not left to a fault, which
    // a sanitizer would see first).
    if (!Inside(key_) || !Inside(value_))
      MappedReadFailed("a record lies outside the file");
    key_copy_.resize(key_.mv_size);
    value_copy_.resize(value_.mv_size);
    std::memcpy(&key_copy_[0], key_.mv_data, key_.mv_size);
    std::memcpy(&value_copy_[0], value_.mv_data, value_.mv_size);
  });
  if (rc == MDB_NOTFOUND) return;
  CheckMdb(rc, source_, "cursor read");
  valid_ = true;
}

bool LMDBCursor::Inside(const MDB_val& v) const {
  if (v.mv_size == 0 || file_.empty()) return true;  // nothing to check
  const char* p = static_cast<const char*>(v.mv_data);
  for (const auto& e : file_)
    if (p >= e.first && p <= e.second &&
        v.mv_size <= static_cast<size_t>(e.second - p))
      return true;
  return false;
}

string LMDBCursor::key() {
  CAFFE_CHECK(valid_) << "key() on an exhausted LMDB cursor ('" << source_
                      << "')";
  return key_copy_;
}

string LMDBCursor::value() {
  CAFFE_CHECK(valid_) << "value() on an exhausted LMDB cursor ('" << source_
                      << "')";
  return value_copy_;
}

void LMDBTransaction::Put(const string& key, const string& value) {
  keys_.push_back(key);
  values_.push_back(value);
}

void LMDBTransaction::Commit() {
  // A full map aborts the whole write transaction, so grow the map and
  // replay every buffered Put until it fits.
  for (;;) {
    MDB_txn* txn = nullptr;
    CheckMdb(mdb_txn_begin(env_, nullptr, 0, &txn), source_,
             "write transaction");
    MDB_dbi dbi;
    int rc = mdb_dbi_open(txn, nullptr, 0, &dbi);
    if (rc != MDB_SUCCESS) {
      mdb_txn_abort(txn);
      CheckMdb(rc, source_, "database open");
    }
    for (size_t i = 0; i < keys_.size() && rc == MDB_SUCCESS; ++i) {
      MDB_val key, value;
      key.mv_size = keys_[i].size();
      key.mv_data = const_cast<char*>(keys_[i].data());
      value.mv_size = values_[i].size();
      value.mv_data = const_cast<char*>(values_[i].data());
      rc = mdb_put(txn, dbi, &key, &value, 0);
    }
    if (rc == MDB_MAP_FULL) {
      mdb_txn_abort(txn);
      DoubleMapSize();
      continue;
    }
    if (rc != MDB_SUCCESS) {
      mdb_txn_abort(txn);
      CheckMdb(rc, source_, "put");
    }
    // mdb_txn_commit frees the transaction whether or not it succeeds.
    rc = mdb_txn_commit(txn);
    if (rc == MDB_MAP_FULL) {
      DoubleMapSize();
      continue;
    }
    CheckMdb(rc, source_, "commit");
    break;
  }
  keys_.clear();
  values_.clear();
}

void LMDBTransaction::DoubleMapSize() {
  MDB_envinfo info;
  CheckMdb(mdb_env_info(env_, &info), source_, "env info");
  const size_t new_size = info.me_mapsize * 2;
  LOG(INFO) << "Doubling LMDB map size of " << source_ << " to "
            << (new_size >> 20) << " MB";
  CheckMdb(mdb_env_set_mapsize(env_, new_size), source_, "map resize");
}

}  // namespace db
}  // namespace caffe
