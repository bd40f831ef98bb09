#include "caffe/util/db.hpp"

#include "caffe/util/db_lmdb.hpp"

namespace caffe {
namespace db {

namespace {
// LevelDB is an optional backend; until it is built in, say so plainly
// rather than failing later with a confusing open error.
[[noreturn]] void NoLevelDB() {
  CAFFE_THROW() << "LevelDB support is not built into this LeanCaffe build; "
                   "use backend: LMDB (or --backend=lmdb), or convert the "
                   "database to LMDB";
  throw Error("unreachable");
}
}  // namespace

DB* GetDB(DataParameter::DB backend) {
  switch (backend) {
    case DataParameter_DB_LMDB:
      return new LMDB();
    case DataParameter_DB_LEVELDB:
      NoLevelDB();
  }
  CAFFE_THROW() << "Unknown database backend " << static_cast<int>(backend);
  return nullptr;
}

DB* GetDB(const string& backend) {
  if (backend == "lmdb") return new LMDB();
  if (backend == "leveldb") NoLevelDB();
  CAFFE_THROW() << "Unknown database backend \"" << backend
                << "\" (known: lmdb, leveldb)";
  return nullptr;
}

}  // namespace db
}  // namespace caffe
