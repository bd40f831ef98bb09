// Tests of the library side of convert_mnist_data and compute_image_mean,
// run on small idx files written here (plain and gzip).
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "caffe/test/test_data_helpers.hpp"
#include "caffe/util/db.hpp"
#include "caffe/util/mnist_convert.hpp"

namespace caffe {

using test::TempDir;
using test::WriteIdxImages;
using test::WriteIdxLabels;

// The backends this build has (LevelDB is optional: USE_LEVELDB).
const vector<string> kBackends = {
#ifdef USE_LEVELDB
    "leveldb",
#endif
    "lmdb"};

class MnistConvertTest : public ::testing::Test {
 protected:
  // num images of 3 x 4; pixel j of image i is (37 i + j) mod 256.
  void MakeInputs(int num, bool gzip) {
    pixels_.clear();
    labels_.clear();
    for (int i = 0; i < num; ++i) {
      string p;
      for (int j = 0; j < 12; ++j) p.push_back(static_cast<char>(37 * i + j));
      pixels_.push_back(p);
      labels_.push_back(i % 10);
    }
    images_ = tmp_.file(gzip ? "images.gz" : "images");
    labels_file_ = tmp_.file(gzip ? "labels.gz" : "labels");
    WriteIdxImages(images_, pixels_, 3, 4, gzip);
    WriteIdxLabels(labels_file_, labels_, gzip);
  }

  void ExpectDbMatches(const string& path) {
    std::unique_ptr<db::DB> db(db::GetDB("lmdb"));
    db->Open(path, db::READ);
    std::unique_ptr<db::Cursor> cursor(db->NewCursor());
    size_t i = 0;
    for (; cursor->valid(); cursor->Next(), ++i) {
      ASSERT_LT(i, pixels_.size());
      char key[16];
      snprintf(key, sizeof(key), "%08d", static_cast<int>(i));
      EXPECT_EQ(key, cursor->key());
      Datum datum;
      ASSERT_TRUE(datum.ParseFromString(cursor->value()));
      EXPECT_EQ(1, datum.channels());
      EXPECT_EQ(3, datum.height());
      EXPECT_EQ(4, datum.width());
      EXPECT_EQ(labels_[i], datum.label());
      EXPECT_EQ(pixels_[i], datum.data());
    }
    EXPECT_EQ(pixels_.size(), i);
  }

  // Expects fn to throw caffe::Error whose message contains needle.
  template <typename Fn>
  void ExpectErrorContaining(Fn fn, const string& needle) {
    try {
      fn();
      ADD_FAILURE() << "expected caffe::Error containing " << needle;
    } catch (const Error& e) {
      EXPECT_NE(string::npos, string(e.what()).find(needle)) << e.what();
    }
  }

  TempDir tmp_;
  vector<string> pixels_;
  vector<int> labels_;
  string images_, labels_file_;
};

TEST_F(MnistConvertTest, SiamesePairsAreTwoImagesLabelledBySameClass) {
  MakeInputs(20, false);
  for (const string& backend : kBackends) {
    const string path = tmp_.file("pairs_" + backend);
    EXPECT_EQ(20, ConvertMnistSiamese(images_, labels_file_, path, backend,
                                      11));
    std::unique_ptr<db::DB> db(db::GetDB(backend));
    db->Open(path, db::READ);
    std::unique_ptr<db::Cursor> cursor(db->NewCursor());
    int n = 0, same = 0;
    for (; cursor->valid(); cursor->Next(), ++n) {
      Datum datum;
      ASSERT_TRUE(datum.ParseFromString(cursor->value()));
      ASSERT_EQ(2, datum.channels());
      ASSERT_EQ(3, datum.height());
      ASSERT_EQ(4, datum.width());
      // Each half is one of the input images; the label says whether
      // their classes agree.
      const string first = datum.data().substr(0, 12);
      const string second = datum.data().substr(12);
      int a = -1, b = -1;
      for (size_t i = 0; i < pixels_.size(); ++i) {
        if (pixels_[i] == first) a = static_cast<int>(i);
        if (pixels_[i] == second) b = static_cast<int>(i);
      }
      ASSERT_GE(a, 0);
      ASSERT_GE(b, 0);
      EXPECT_EQ(labels_[a] == labels_[b] ? 1 : 0, datum.label());
      same += datum.label();
    }
    EXPECT_EQ(20, n);
    EXPECT_LT(same, n);  // random pairs: mostly different classes
  }
}

TEST_F(MnistConvertTest, ConvertsPlainIdx) {
  MakeInputs(7, false);
  const string db = tmp_.file("db");
  EXPECT_EQ(7, ConvertMnist(images_, labels_file_, db, "lmdb"));
  ExpectDbMatches(db);
}

TEST_F(MnistConvertTest, ConvertsGzipIdx) {
  MakeInputs(5, true);
  const string db = tmp_.file("db");
  EXPECT_EQ(5, ConvertMnist(images_, labels_file_, db, "lmdb"));
  ExpectDbMatches(db);
}

TEST_F(MnistConvertTest, CommitsInThousands) {
  // More than one commit of 1000 plus a remainder.
  MakeInputs(2345, false);
  const string db = tmp_.file("db");
  EXPECT_EQ(2345, ConvertMnist(images_, labels_file_, db, "lmdb"));
  ExpectDbMatches(db);
}

TEST_F(MnistConvertTest, BadMagicNumbers) {
  MakeInputs(2, false);
  const string db = tmp_.file("db");
  // Labels given as images and images as labels.
  ExpectErrorContaining(
      [&] { ConvertMnist(labels_file_, images_, db, "lmdb"); }, labels_file_);
  const string bad_labels = tmp_.file("bad_labels");
  WriteIdxLabels(bad_labels, labels_, false, 1234);
  ExpectErrorContaining(
      [&] { ConvertMnist(images_, bad_labels, db, "lmdb"); }, "1234");
}

TEST_F(MnistConvertTest, CountMismatch) {
  MakeInputs(3, false);
  const string labels = tmp_.file("labels2");
  WriteIdxLabels(labels, {1, 2});
  ExpectErrorContaining(
      [&] { ConvertMnist(images_, labels, tmp_.file("db"), "lmdb"); },
      "holds 3 images");
}

TEST_F(MnistConvertTest, TruncatedFiles) {
  MakeInputs(3, false);
  // The header claims 4 images, the file holds 3.
  const string images = tmp_.file("short_images.gz");
  {
    string bytes;
    test::AppendBigEndian32(2051, &bytes);
    test::AppendBigEndian32(4, &bytes);
    test::AppendBigEndian32(3, &bytes);
    test::AppendBigEndian32(4, &bytes);
    for (const string& p : pixels_) bytes += p;
    test::WriteBytes(images, bytes, true);
  }
  WriteIdxLabels(labels_file_, {1, 2, 3, 4});
  ExpectErrorContaining(
      [&] { ConvertMnist(images, labels_file_, tmp_.file("db"), "lmdb"); },
      "truncated");
  // A file shorter than its header.
  const string stub = tmp_.file("stub");
  test::WriteBytes(stub, "\x00\x00", false);
  ExpectErrorContaining(
      [&] { ConvertMnist(stub, labels_file_, tmp_.file("db2"), "lmdb"); },
      stub);
}

TEST_F(MnistConvertTest, MissingInputAndExistingOutput) {
  MakeInputs(2, false);
  const string missing = tmp_.file("missing-images");
  ExpectErrorContaining(
      [&] { ConvertMnist(missing, labels_file_, tmp_.file("db"), "lmdb"); },
      missing);
  const string db = tmp_.file("db");
  ConvertMnist(images_, labels_file_, db, "lmdb");
  ExpectErrorContaining([&] { ConvertMnist(images_, labels_file_, db, "lmdb"); },
                        db);
  ExpectErrorContaining(
      [&] { ConvertMnist(images_, labels_file_, tmp_.file("x"), "rocksdb"); },
      "rocksdb");
}

TEST_F(MnistConvertTest, ComputeImageMeanOfConvertedDb) {
  MakeInputs(4, false);
  for (const string& backend : kBackends) {
    const string db = tmp_.file("db_" + backend);
    ConvertMnist(images_, labels_file_, db, backend);
    BlobProto mean;
    vector<double> channel_means;
    EXPECT_EQ(4, ComputeImageMean(db, backend, &mean, &channel_means));
    EXPECT_EQ(1, mean.num());
    EXPECT_EQ(1, mean.channels());
    EXPECT_EQ(3, mean.height());
    EXPECT_EQ(4, mean.width());
    ASSERT_EQ(12, mean.data_size());
    double total = 0;
    for (int j = 0; j < 12; ++j) {
      double expected = 0;
      for (int i = 0; i < 4; ++i)
        expected += static_cast<unsigned char>(pixels_[i][j]);
      expected /= 4;
      EXPECT_NEAR(expected, mean.data(j), 1e-4);
      total += expected;
    }
    ASSERT_EQ(1u, channel_means.size());
    EXPECT_NEAR(total / 12, channel_means[0], 1e-6);
  }
}

TEST_F(MnistConvertTest, ComputeImageMeanFloatMultiChannel) {
  const string path = tmp_.file("db");
  {
    std::unique_ptr<db::DB> db(db::GetDB("lmdb"));
    db->Open(path, db::NEW);
    std::unique_ptr<db::Transaction> txn(db->NewTransaction());
    for (int i = 0; i < 2; ++i) {
      Datum d;
      d.set_channels(2);
      d.set_height(1);
      d.set_width(2);
      // channel 0: i, i+1; channel 1: 10 i, 10 i + 2
      d.add_float_data(i);
      d.add_float_data(i + 1);
      d.add_float_data(10 * i);
      d.add_float_data(10 * i + 2);
      txn->Put("k" + std::to_string(i), d.SerializeAsString());
    }
    txn->Commit();
  }
  BlobProto mean;
  vector<double> channel_means;
  EXPECT_EQ(2, ComputeImageMean(path, "lmdb", &mean, &channel_means));
  ASSERT_EQ(4, mean.data_size());
  EXPECT_FLOAT_EQ(0.5, mean.data(0));
  EXPECT_FLOAT_EQ(1.5, mean.data(1));
  EXPECT_FLOAT_EQ(5, mean.data(2));
  EXPECT_FLOAT_EQ(7, mean.data(3));
  ASSERT_EQ(2u, channel_means.size());
  EXPECT_DOUBLE_EQ(1.0, channel_means[0]);
  EXPECT_DOUBLE_EQ(6.0, channel_means[1]);
}

TEST_F(MnistConvertTest, ComputeImageMeanErrors) {
  // Empty database.
  const string empty = tmp_.file("empty");
  {
    std::unique_ptr<db::DB> db(db::GetDB("lmdb"));
    db->Open(empty, db::NEW);
  }
  BlobProto mean;
  ExpectErrorContaining([&] { ComputeImageMean(empty, "lmdb", &mean); },
                        "empty");
  // Records of different sizes.
  const string mixed = tmp_.file("mixed");
  {
    std::unique_ptr<db::DB> db(db::GetDB("lmdb"));
    db->Open(mixed, db::NEW);
    std::unique_ptr<db::Transaction> txn(db->NewTransaction());
    Datum d;
    d.set_channels(1);
    d.set_height(1);
    d.set_width(2);
    d.set_data("ab");
    txn->Put("a", d.SerializeAsString());
    d.set_width(3);
    d.set_data("abc");
    txn->Put("b", d.SerializeAsString());
    txn->Commit();
  }
  ExpectErrorContaining([&] { ComputeImageMean(mixed, "lmdb", &mean); },
                        "'b'");
  ExpectErrorContaining(
      [&] { ComputeImageMean(tmp_.file("none"), "lmdb", &mean); },
      tmp_.file("none"));
}

}  // namespace caffe
