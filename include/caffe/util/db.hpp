// db.hpp: the key-value store abstraction data layers and tools read from.
//
// Contract (Caffe 1.0): GetDB picks a backend by DataParameter::DB or by name
// ("lmdb", "leveldb"); the caller owns the returned DB.  Open(source, mode)
// opens READ (read-only, existing), WRITE (existing, writable) or NEW (creates
// the store; fails if it exists).  A Cursor walks the records in key order;
// a Transaction buffers Puts and writes them all on Commit.  Cursors and
// transactions must be deleted before their DB is closed.  Every failure
// (missing or corrupt store, unknown or unbuilt backend) throws caffe::Error
// naming the path and the backend's own error text.  LevelDB is optional
// (USE_LEVELDB, as in Caffe 1.0): a build without it throws from GetDB for
// "leveldb" / LEVELDB, naming USE_LEVELDB=OFF.
#ifndef CAFFE_UTIL_DB_HPP_
#define CAFFE_UTIL_DB_HPP_

#include <string>

#include "caffe/common.hpp"
#include "caffe/proto/caffe.pb.h"

namespace caffe {
namespace db {

enum Mode { READ, WRITE, NEW };

class Cursor {
 public:
  Cursor() {}
  virtual ~Cursor() {}
  virtual void SeekToFirst() = 0;
  virtual void Next() = 0;
  virtual string key() = 0;
  virtual string value() = 0;
  // False once Next() has passed the last record (or the store is empty).
  virtual bool valid() = 0;

  DISABLE_COPY_AND_ASSIGN(Cursor);
};

class Transaction {
 public:
  Transaction() {}
  virtual ~Transaction() {}
  virtual void Put(const string& key, const string& value) = 0;
  virtual void Commit() = 0;

  DISABLE_COPY_AND_ASSIGN(Transaction);
};

class DB {
 public:
  DB() {}
  virtual ~DB() {}
  virtual void Open(const string& source, Mode mode) = 0;
  virtual void Close() = 0;
  virtual Cursor* NewCursor() = 0;
  virtual Transaction* NewTransaction() = 0;

  DISABLE_COPY_AND_ASSIGN(DB);
};

DB* GetDB(DataParameter::DB backend);
DB* GetDB(const string& backend);

}  // namespace db
}  // namespace caffe

#endif  // CAFFE_UTIL_DB_HPP_
