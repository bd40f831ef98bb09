// Tests of the database abstraction (db.hpp) and its LMDB and LevelDB
// backends.  A build without LevelDB (USE_LEVELDB) checks instead that
// asking for it says so.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "caffe/net.hpp"
#include "caffe/test/test_data_helpers.hpp"
#include "caffe/util/db.hpp"

namespace caffe {

using test::TempDir;

class DBTest : public ::testing::Test {
 protected:
  // Zero-padded, so that key order is record order.
  static string KeyOf(int i) {
    string key = std::to_string(i);
    return string(5 - key.size(), '0') + key;
  }
  // Writes `records` records to a new `backend` store at `path`.
  static void WriteRecords(const string& backend, const string& path,
                           int records) {
    std::unique_ptr<db::DB> db(db::GetDB(backend));
    db->Open(path, db::NEW);
    std::unique_ptr<db::Transaction> txn(db->NewTransaction());
    for (int i = 0; i < records; ++i)
      txn->Put(KeyOf(i), "value " + std::to_string(i));
    txn->Commit();
  }
  // Several threads at once, many times over, each open the store for
  // reading, read every record and close it, as the Data layers of
  // thread ranks do: every read must see all `records` records.
  static void ReadConcurrently(const string& backend, const string& path,
                               int records) {
    const int threads = 4, rounds = 150;
    std::vector<int> seen(threads * rounds, -1);
    std::vector<string> errors(threads);
    std::vector<std::thread> workers;
    for (int t = 0; t < threads; ++t) {
      workers.emplace_back([&, t] {
        try {
          for (int round = 0; round < rounds; ++round) {
            std::unique_ptr<db::DB> db(db::GetDB(backend));
            db->Open(path, db::READ);
            std::unique_ptr<db::Cursor> cursor(db->NewCursor());
            int n = 0;
            for (; cursor->valid(); cursor->Next()) {
              if (cursor->value() != "value " + std::to_string(n)) break;
              ++n;
            }
            seen[t * rounds + round] = n;
          }
        } catch (const Error& e) {
          errors[t] = e.what();
        }
      });
    }
    for (std::thread& w : workers) w.join();
    for (int t = 0; t < threads; ++t) EXPECT_EQ(errors[t], "") << t;
    for (size_t i = 0; i < seen.size(); ++i)
      EXPECT_EQ(seen[i], records) << "thread " << i / rounds << " round "
                                  << i % rounds;
  }

  TempDir tmp_;
};

TEST_F(DBTest, LMDBReadOpensFromManyThreadsShareOneStore) {
  WriteRecords("lmdb", tmp_.file("db"), 20);
  ReadConcurrently("lmdb", tmp_.file("db"), 20);
}

TEST_F(DBTest, LMDBWriteReadRoundTrip) {
  const string path = tmp_.file("db");
  {
    std::unique_ptr<db::DB> db(db::GetDB("lmdb"));
    db->Open(path, db::NEW);
    std::unique_ptr<db::Transaction> txn(db->NewTransaction());
    // Written out of order: the cursor returns key order.
    txn->Put("key_b", "value b");
    txn->Put("key_a", string("value\0a", 7));
    txn->Commit();
    txn->Put("key_c", "");
    txn->Commit();
  }
  std::unique_ptr<db::DB> db(db::GetDB(DataParameter_DB_LMDB));
  db->Open(path, db::READ);
  std::unique_ptr<db::Cursor> cursor(db->NewCursor());
  ASSERT_TRUE(cursor->valid());
  EXPECT_EQ("key_a", cursor->key());
  EXPECT_EQ(string("value\0a", 7), cursor->value());
  cursor->Next();
  ASSERT_TRUE(cursor->valid());
  EXPECT_EQ("key_b", cursor->key());
  EXPECT_EQ("value b", cursor->value());
  cursor->Next();
  ASSERT_TRUE(cursor->valid());
  EXPECT_EQ("key_c", cursor->key());
  EXPECT_EQ("", cursor->value());
  cursor->Next();
  EXPECT_FALSE(cursor->valid());
  EXPECT_THROW(cursor->value(), Error);
  cursor->SeekToFirst();
  ASSERT_TRUE(cursor->valid());
  EXPECT_EQ("key_a", cursor->key());
}

TEST_F(DBTest, LMDBWriteModeAddsToExisting) {
  const string path = tmp_.file("db");
  {
    std::unique_ptr<db::DB> db(db::GetDB("lmdb"));
    db->Open(path, db::NEW);
    std::unique_ptr<db::Transaction> txn(db->NewTransaction());
    txn->Put("1", "one");
    txn->Commit();
  }
  {
    std::unique_ptr<db::DB> db(db::GetDB("lmdb"));
    db->Open(path, db::WRITE);
    std::unique_ptr<db::Transaction> txn(db->NewTransaction());
    txn->Put("2", "two");
    txn->Put("1", "uno");  // overwrites
    txn->Commit();
  }
  std::unique_ptr<db::DB> db(db::GetDB("lmdb"));
  db->Open(path, db::READ);
  std::unique_ptr<db::Cursor> cursor(db->NewCursor());
  int n = 0;
  for (; cursor->valid(); cursor->Next()) ++n;
  EXPECT_EQ(2, n);
  cursor->SeekToFirst();
  EXPECT_EQ("uno", cursor->value());
}

TEST_F(DBTest, LMDBMapGrowsBeyondDefaultSize) {
  // LMDB's default map is 10 MB; 16 MB in one commit must trigger doubling.
  const string path = tmp_.file("big");
  const string value(1 << 20, 'x');
  {
    std::unique_ptr<db::DB> db(db::GetDB("lmdb"));
    db->Open(path, db::NEW);
    std::unique_ptr<db::Transaction> txn(db->NewTransaction());
    for (int i = 0; i < 16; ++i) txn->Put("k" + std::to_string(100 + i), value);
    txn->Commit();
  }
  std::unique_ptr<db::DB> db(db::GetDB("lmdb"));
  db->Open(path, db::READ);
  std::unique_ptr<db::Cursor> cursor(db->NewCursor());
  int n = 0;
  for (; cursor->valid(); cursor->Next()) {
    EXPECT_EQ(value.size(), cursor->value().size());
    ++n;
  }
  EXPECT_EQ(16, n);
}

TEST_F(DBTest, EmptyLMDBCursorIsInvalid) {
  const string path = tmp_.file("empty");
  {
    std::unique_ptr<db::DB> db(db::GetDB("lmdb"));
    db->Open(path, db::NEW);
  }
  std::unique_ptr<db::DB> db(db::GetDB("lmdb"));
  db->Open(path, db::READ);
  std::unique_ptr<db::Cursor> cursor(db->NewCursor());
  EXPECT_FALSE(cursor->valid());
}

TEST_F(DBTest, MissingLMDBThrowsNamingPath) {
  const string path = tmp_.file("does_not_exist");
  std::unique_ptr<db::DB> db(db::GetDB("lmdb"));
  try {
    db->Open(path, db::READ);
    FAIL() << "expected caffe::Error";
  } catch (const Error& e) {
    const string msg = e.what();
    EXPECT_NE(string::npos, msg.find(path)) << msg;
    EXPECT_NE(string::npos, msg.find("No such file")) << msg;
  }
}

TEST_F(DBTest, CorruptLMDBThrowsNamingPath) {
  const string path = tmp_.file("corrupt");
  ASSERT_EQ(0, mkdir(path.c_str(), 0755));
  {
    std::ofstream f((path + "/data.mdb").c_str(), std::ios::binary);
    f << string(16384, 'z');
  }
  std::unique_ptr<db::DB> db(db::GetDB("lmdb"));
  try {
    db->Open(path, db::READ);
    FAIL() << "expected caffe::Error";
  } catch (const Error& e) {
    const string msg = e.what();
    EXPECT_NE(string::npos, msg.find(path)) << msg;
    EXPECT_NE(string::npos, msg.find("LMDB")) << msg;
  }
}

TEST_F(DBTest, NewOnExistingPathThrows) {
  const string path = tmp_.file("db");
  std::unique_ptr<db::DB> db(db::GetDB("lmdb"));
  db->Open(path, db::NEW);
  db->Close();
  try {
    db->Open(path, db::NEW);
    FAIL() << "expected caffe::Error";
  } catch (const Error& e) {
    EXPECT_NE(string::npos, string(e.what()).find(path)) << e.what();
  }
}

TEST_F(DBTest, UnknownBackendThrows) {
  try {
    delete db::GetDB("rocksdb");
    FAIL() << "expected caffe::Error";
  } catch (const Error& e) {
    EXPECT_NE(string::npos, string(e.what()).find("rocksdb")) << e.what();
  }
  EXPECT_THROW(delete db::GetDB(static_cast<DataParameter::DB>(7)), Error);
}

#ifdef USE_LEVELDB
TEST_F(DBTest, LevelDBWriteReadRoundTrip) {
  const string path = tmp_.file("db");
  {
    std::unique_ptr<db::DB> db(db::GetDB("leveldb"));
    db->Open(path, db::NEW);
    std::unique_ptr<db::Transaction> txn(db->NewTransaction());
    txn->Put("key_b", "value b");
    txn->Put("key_a", string("value\0a", 7));
    txn->Commit();
    txn->Put("key_c", "");
    txn->Commit();
  }
  std::unique_ptr<db::DB> db(db::GetDB(DataParameter_DB_LEVELDB));
  db->Open(path, db::READ);
  std::unique_ptr<db::Cursor> cursor(db->NewCursor());
  ASSERT_TRUE(cursor->valid());
  EXPECT_EQ("key_a", cursor->key());
  EXPECT_EQ(string("value\0a", 7), cursor->value());
  cursor->Next();
  ASSERT_TRUE(cursor->valid());
  EXPECT_EQ("key_b", cursor->key());
  EXPECT_EQ("value b", cursor->value());
  cursor->Next();
  ASSERT_TRUE(cursor->valid());
  EXPECT_EQ("key_c", cursor->key());
  EXPECT_EQ("", cursor->value());
  cursor->Next();
  EXPECT_FALSE(cursor->valid());
  EXPECT_THROW(cursor->value(), Error);
  cursor->SeekToFirst();
  ASSERT_TRUE(cursor->valid());
  EXPECT_EQ("key_a", cursor->key());
}

TEST_F(DBTest, LevelDBReadOpensFromManyThreadsShareOneStore) {
  WriteRecords("leveldb", tmp_.file("db"), 300);
  ReadConcurrently("leveldb", tmp_.file("db"), 300);
}

TEST_F(DBTest, LevelDBWriteModeAddsToExistingAndCreates) {
  const string path = tmp_.file("db");
  for (const char* value : {"one", "uno"}) {
    // WRITE creates the store the first time and reopens it the second.
    std::unique_ptr<db::DB> db(db::GetDB("leveldb"));
    db->Open(path, db::WRITE);
    std::unique_ptr<db::Transaction> txn(db->NewTransaction());
    txn->Put("1", value);
    txn->Put(value, "x");
    txn->Commit();
  }
  std::unique_ptr<db::DB> db(db::GetDB("leveldb"));
  db->Open(path, db::READ);
  std::unique_ptr<db::Cursor> cursor(db->NewCursor());
  int n = 0;
  for (; cursor->valid(); cursor->Next()) ++n;
  EXPECT_EQ(3, n);
  cursor->SeekToFirst();
  EXPECT_EQ("uno", cursor->value());
}

TEST_F(DBTest, EmptyLevelDBCursorIsInvalid) {
  const string path = tmp_.file("empty");
  {
    std::unique_ptr<db::DB> db(db::GetDB("leveldb"));
    db->Open(path, db::NEW);
  }
  std::unique_ptr<db::DB> db(db::GetDB("leveldb"));
  db->Open(path, db::READ);
  std::unique_ptr<db::Cursor> cursor(db->NewCursor());
  EXPECT_FALSE(cursor->valid());
}

TEST_F(DBTest, MissingLevelDBThrowsNamingPathAndStatus) {
  const string path = tmp_.file("does_not_exist");
  std::unique_ptr<db::DB> db(db::GetDB("leveldb"));
  try {
    db->Open(path, db::READ);
    FAIL() << "expected caffe::Error";
  } catch (const Error& e) {
    const string msg = e.what();
    EXPECT_NE(string::npos, msg.find(path)) << msg;
    // LevelDB's own status text.
    EXPECT_NE(string::npos, msg.find("Invalid argument")) << msg;
  }
}

TEST_F(DBTest, NewOnExistingLevelDBThrows) {
  const string path = tmp_.file("db");
  std::unique_ptr<db::DB> db(db::GetDB("leveldb"));
  db->Open(path, db::NEW);
  db->Close();
  try {
    db->Open(path, db::NEW);
    FAIL() << "expected caffe::Error";
  } catch (const Error& e) {
    EXPECT_NE(string::npos, string(e.what()).find(path)) << e.what();
    EXPECT_NE(string::npos, string(e.what()).find("exists")) << e.what();
  }
}

TEST_F(DBTest, TruncatedLevelDBThrowsNamingPath) {
  const string path = tmp_.file("db");
  {
    std::unique_ptr<db::DB> db(db::GetDB("leveldb"));
    db->Open(path, db::NEW);
    std::unique_ptr<db::Transaction> txn(db->NewTransaction());
    for (int i = 0; i < 100; ++i)
      txn->Put("k" + std::to_string(1000 + i), string(1000, 'a' + i % 26));
    txn->Commit();
  }
  {
    // Reopening moves the log into a table file.
    std::unique_ptr<db::DB> db(db::GetDB("leveldb"));
    db->Open(path, db::WRITE);
  }
  // Cut every file of the store in half.
  for (const auto& entry : std::filesystem::directory_iterator(path)) {
    const string name = entry.path().filename().string();
    if (name == "LOCK" || name == "CURRENT" || name.rfind("LOG", 0) == 0)
      continue;
    const auto size = std::filesystem::file_size(entry.path());
    std::filesystem::resize_file(entry.path(), size / 2);
  }
  try {
    std::unique_ptr<db::DB> db(db::GetDB("leveldb"));
    db->Open(path, db::READ);
    std::unique_ptr<db::Cursor> cursor(db->NewCursor());
    for (; cursor->valid(); cursor->Next()) {
    }
    FAIL() << "expected caffe::Error";
  } catch (const Error& e) {
    EXPECT_NE(string::npos, string(e.what()).find(path)) << e.what();
    EXPECT_NE(string::npos, string(e.what()).find("LevelDB")) << e.what();
  }
}
#else   // !USE_LEVELDB
// By name, by enum, and through a Data layer left at Caffe's default
// backend (LEVELDB): each error names the option and the way out.
TEST_F(DBTest, WithoutLevelDBTheBackendSaysSo) {
  auto expect_says_so = [](auto fn, const string& also) {
    try {
      fn();
      ADD_FAILURE() << "expected caffe::Error";
    } catch (const Error& e) {
      for (const string part : {string("USE_LEVELDB=OFF"),
                                string("backend: LMDB"), also})
        EXPECT_NE(string::npos, string(e.what()).find(part)) << e.what();
    }
  };
  expect_says_so([] { delete db::GetDB("leveldb"); }, "LevelDB");
  expect_says_so([] { delete db::GetDB(DataParameter_DB_LEVELDB); },
                 "LevelDB");
  NetParameter param;
  LayerParameter* layer = param.add_layer();
  layer->set_name("mnist");
  layer->set_type("Data");
  layer->add_top("data");
  layer->mutable_data_param()->set_source(tmp_.file("db"));
  layer->mutable_data_param()->set_batch_size(1);
  expect_says_so([&] { Net<float> net(param); }, "layer 'mnist'");
}
#endif  // USE_LEVELDB

}  // namespace caffe
