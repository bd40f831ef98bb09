// db_lmdb.hpp: the LMDB backend of db.hpp.
//
// Contract: the store is a directory holding data.mdb and lock.mdb, as Caffe
// writes it.  READ opens with MDB_RDONLY | MDB_NOTLS, so a cursor created on
// one thread may be used on another (the prefetch thread).  LMDB forbids
// opening one store twice in a process, so READ opens of the same directory
// share one environment, closed with its last user.  The memory map
// starts at LMDB's default size and doubles whenever a commit hits
// MDB_MAP_FULL, so writers never need to guess the final size.  Reads
// run under GuardMappedRead (mapped_read_guard.hpp): a corrupted or
// truncated data.mdb gives caffe::Error naming the store, not a crash or
// LMDB's abort.  Each record is copied out of the map as it is read.
#ifndef CAFFE_UTIL_DB_LMDB_HPP_
#define CAFFE_UTIL_DB_LMDB_HPP_

#include <lmdb.h>
#include <sys/types.h>

#include <string>
#include <utility>
#include <vector>

#include "caffe/util/db.hpp"

namespace caffe {
namespace db {

class LMDBCursor : public Cursor {
 public:
  // [begin, end) ranges where data.mdb's bytes are mapped in this process:
  // every record must lie in one (empty: not checked).
  typedef vector<std::pair<const char*, const char*> > Extents;
  LMDBCursor(MDB_txn* txn, MDB_cursor* cursor, const string& source,
             const Extents& file);
  ~LMDBCursor() override;
  void SeekToFirst() override { Seek(MDB_FIRST); }
  void Next() override { Seek(MDB_NEXT); }
  string key() override;
  string value() override;
  bool valid() override { return valid_; }

 private:
  void Seek(MDB_cursor_op op);
  bool Inside(const MDB_val& v) const;

  MDB_txn* txn_;
  MDB_cursor* cursor_;
  MDB_val key_, value_;
  string key_copy_, value_copy_;  // the current record, out of the map
  bool valid_;
  string source_;
  Extents file_;
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
  LMDB() : env_(nullptr), shared_(false) {}
  ~LMDB() override { Close(); }
  void Open(const string& source, Mode mode) override;
  void Close() override;
  LMDBCursor* NewCursor() override;
  LMDBTransaction* NewTransaction() override;

 private:
  MDB_env* env_;
  string source_;
  // READ opens share one environment per store in the process (LMDB
  // forbids two): shared_ says env_ is that one, under shared_key_.
  bool shared_;
  std::pair<dev_t, ino_t> shared_key_;
};

}  // namespace db
}  // namespace caffe

#endif  // CAFFE_UTIL_DB_LMDB_HPP_
