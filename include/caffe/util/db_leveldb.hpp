// db_leveldb.hpp: the LevelDB backend of db.hpp.
//
// Contract: the store is a LevelDB directory, opened with Caffe 1.0's
// options (64 KB blocks, 256 MB write buffer, 100 open files).  READ needs
// an existing store, WRITE creates one when missing, NEW fails if the store
// exists.  Reads verify checksums, so a damaged table surfaces as
// caffe::Error (naming the path and LevelDB's status text) from the cursor
// instead of as silently wrong records.  LevelDB locks its directory: one
// open DB per store per process, so READ opens of one store in a process
// share one handle (another process is refused with an error saying so).  Only builds with USE_LEVELDB have it
// (this header is then empty; db::GetDB says why).
#ifndef CAFFE_UTIL_DB_LEVELDB_HPP_
#define CAFFE_UTIL_DB_LEVELDB_HPP_

#ifdef USE_LEVELDB
#include <leveldb/db.h>
#include <leveldb/write_batch.h>

#include <memory>
#include <string>

#include "caffe/util/db.hpp"

namespace caffe {
namespace db {

class LevelDBCursor : public Cursor {
 public:
  LevelDBCursor(leveldb::Iterator* iter, const string& source);
  void SeekToFirst() override;
  void Next() override;
  string key() override;
  string value() override;
  bool valid() override { return iter_->Valid(); }

 private:
  // An iterator that stops early because of damage reports it only through
  // status(); turn that into an error rather than a short read.
  void CheckStatus(const char* what);

  std::unique_ptr<leveldb::Iterator> iter_;
  string source_;
};

class LevelDBTransaction : public Transaction {
 public:
  LevelDBTransaction(leveldb::DB* db, const string& source)
      : db_(db), source_(source) {}
  void Put(const string& key, const string& value) override;
  void Commit() override;

 private:
  leveldb::DB* db_;
  leveldb::WriteBatch batch_;
  string source_;
};

class LevelDB : public DB {
 public:
  LevelDB() {}
  ~LevelDB() override { Close(); }
  void Open(const string& source, Mode mode) override;
  void Close() override { db_.reset(); }
  LevelDBCursor* NewCursor() override;
  LevelDBTransaction* NewTransaction() override;

 private:
  static std::shared_ptr<leveldb::DB> OpenDb(const string& source,
                                             Mode mode);

  // READ opens of one store in this process share this handle.
  std::shared_ptr<leveldb::DB> db_;
  string source_;
};

}  // namespace db
}  // namespace caffe

#endif  // USE_LEVELDB
#endif  // CAFFE_UTIL_DB_LEVELDB_HPP_
