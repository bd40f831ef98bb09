// Tests of the dataset tools (convert_imageset, convert_cifar_data,
// extract_features, compute_image_mean) as library functions, and of the
// Data layer reading what they write, for both LMDB and LevelDB.  Builds
// without LevelDB (USE_LEVELDB) test LMDB alone; the image converter tests
// need OpenCV (USE_OPENCV), the CIFAR converter does not.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "caffe/layers/data_layer.hpp"
#include "caffe/test/test_data_helpers.hpp"
#include "caffe/test/test_gradient_check_util.hpp"
#include "caffe/test/test_image_helpers.hpp"
#include "caffe/util/dataset_tools.hpp"
#include "caffe/util/db.hpp"
#include "caffe/util/image_io.hpp"
#include "caffe/util/io.hpp"
#include "caffe/util/mnist_convert.hpp"

namespace caffe {

#ifdef USE_OPENCV
using test::PatternImage;
#endif
using test::PatternValue;
using test::TempDir;

namespace {

const int kImages = 5, kRows = 4, kCols = 5;

// Reads every record of a database as (key, Datum).
vector<pair<string, Datum> > ReadAll(const string& path,
                                     const string& backend) {
  std::unique_ptr<db::DB> db(db::GetDB(backend));
  db->Open(path, db::READ);
  std::unique_ptr<db::Cursor> cursor(db->NewCursor());
  vector<pair<string, Datum> > records;
  for (; cursor->valid(); cursor->Next()) {
    Datum datum;
    EXPECT_TRUE(datum.ParseFromString(cursor->value()));
    records.push_back(make_pair(cursor->key(), datum));
  }
  return records;
}

template <typename Fn>
void ExpectErrorNaming(Fn fn, const vector<string>& parts) {
  try {
    fn();
    ADD_FAILURE() << "expected caffe::Error";
  } catch (const Error& e) {
    for (const string& part : parts)
      EXPECT_NE(string::npos, string(e.what()).find(part)) << e.what();
  }
}

}  // namespace

// Parameterised over the backend name.
class ConvertImagesetTest : public ::testing::TestWithParam<const char*> {
 protected:
  ConvertImagesetTest() : backend_(GetParam()) {
    Caffe::set_random_seed(1701);
    root_ = tmp_.path() + "/";
#ifdef USE_OPENCV
    string list;
    for (int i = 0; i < kImages; ++i) {
      const string name = "img" + std::to_string(i) + ".png";
      test::WritePng(tmp_.file(name), PatternImage(i, kRows, kCols, 3));
      list += name + " " + std::to_string(i % 3) + "\n";
    }
    list_ = tmp_.file("list.txt");
    test::WriteTextFile(list_, list);
#endif
  }

  LayerParameter DataParam(const string& source, int batch_size) {
    LayerParameter param;
    param.set_name("data");
    param.set_type("Data");
    param.set_phase(TEST);
    param.mutable_data_param()->set_source(source);
    param.mutable_data_param()->set_backend(
        backend_ == "lmdb" ? DataParameter_DB_LMDB : DataParameter_DB_LEVELDB);
    param.mutable_data_param()->set_batch_size(batch_size);
    return param;
  }

  TempDir tmp_;
  string backend_, root_, list_;
};

#ifdef USE_OPENCV
TEST_P(ConvertImagesetTest, DataLayerReadsValuesLabelsAndOrder) {
  ConvertImagesetOptions options;
  options.backend = backend_;
  const string db = tmp_.file("db");
  EXPECT_EQ(kImages, ConvertImageset(root_, list_, db, options));
  const auto records = ReadAll(db, backend_);
  ASSERT_EQ(static_cast<size_t>(kImages), records.size());
  EXPECT_EQ("00000000_img0.png", records[0].first);
  EXPECT_EQ("00000004_img4.png", records[4].first);

  DataLayer<float> layer(DataParam(db, kImages));
  Blob<float> data, label;
  vector<Blob<float>*> bottom, top{&data, &label};
  layer.SetUp(bottom, top);
  layer.Forward(bottom, top);
  ASSERT_EQ((vector<int>{kImages, 3, kRows, kCols}), data.shape());
  for (int n = 0; n < kImages; ++n) {
    EXPECT_EQ(n % 3, label.cpu_data()[n]);
    for (int c = 0; c < 3; ++c)
      for (int h = 0; h < kRows; ++h)
        for (int w = 0; w < kCols; ++w)
          ASSERT_EQ(PatternValue(n, h, w, c), data.data_at(n, c, h, w));
  }
}

TEST_P(ConvertImagesetTest, ShuffleKeepsPairsAndPermutes) {
  ConvertImagesetOptions options;
  options.backend = backend_;
  options.shuffle = true;
  const string db = tmp_.file("db");
  ConvertImageset(root_, list_, db, options);
  const auto records = ReadAll(db, backend_);
  ASSERT_EQ(static_cast<size_t>(kImages), records.size());
  std::set<string> names;
  bool moved = false;
  for (size_t i = 0; i < records.size(); ++i) {
    const string& key = records[i].first;
    const string name = key.substr(9);
    names.insert(name);
    const int image = name[3] - '0';
    moved |= image != static_cast<int>(i);
    EXPECT_EQ(image % 3, records[i].second.label()) << key;
    EXPECT_EQ(PatternValue(image, 0, 1, 2),
              static_cast<uint8_t>(
                  records[i].second.data()[(2 * kRows + 0) * kCols + 1]));
  }
  EXPECT_EQ(static_cast<size_t>(kImages), names.size());
  EXPECT_TRUE(moved) << "shuffle left the order unchanged";
}

TEST_P(ConvertImagesetTest, GrayResizeAndCropMirror) {
  ConvertImagesetOptions options;
  options.backend = backend_;
  options.gray = true;
  options.resize_height = 6;
  options.resize_width = 8;
  const string db = tmp_.file("db");
  ConvertImageset(root_, list_, db, options);
  const auto records = ReadAll(db, backend_);
  ASSERT_EQ(static_cast<size_t>(kImages), records.size());
  const Datum& d = records[2].second;
  EXPECT_EQ(1, d.channels());
  EXPECT_EQ(6, d.height());
  EXPECT_EQ(8, d.width());
  // The same as OpenCV's own gray conversion and resize.
  Datum expected;
  ReadImageToDatum(tmp_.file("img2.png"), 2, 6, 8, false, &expected);
  EXPECT_EQ(expected.data(), d.data());

  // Crop 4 (centre in TEST) and mirror through the transformer.
  LayerParameter param = DataParam(db, 1);
  param.mutable_transform_param()->set_crop_size(4);
  param.mutable_transform_param()->set_mirror(true);
  DataLayer<float> layer(param);
  Blob<float> data, label;
  vector<Blob<float>*> bottom, top{&data, &label};
  layer.SetUp(bottom, top);
  for (int n = 0; n < kImages; ++n) {
    layer.Forward(bottom, top);
    ASSERT_EQ((vector<int>{1, 1, 4, 4}), data.shape());
    const string& pixels = records[n].second.data();
    auto at = [&](int h, int w) {
      return static_cast<float>(static_cast<uint8_t>(
          pixels[(h + 1) * 8 + w + 2]));
    };
    const bool mirrored = data.data_at(0, 0, 0, 0) != at(0, 0);
    for (int h = 0; h < 4; ++h)
      for (int w = 0; w < 4; ++w)
        ASSERT_EQ(at(h, mirrored ? 3 - w : w), data.data_at(0, 0, h, w));
  }
}

TEST_P(ConvertImagesetTest, EncodedImagesDecodeInDataLayerAndMean) {
  ConvertImagesetOptions options;
  options.backend = backend_;
  options.encoded = true;
  const string db = tmp_.file("db");
  ConvertImageset(root_, list_, db, options);
  auto records = ReadAll(db, backend_);
  ASSERT_EQ(static_cast<size_t>(kImages), records.size());
  EXPECT_TRUE(records[0].second.encoded());
  // The png files are stored as they are.
  Datum file;
  ReadFileToDatum(tmp_.file("img0.png"), 0, &file);
  EXPECT_EQ(file.data(), records[0].second.data());

  {
    // LevelDB allows one open handle per store: close it before the mean.
    DataLayer<double> layer(DataParam(db, 2));
    Blob<double> data, label;
    vector<Blob<double>*> bottom, top{&data, &label};
    layer.SetUp(bottom, top);
    layer.Forward(bottom, top);
    ASSERT_EQ((vector<int>{2, 3, kRows, kCols}), data.shape());
    EXPECT_EQ(PatternValue(1, 3, 4, 2), data.data_at(1, 2, 3, 4));
    EXPECT_EQ(1, label.cpu_data()[1]);
  }

  BlobProto mean;
  EXPECT_EQ(kImages, ComputeImageMean(db, backend_, &mean));
  ASSERT_EQ(3 * kRows * kCols, mean.data_size());
  double expected = 0;
  for (int i = 0; i < kImages; ++i) expected += PatternValue(i, 1, 2, 0);
  EXPECT_NEAR(expected / kImages, mean.data((0 * kRows + 1) * kCols + 2),
              1e-4);

  // encode_type re-encodes (and implies encoded).
  ConvertImagesetOptions jpg;
  jpg.backend = backend_;
  jpg.encode_type = "jpg";
  const string jpg_db = tmp_.file("jpg_db");
  ConvertImageset(root_, list_, jpg_db, jpg);
  records = ReadAll(jpg_db, backend_);
  ASSERT_TRUE(records[0].second.encoded());
  const string& bytes = records[0].second.data();
  ASSERT_GE(bytes.size(), 2u);
  EXPECT_EQ(0xFF, static_cast<uint8_t>(bytes[0]));  // JPEG SOI marker
  EXPECT_EQ(0xD8, static_cast<uint8_t>(bytes[1]));
  jpg.encode_type = "nosuchformat";
  EXPECT_THROW(ConvertImageset(root_, list_, tmp_.file("bad_db"), jpg),
               Error);
}

TEST_P(ConvertImagesetTest, CheckSizeAndMissingImages) {
  test::WritePng(tmp_.file("big.png"), PatternImage(9, kRows + 1, kCols, 3));
  test::WriteTextFile(list_, "img0.png 0\nimg1.png 1\nbig.png 2\n");
  ConvertImagesetOptions options;
  options.backend = backend_;
  // Without check_size mixed sizes are stored.
  EXPECT_EQ(3, ConvertImageset(root_, list_, tmp_.file("mixed"), options));
  options.check_size = true;
  ExpectErrorNaming(
      [&] { ConvertImageset(root_, list_, tmp_.file("checked"), options); },
      {list_ + ":3", "big.png", "check_size"});
  options.encoded = true;
  ExpectErrorNaming(
      [&] { ConvertImageset(root_, list_, tmp_.file("checked2"), options); },
      {list_ + ":3", "big.png"});
  // Resizing makes the sizes agree.
  options.resize_height = 3;
  options.resize_width = 3;
  EXPECT_EQ(3, ConvertImageset(root_, list_, tmp_.file("resized"), options));

  test::WriteTextFile(list_, "img0.png 0\n\nmissing.png 1\n");
  ExpectErrorNaming(
      [&] {
        ConvertImageset(root_, list_, tmp_.file("missing"),
                        ConvertImagesetOptions());
      },
      {list_ + ":3", "missing.png"});
  // An existing output is not overwritten.
  ExpectErrorNaming(
      [&] {
        ConvertImageset(root_, list_, tmp_.file("mixed"),
                        ConvertImagesetOptions());
      },
      {tmp_.file("mixed")});
}
#endif  // USE_OPENCV

TEST_P(ConvertImagesetTest, CifarConverter) {
  // Batches of 2 records each (real ones hold 10000).
  const string in = tmp_.file("cifar");
  ASSERT_EQ(0, mkdir(in.c_str(), 0755));
  auto record = [](int label, int seed) {
    string r(1, static_cast<char>(label));
    for (int i = 0; i < 3072; ++i) r.push_back(static_cast<char>(seed + i));
    return r;
  };
  for (int b = 1; b <= 5; ++b) {
    test::WriteBytes(in + "/data_batch_" + std::to_string(b) + ".bin",
                     record(b, b * 10) + record(9, b * 10 + 1), false);
  }
  test::WriteBytes(in + "/test_batch.bin", record(3, 77), false);
  const string out = tmp_.file("out");
  ASSERT_EQ(0, mkdir(out.c_str(), 0755));
  const CifarCounts counts = ConvertCifar(in, out, backend_);
  EXPECT_EQ(10, counts.train);
  EXPECT_EQ(1, counts.test);
  const auto train = ReadAll(out + "/cifar10_train_" + backend_, backend_);
  ASSERT_EQ(10u, train.size());
  EXPECT_EQ("00000", train[0].first);
  EXPECT_EQ("00001", train[1].first);
  EXPECT_EQ("10000", train[2].first);
  EXPECT_EQ("40001", train[9].first);
  EXPECT_EQ(5, train[8].second.label());
  EXPECT_EQ(3, train[8].second.channels());
  EXPECT_EQ(32, train[8].second.height());
  EXPECT_EQ(32, train[8].second.width());
  EXPECT_EQ(static_cast<char>(50 + 5), train[8].second.data()[5]);

  // The Data layer reads it as 3 x 32 x 32 with labels.
  DataLayer<float> layer(DataParam(out + "/cifar10_test_" + backend_, 1));
  Blob<float> data, label;
  vector<Blob<float>*> bottom, top{&data, &label};
  layer.SetUp(bottom, top);
  layer.Forward(bottom, top);
  EXPECT_EQ((vector<int>{1, 3, 32, 32}), data.shape());
  EXPECT_EQ(3, label.cpu_data()[0]);
  EXPECT_EQ(static_cast<uint8_t>(77 + 1024 + 33), data.data_at(0, 1, 1, 1));

  // A partial record and a missing batch are errors naming the file.
  test::WriteBytes(in + "/test_batch.bin", record(3, 77).substr(0, 100),
                   false);
  ExpectErrorNaming([&] { ConvertCifar(in, tmp_.path(), backend_); },
                    {in + "/test_batch.bin"});
  std::remove((in + "/data_batch_3.bin").c_str());
  const string out2 = tmp_.file("out2");
  ASSERT_EQ(0, mkdir(out2.c_str(), 0755));
  ExpectErrorNaming([&] { ConvertCifar(in, out2, backend_); },
                    {in + "/data_batch_3.bin"});
}

#ifdef USE_OPENCV
TEST_P(ConvertImagesetTest, ExtractFeaturesOfTinyNet) {
  // Three 2 x 2 gray images -> Data (batch 2) -> InnerProduct(2).
  string list;
  for (int i = 0; i < 3; ++i) {
    const string name = "g" + std::to_string(i) + ".png";
    test::WritePng(tmp_.file(name), PatternImage(i, 2, 2, 1));
    list += name + " " + std::to_string(i) + "\n";
  }
  test::WriteTextFile(list_, list);
  ConvertImagesetOptions options;
  options.backend = backend_;
  options.gray = true;
  const string db = tmp_.file("db");
  ConvertImageset(root_, list_, db, options);

  const string proto = tmp_.file("net.prototxt");
  test::WriteTextFile(
      proto,
      "layer { name: 'data' type: 'Data' top: 'data' top: 'label'\n"
      "  data_param { source: '" + db + "' backend: " +
          (backend_ == "lmdb" ? "LMDB" : "LEVELDB") +
          " batch_size: 2 } }\n"
          "layer { name: 'ip' type: 'InnerProduct' bottom: 'data' top: 'ip'\n"
          "  inner_product_param { num_output: 2 } }\n");
  const float weights[2][4] = {{1, 0, -1, 0.5}, {0, 2, 0, -1}};
  const float bias[2] = {0.25, -3};
  NetParameter trained;
  LayerParameter* ip = trained.add_layer();
  ip->set_name("ip");
  ip->set_type("InnerProduct");
  BlobProto* w = ip->add_blobs();
  w->mutable_shape()->add_dim(2);
  w->mutable_shape()->add_dim(4);
  for (int o = 0; o < 2; ++o)
    for (int i = 0; i < 4; ++i) w->add_data(weights[o][i]);
  BlobProto* b = ip->add_blobs();
  b->mutable_shape()->add_dim(2);
  b->add_data(bias[0]);
  b->add_data(bias[1]);
  const string model = tmp_.file("net.caffemodel");
  WriteProtoToBinaryFile(trained, model);

  const string ip_db = tmp_.file("ip_features");
  const string data_db = tmp_.file("data_features");
  EXPECT_EQ(4, ExtractFeatures(model, proto, SplitCommaList("ip,data"),
                               SplitCommaList(ip_db + "," + data_db), 2,
                               backend_));
  const auto features = ReadAll(ip_db, backend_);
  ASSERT_EQ(4u, features.size());
  EXPECT_EQ("0000000000", features[0].first);
  EXPECT_EQ("0000000003", features[3].first);
  for (int n = 0; n < 4; ++n) {
    const int image = n % 3;  // the Data layer wraps around
    const Datum& d = features[n].second;
    EXPECT_EQ(2, d.channels());
    EXPECT_EQ(1, d.height());
    EXPECT_EQ(1, d.width());
    ASSERT_EQ(2, d.float_data_size());
    for (int o = 0; o < 2; ++o) {
      float expected = bias[o];
      for (int i = 0; i < 4; ++i)
        expected += weights[o][i] * PatternValue(image, i / 2, i % 2, 0);
      EXPECT_NEAR(expected, d.float_data(o), 1e-3) << "item " << n;
    }
  }
  const auto pixels = ReadAll(data_db, backend_);
  ASSERT_EQ(4u, pixels.size());
  EXPECT_EQ(1, pixels[1].second.channels());
  EXPECT_EQ(2, pixels[1].second.height());
  EXPECT_EQ(PatternValue(1, 1, 0, 0), pixels[1].second.float_data(2));

  ExpectErrorNaming(
      [&] {
        ExtractFeatures(model, proto, {"nope"}, {tmp_.file("x")}, 1,
                        backend_);
      },
      {"nope", proto});
  EXPECT_THROW(ExtractFeatures(model, proto, {"ip", "data"},
                               {tmp_.file("y")}, 1, backend_),
               Error);
}
#endif  // USE_OPENCV

const char* const kBackends[] = {
    "lmdb",
#ifdef USE_LEVELDB
    "leveldb",
#endif
};
INSTANTIATE_TEST_SUITE_P(Backends, ConvertImagesetTest,
                         ::testing::ValuesIn(kBackends));

}  // namespace caffe
