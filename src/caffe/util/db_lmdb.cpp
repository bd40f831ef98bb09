#include "caffe/util/db_lmdb.hpp"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>

namespace caffe {
namespace db {

namespace {

// Throws with the store's path, what was being done and LMDB's own words.
void CheckMdb(int rc, const string& source, const char* what) {
  if (rc == MDB_SUCCESS) return;
  CAFFE_THROW() << "LMDB " << what << " failed for '" << source
                << "': " << mdb_strerror(rc);
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
  MDB_env* env = nullptr;
  CheckMdb(mdb_env_create(&env), source, "environment creation");
  // Read-only opens take no write lock and, with NOTLS, tie the read
  // transaction to the cursor rather than to the opening thread.
  const unsigned int flags = (mode == READ) ? (MDB_RDONLY | MDB_NOTLS) : 0;
  int rc = mdb_env_open(env, source.c_str(), flags, 0664);
  if (rc != MDB_SUCCESS) {
    // LMDB requires closing the handle after a failed open.
    mdb_env_close(env);
    CheckMdb(rc, source, "open");
  }
  env_ = env;
  LOG(INFO) << "Opened lmdb " << source;
}

void LMDB::Close() {
  if (env_) {
    mdb_env_close(env_);
    env_ = nullptr;
  }
}

LMDBCursor* LMDB::NewCursor() {
  CAFFE_CHECK(env_) << "NewCursor on an LMDB that is not open";
  MDB_txn* txn = nullptr;
  CheckMdb(mdb_txn_begin(env_, nullptr, MDB_RDONLY, &txn), source_,
           "read transaction");
  MDB_dbi dbi;
  int rc = mdb_dbi_open(txn, nullptr, 0, &dbi);
  MDB_cursor* cursor = nullptr;
  if (rc == MDB_SUCCESS) rc = mdb_cursor_open(txn, dbi, &cursor);
  if (rc != MDB_SUCCESS) {
    mdb_txn_abort(txn);
    CheckMdb(rc, source_, "cursor creation");
  }
  return new LMDBCursor(txn, cursor, source_);
}

LMDBTransaction* LMDB::NewTransaction() {
  CAFFE_CHECK(env_) << "NewTransaction on an LMDB that is not open";
  return new LMDBTransaction(env_, source_);
}

LMDBCursor::LMDBCursor(MDB_txn* txn, MDB_cursor* cursor, const string& source)
    : txn_(txn), cursor_(cursor), valid_(false), source_(source) {
  SeekToFirst();
}

LMDBCursor::~LMDBCursor() {
  mdb_cursor_close(cursor_);
  mdb_txn_abort(txn_);
}

void LMDBCursor::Seek(MDB_cursor_op op) {
  int rc = mdb_cursor_get(cursor_, &key_, &value_, op);
  if (rc == MDB_NOTFOUND) {
    valid_ = false;
    return;
  }
  valid_ = false;
  CheckMdb(rc, source_, "cursor read");
  valid_ = true;
}

string LMDBCursor::key() {
  CAFFE_CHECK(valid_) << "key() on an exhausted LMDB cursor ('" << source_
                      << "')";
  return string(static_cast<const char*>(key_.mv_data), key_.mv_size);
}

string LMDBCursor::value() {
  CAFFE_CHECK(valid_) << "value() on an exhausted LMDB cursor ('" << source_
                      << "')";
  return string(static_cast<const char*>(value_.mv_data), value_.mv_size);
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
