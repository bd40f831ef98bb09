#include "caffe/util/db_leveldb.hpp"

// Compiled to nothing without LevelDB (USE_LEVELDB=OFF): db.cpp's GetDB
// refuses the backend instead.
#ifdef USE_LEVELDB
#include <sys/stat.h>

#include <map>
#include <mutex>
#include <utility>

namespace caffe {
namespace db {

namespace {

// LevelDB locks its directory per process, so the solvers of thread ranks
// or of `--gpu=0,1` reading one store would refuse each other: READ opens
// of one directory (by device and inode) share one handle, kept here
// weakly and closed with its last user.
std::mutex& SharedMutex() {
  static std::mutex mutex;
  return mutex;
}
std::map<std::pair<dev_t, ino_t>, std::weak_ptr<leveldb::DB> >& SharedDbs() {
  static auto* dbs =
      new std::map<std::pair<dev_t, ino_t>, std::weak_ptr<leveldb::DB> >();
  return *dbs;
}

}  // namespace

void LevelDB::Open(const string& source, Mode mode) {
  Close();
  source_ = source;
  struct stat st;
  if (mode == READ && stat(source.c_str(), &st) == 0) {
    std::lock_guard<std::mutex> lock(SharedMutex());
    std::weak_ptr<leveldb::DB>& shared = SharedDbs()[{st.st_dev, st.st_ino}];
    db_ = shared.lock();
    if (!db_) {
      db_ = OpenDb(source, mode);
      shared = db_;
    }
  } else {
    db_ = OpenDb(source, mode);
  }
  LOG(INFO) << "Opened leveldb " << source;
}

std::shared_ptr<leveldb::DB> LevelDB::OpenDb(const string& source,
                                             Mode mode) {
  leveldb::Options options;
  options.block_size = 65536;
  options.write_buffer_size = 268435456;
  options.max_open_files = 100;
  options.error_if_exists = (mode == NEW);
  options.create_if_missing = (mode != READ);
  // Damage found while opening is an error, not something to skip over.
  options.paranoid_checks = true;
  leveldb::DB* db = nullptr;
  const leveldb::Status status = leveldb::DB::Open(options, source, &db);
  if (!status.ok()) {
    delete db;
    const string why = status.ToString();
    // LevelDB takes a lock on the database: one process at a time.
    const bool locked = status.IsIOError() &&
                        why.find("lock ") != string::npos;
    CAFFE_THROW() << "LevelDB open failed for '" << source << "': " << why
                  << (locked ? " (another process holds it: LevelDB lets "
                               "one process open a database at a time, so "
                               "the ranks of a job on one machine cannot "
                               "share it; give each process its own copy, "
                               "or convert it to LMDB, which any number "
                               "of processes can read)"
                             : "");
  }
  return std::shared_ptr<leveldb::DB>(db);
}

LevelDBCursor* LevelDB::NewCursor() {
  CAFFE_CHECK(db_) << "NewCursor on a LevelDB that is not open";
  leveldb::ReadOptions options;
  options.verify_checksums = true;
  // A full pass over a training set would only evict hot blocks.
  options.fill_cache = false;
  return new LevelDBCursor(db_->NewIterator(options), source_);
}

LevelDBTransaction* LevelDB::NewTransaction() {
  CAFFE_CHECK(db_) << "NewTransaction on a LevelDB that is not open";
  return new LevelDBTransaction(db_.get(), source_);
}

LevelDBCursor::LevelDBCursor(leveldb::Iterator* iter, const string& source)
    : iter_(iter), source_(source) {
  SeekToFirst();
}

void LevelDBCursor::CheckStatus(const char* what) {
  const leveldb::Status status = iter_->status();
  if (!status.ok()) {
    CAFFE_THROW() << "LevelDB " << what << " failed for '" << source_
                  << "': " << status.ToString();
  }
}

void LevelDBCursor::SeekToFirst() {
  iter_->SeekToFirst();
  CheckStatus("cursor read");
}

void LevelDBCursor::Next() {
  CAFFE_CHECK(iter_->Valid()) << "Next() on an exhausted LevelDB cursor ('"
                              << source_ << "')";
  iter_->Next();
  CheckStatus("cursor read");
}

string LevelDBCursor::key() {
  CAFFE_CHECK(iter_->Valid()) << "key() on an exhausted LevelDB cursor ('"
                              << source_ << "')";
  return iter_->key().ToString();
}

string LevelDBCursor::value() {
  CAFFE_CHECK(iter_->Valid()) << "value() on an exhausted LevelDB cursor ('"
                              << source_ << "')";
  return iter_->value().ToString();
}

void LevelDBTransaction::Put(const string& key, const string& value) {
  batch_.Put(key, value);
}

void LevelDBTransaction::Commit() {
  const leveldb::Status status = db_->Write(leveldb::WriteOptions(), &batch_);
  batch_.Clear();
  if (!status.ok()) {
    CAFFE_THROW() << "LevelDB write failed for '" << source_
                  << "': " << status.ToString();
  }
}

}  // namespace db
}  // namespace caffe
#endif  // USE_LEVELDB
