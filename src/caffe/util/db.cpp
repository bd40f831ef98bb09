#include "caffe/util/db.hpp"

#ifdef USE_LEVELDB
#include "caffe/util/db_leveldb.hpp"
#endif
#include "caffe/util/db_lmdb.hpp"

namespace caffe {
namespace db {

namespace {

// What a build without LevelDB (USE_LEVELDB=OFF) answers where a LevelDB
// store is asked for: the data_param default is LEVELDB, so the message
// also says how to pick LMDB instead.
DB* NewLevelDB() {
#ifdef USE_LEVELDB
  return new LevelDB();
#else
  CAFFE_THROW() << "the LevelDB database backend needs LevelDB, and this "
                   "build of LeanCaffe was configured with USE_LEVELDB=OFF "
                   "(LEVELDB is data_param's default backend: set backend: "
                   "LMDB, or reconfigure with -DUSE_LEVELDB=ON)";
  return nullptr;
#endif
}

}  // namespace

DB* GetDB(DataParameter::DB backend) {
  switch (backend) {
    case DataParameter_DB_LMDB:
      return new LMDB();
    case DataParameter_DB_LEVELDB:
      return NewLevelDB();
  }
  CAFFE_THROW() << "Unknown database backend " << static_cast<int>(backend);
  return nullptr;
}

DB* GetDB(const string& backend) {
  if (backend == "lmdb") return new LMDB();
  if (backend == "leveldb") return NewLevelDB();
  CAFFE_THROW() << "Unknown database backend \"" << backend
                << "\" (known: lmdb, leveldb)";
  return nullptr;
}

}  // namespace db
}  // namespace caffe
