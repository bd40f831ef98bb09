// A corrupted or truncated LMDB gives caffe::Error naming the store, never
// a crash or LMDB's abort (mapped_read_guard.hpp): bits are flipped at
// random (seeded) places of a real data.mdb, many times, and every record
// is read back through the cursor the Data layer uses.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <random>
#include <sstream>
#include <string>

#include "caffe/proto/caffe.pb.h"
#include "caffe/test/temp_dir.hpp"
#include "caffe/util/db.hpp"

namespace caffe {
namespace {

namespace fs = std::filesystem;

const int kRecords = 300;

void MakeStore(const std::string& path) {
  std::unique_ptr<db::DB> store(db::GetDB(DataParameter::LMDB));
  store->Open(path, db::NEW);
  std::unique_ptr<db::Transaction> txn(store->NewTransaction());
  for (int i = 0; i < kRecords; ++i) {
    Datum datum;
    datum.set_channels(1);
    datum.set_height(28);
    datum.set_width(28);
    datum.set_label(i % 10);
    datum.set_data(std::string(28 * 28, static_cast<char>(i)));
    char key[16];
    std::snprintf(key, sizeof(key), "%08d", i);
    txn->Put(key, datum.SerializeAsString());
  }
  txn->Commit();
}

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Reads every record as the Data layer does; returns the records read.
// Stops after 10 x kRecords (a corrupted tree might cycle).
int ReadEverything(const std::string& path) {
  std::unique_ptr<db::DB> store(db::GetDB(DataParameter::LMDB));
  store->Open(path, db::READ);
  std::unique_ptr<db::Cursor> cursor(store->NewCursor());
  int n = 0;
  for (; cursor->valid() && n < 10 * kRecords; cursor->Next(), ++n) {
    cursor->key();
    Datum datum;
    datum.ParseFromString(cursor->value());
  }
  return n;
}

TEST(LMDBCorruptionTest, FlippedBitsGiveErrorsNamingTheStore) {
  TempDir dir;
  const std::string good = dir.file("good");
  MakeStore(good);
  ASSERT_EQ(ReadEverything(good), kRecords);
  const std::string image = ReadAll(good + "/data.mdb");
  const size_t pages = image.size() / 4096;
  std::mt19937 rng(11);
  int refused = 0, corrupted = 0;
  for (int trial = 0; trial < 150; ++trial) {
    const std::string bad = dir.file("bad" + std::to_string(trial));
    fs::create_directory(bad);
    std::string copy = image;
    const int flips = 1 << (trial % 3 * 2);  // 1, 4 or 16 bits
    for (int f = 0; f < flips; ++f) {
      // Mostly page headers and node offsets, where structure lives.
      const size_t page = rng() % pages;
      const size_t offset = page * 4096 + (rng() % 2 ? rng() % 64 : rng() % 4096);
      copy[offset] ^= static_cast<char>(1 << (rng() % 8));
    }
    std::ofstream(bad + "/data.mdb", std::ios::binary) << copy;
    try {
      ReadEverything(bad);
    } catch (const Error& e) {
      const std::string what = e.what();
      ++refused;
      EXPECT_NE(what.find("'" + bad + "'"), std::string::npos) << what;
      corrupted += what.find("is corrupted") != std::string::npos;
    }
    fs::remove_all(bad);
  }
  std::cout << "  " << refused << " of 150 corrupted copies refused, "
            << corrupted << " by the read guard\n";
  EXPECT_GT(corrupted, 0) << "no corruption reached the guarded reads";
}

TEST(LMDBCorruptionTest, TruncatedFileIsAnErrorNotABusError) {
  TempDir dir;
  const std::string path = dir.file("db");
  MakeStore(path);
  fs::resize_file(path + "/data.mdb", fs::file_size(path + "/data.mdb") / 3);
  try {
    ReadEverything(path);
    FAIL() << "a truncated LMDB read to the end";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("LMDB '" + path + "'"), std::string::npos) << what;
  }
}

}  // namespace
}  // namespace caffe
