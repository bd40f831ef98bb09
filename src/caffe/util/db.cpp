#include "caffe/util/db.hpp"

#include "caffe/util/db_leveldb.hpp"
#include "caffe/util/db_lmdb.hpp"

namespace caffe {
namespace db {

DB* GetDB(DataParameter::DB backend) {
  switch (backend) {
    case DataParameter_DB_LMDB:
      return new LMDB();
    case DataParameter_DB_LEVELDB:
      return new LevelDB();
  }
  CAFFE_THROW() << "Unknown database backend " << static_cast<int>(backend);
  return nullptr;
}

DB* GetDB(const string& backend) {
  if (backend == "lmdb") return new LMDB();
  if (backend == "leveldb") return new LevelDB();
  CAFFE_THROW() << "Unknown database backend \"" << backend
                << "\" (known: lmdb, leveldb)";
  return nullptr;
}

}  // namespace db
}  // namespace caffe
