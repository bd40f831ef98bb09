// db_lmdb.hpp: the LMDB backend of db.hpp.
//
// Contract: the store is a directory holding data.mdb and lock.mdb, as Caffe
// writes it.  READ opens with MDB_RDONLY | MDB_NOTLS, so a cursor created on
// one thread may be used on another (the prefetch thread).  The memory map
// starts at LMDB's default size and doubles whenever a commit hits
// MDB_MAP_FULL, so writers never need to guess the final size.
#ifndef CAFFE_UTIL_DB_LMDB_HPP_
#define CAFFE_UTIL_DB_LMDB_HPP_

#include <lmdb.h>

#include <string>
#include <vector>

#include "caffe/util/db.hpp"

namespace caffe {
namespace db {

class LMDBCursor : public Cursor {
 public:
  LMDBCursor(MDB_txn* txn, MDB_cursor* cursor, const string& source);
  ~LMDBCursor() override;
  void SeekToFirst() override { Seek(MDB_FIRST); }
  void Next() override { Seek(MDB_NEXT); }
  string key() override;
  string value() override;
  bool valid() override { return valid_; }

 private:
  void Seek(MDB_cursor_op op);

  MDB_txn* txn_;
  MDB_cursor* cursor_;
  MDB_val key_, value_;
  bool valid_;
  string source_;
};

class LMDBTransaction : public Transaction {
 public:
  LMDBTransaction(MDB_env* env, const string& source)
      : env_(env), source_(source) {}
  void Put(const string& key, const string& value) override;
  void Commit() override;

 private:
  void DoubleMapSize();

  MDB_env* env_;
  string source_;
  vector<string> keys_, values_;
};

class LMDB : public DB {
 public:
  LMDB() : env_(nullptr) {}
  ~LMDB() override { Close(); }
  void Open(const string& source, Mode mode) override;
  void Close() override;
  LMDBCursor* NewCursor() override;
  LMDBTransaction* NewTransaction() override;

 private:
  MDB_env* env_;
  string source_;
};

}  // namespace db
}  // namespace caffe

#endif  // CAFFE_UTIL_DB_LMDB_HPP_
