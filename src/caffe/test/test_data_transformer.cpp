// Tests of DataTransformer: scale, mean (file and values), crop, mirror, for
// uint8 and float datums and for blobs.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "caffe/data_transformer.hpp"
#include "caffe/test/test_data_helpers.hpp"
#include "caffe/test/test_gradient_check_util.hpp"
#include "caffe/util/io.hpp"

namespace caffe {

using test::TempDir;

namespace {

// C x H x W datum whose pixel (c, h, w) is value(c, h, w) = 100c + 10h + w.
Datum MakeDatum(int channels, int height, int width, bool as_float = false,
                int label = 0) {
  Datum datum;
  datum.set_channels(channels);
  datum.set_height(height);
  datum.set_width(width);
  datum.set_label(label);
  string data;
  for (int c = 0; c < channels; ++c)
    for (int h = 0; h < height; ++h)
      for (int w = 0; w < width; ++w) {
        const int v = (100 * c + 10 * h + w) % 256;
        if (as_float) {
          datum.add_float_data(v + 0.5f);
        } else {
          data.push_back(static_cast<char>(v));
        }
      }
  if (!as_float) datum.set_data(data);
  return datum;
}

double Pixel(int c, int h, int w) { return (100 * c + 10 * h + w) % 256; }

}  // namespace

template <typename Dtype>
class DataTransformerTest : public ::testing::Test {
 protected:
  DataTransformerTest() { Caffe::set_random_seed(1701); }

  // Transforms datum once with param in phase; returns the blob.
  void Run(const TransformationParameter& param, Phase phase,
           const Datum& datum, Blob<Dtype>* blob) {
    DataTransformer<Dtype> transformer(param, phase);
    transformer.InitRand();
    blob->Reshape(transformer.InferBlobShape(datum));
    transformer.Transform(datum, blob);
  }
};

TYPED_TEST_SUITE(DataTransformerTest, TestDtypes);

TYPED_TEST(DataTransformerTest, IdentityUint8AndFloat) {
  TransformationParameter param;
  Blob<TypeParam> blob;
  for (bool as_float : {false, true}) {
    const Datum datum = MakeDatum(2, 3, 4, as_float);
    this->Run(param, TRAIN, datum, &blob);
    EXPECT_EQ((vector<int>{1, 2, 3, 4}), blob.shape());
    for (int c = 0; c < 2; ++c)
      for (int h = 0; h < 3; ++h)
        for (int w = 0; w < 4; ++w)
          EXPECT_EQ(Pixel(c, h, w) + (as_float ? 0.5 : 0.0),
                    blob.data_at(0, c, h, w));
  }
}

TYPED_TEST(DataTransformerTest, Uint8AboveSignedCharRange) {
  // Bytes >= 128 must read as 128..255, not negative.
  Datum datum;
  datum.set_channels(1);
  datum.set_height(1);
  datum.set_width(2);
  datum.set_data(string("\xff\x80", 2));
  TransformationParameter param;
  Blob<TypeParam> blob;
  this->Run(param, TEST, datum, &blob);
  EXPECT_EQ(255, blob.cpu_data()[0]);
  EXPECT_EQ(128, blob.cpu_data()[1]);
}

TYPED_TEST(DataTransformerTest, ScaleAndSingleMeanValue) {
  TransformationParameter param;
  param.set_scale(0.25);
  param.add_mean_value(7);
  const Datum datum = MakeDatum(3, 2, 2);
  Blob<TypeParam> blob;
  this->Run(param, TEST, datum, &blob);
  for (int c = 0; c < 3; ++c)
    for (int h = 0; h < 2; ++h)
      for (int w = 0; w < 2; ++w)
        EXPECT_NEAR((Pixel(c, h, w) - 7) * 0.25, blob.data_at(0, c, h, w),
                    1e-5);
}

TYPED_TEST(DataTransformerTest, MeanValuePerChannel) {
  TransformationParameter param;
  param.add_mean_value(1);
  param.add_mean_value(2);
  param.add_mean_value(3);
  const Datum datum = MakeDatum(3, 2, 3);
  Blob<TypeParam> blob;
  this->Run(param, TEST, datum, &blob);
  for (int c = 0; c < 3; ++c)
    for (int h = 0; h < 2; ++h)
      for (int w = 0; w < 3; ++w)
        EXPECT_NEAR(Pixel(c, h, w) - (c + 1), blob.data_at(0, c, h, w),
                    1e-5);
}

TYPED_TEST(DataTransformerTest, WrongNumberOfMeanValuesThrows) {
  TransformationParameter param;
  param.add_mean_value(1);
  param.add_mean_value(2);
  const Datum datum = MakeDatum(3, 2, 2);
  Blob<TypeParam> blob(1, 3, 2, 2);
  DataTransformer<TypeParam> transformer(param, TEST);
  EXPECT_THROW(transformer.Transform(datum, &blob), Error);
}

TYPED_TEST(DataTransformerTest, MeanFile) {
  TempDir tmp;
  const string mean_file = tmp.file("mean.binaryproto");
  BlobProto mean;
  mean.set_num(1);
  mean.set_channels(2);
  mean.set_height(2);
  mean.set_width(3);
  for (int i = 0; i < 12; ++i) mean.add_data(i * 0.5f);
  WriteProtoToBinaryFile(mean, mean_file);

  TransformationParameter param;
  param.set_mean_file(mean_file);
  param.set_scale(2);
  const Datum datum = MakeDatum(2, 2, 3);
  Blob<TypeParam> blob;
  this->Run(param, TEST, datum, &blob);
  for (int c = 0; c < 2; ++c)
    for (int h = 0; h < 2; ++h)
      for (int w = 0; w < 3; ++w)
        EXPECT_NEAR((Pixel(c, h, w) - ((c * 2 + h) * 3 + w) * 0.5) * 2,
                    blob.data_at(0, c, h, w), 1e-4);

  // The mean is taken before cropping: crop 1 in TEST is the centre.
  param.set_crop_size(1);
  this->Run(param, TEST, datum, &blob);
  EXPECT_EQ((vector<int>{1, 2, 1, 1}), blob.shape());
  for (int c = 0; c < 2; ++c)
    EXPECT_NEAR((Pixel(c, 0, 1) - ((c * 2 + 0) * 3 + 1) * 0.5) * 2,
                blob.data_at(0, c, 0, 0), 1e-4);

  // A datum of another size does not fit the mean.
  param.clear_crop_size();
  const Datum other = MakeDatum(2, 3, 3);
  DataTransformer<TypeParam> transformer(param, TEST);
  Blob<TypeParam> other_blob(1, 2, 3, 3);
  EXPECT_THROW(transformer.Transform(other, &other_blob), Error);

  // mean_file and mean_value together are refused.
  param.add_mean_value(3);
  EXPECT_THROW(DataTransformer<TypeParam>(param, TEST), Error);
  // A missing mean file names the file.
  TransformationParameter missing;
  missing.set_mean_file(tmp.file("nope.binaryproto"));
  try {
    DataTransformer<TypeParam> t(missing, TEST);
    FAIL() << "expected caffe::Error";
  } catch (const Error& e) {
    EXPECT_NE(string::npos, string(e.what()).find("nope.binaryproto"));
  }
}

TYPED_TEST(DataTransformerTest, CenterCropInTest) {
  TransformationParameter param;
  param.set_crop_size(2);
  const Datum datum = MakeDatum(2, 4, 5);
  Blob<TypeParam> blob;
  for (int rep = 0; rep < 3; ++rep) {
    this->Run(param, TEST, datum, &blob);
    ASSERT_EQ((vector<int>{1, 2, 2, 2}), blob.shape());
    // h_off = (4 - 2) / 2 = 1, w_off = (5 - 2) / 2 = 1.
    for (int c = 0; c < 2; ++c)
      for (int h = 0; h < 2; ++h)
        for (int w = 0; w < 2; ++w)
          EXPECT_EQ(Pixel(c, h + 1, w + 1), blob.data_at(0, c, h, w));
  }
}

TYPED_TEST(DataTransformerTest, RandomCropInTrain) {
  TransformationParameter param;
  param.set_crop_size(2);
  const Datum datum = MakeDatum(1, 4, 5);
  DataTransformer<TypeParam> transformer(param, TRAIN);
  transformer.InitRand();
  Blob<TypeParam> blob(1, 1, 2, 2);
  std::set<pair<int, int> > offsets;
  for (int rep = 0; rep < 100; ++rep) {
    transformer.Transform(datum, &blob);
    // Pixel (h, w) = 10h + w, so the top-left value gives the offsets.
    const int v = static_cast<int>(blob.data_at(0, 0, 0, 0));
    const int h_off = v / 10, w_off = v % 10;
    ASSERT_LE(h_off, 2);
    ASSERT_LE(w_off, 3);
    for (int h = 0; h < 2; ++h)
      for (int w = 0; w < 2; ++w)
        ASSERT_EQ(Pixel(0, h + h_off, w + w_off), blob.data_at(0, 0, h, w));
    offsets.insert(make_pair(h_off, w_off));
  }
  // 12 possible windows; 100 draws should reach most of them.
  EXPECT_GT(offsets.size(), 6u);
}

TYPED_TEST(DataTransformerTest, MirrorFlipsWidthHalfTheTime) {
  TransformationParameter param;
  param.set_mirror(true);
  const Datum datum = MakeDatum(2, 2, 3);
  DataTransformer<TypeParam> transformer(param, TEST);
  transformer.InitRand();
  Blob<TypeParam> blob(1, 2, 2, 3);
  int flipped = 0;
  const int reps = 200;
  for (int rep = 0; rep < reps; ++rep) {
    transformer.Transform(datum, &blob);
    const bool is_flipped = blob.data_at(0, 0, 0, 0) == Pixel(0, 0, 2);
    flipped += is_flipped;
    for (int c = 0; c < 2; ++c)
      for (int h = 0; h < 2; ++h)
        for (int w = 0; w < 3; ++w)
          ASSERT_EQ(Pixel(c, h, is_flipped ? 2 - w : w),
                    blob.data_at(0, c, h, w));
  }
  EXPECT_GT(flipped, reps / 4);
  EXPECT_LT(flipped, 3 * reps / 4);
}

TYPED_TEST(DataTransformerTest, SameSeedSameRandomChoices) {
  TransformationParameter param;
  param.set_mirror(true);
  param.set_crop_size(2);
  const Datum datum = MakeDatum(1, 4, 4);
  vector<vector<TypeParam> > runs(2);
  for (int run = 0; run < 2; ++run) {
    Caffe::set_random_seed(42);
    DataTransformer<TypeParam> transformer(param, TRAIN);
    transformer.InitRand();
    Blob<TypeParam> blob(1, 1, 2, 2);
    for (int rep = 0; rep < 20; ++rep) {
      transformer.Transform(datum, &blob);
      runs[run].insert(runs[run].end(), blob.cpu_data(),
                       blob.cpu_data() + blob.count());
    }
  }
  EXPECT_EQ(runs[0], runs[1]);
}

TYPED_TEST(DataTransformerTest, RanksOfADataParallelJobDrawTheirOwnCrops) {
  // Nets are built from one seed on every rank; crops and mirrors must
  // still differ by rank.  Rank 0 draws what a single process draws.
  TransformationParameter param;
  param.set_mirror(true);
  param.set_crop_size(2);
  const Datum datum = MakeDatum(1, 4, 4);
  vector<vector<TypeParam> > runs(3);
  for (int run = 0; run < 3; ++run) {
    Caffe::set_solver_count(run == 2 ? 1 : 2);
    Caffe::set_solver_rank(run == 1 ? 1 : 0);
    Caffe::set_random_seed(42);
    DataTransformer<TypeParam> transformer(param, TRAIN);
    transformer.InitRand();
    Blob<TypeParam> blob(1, 1, 2, 2);
    for (int rep = 0; rep < 20; ++rep) {
      transformer.Transform(datum, &blob);
      runs[run].insert(runs[run].end(), blob.cpu_data(),
                       blob.cpu_data() + blob.count());
    }
  }
  Caffe::set_solver_count(1);
  Caffe::set_solver_rank(0);
  EXPECT_NE(runs[0], runs[1]);
  EXPECT_EQ(runs[0], runs[2]);
}

TYPED_TEST(DataTransformerTest, InferBlobShape) {
  TransformationParameter param;
  DataTransformer<TypeParam> plain(param, TRAIN);
  EXPECT_EQ((vector<int>{1, 3, 5, 6}), plain.InferBlobShape(MakeDatum(3, 5, 6)));
  param.set_crop_size(4);
  DataTransformer<TypeParam> cropped(param, TRAIN);
  EXPECT_EQ((vector<int>{1, 3, 4, 4}),
            cropped.InferBlobShape(MakeDatum(3, 5, 6)));
  vector<Datum> datums(3, MakeDatum(3, 5, 6));
  EXPECT_EQ((vector<int>{3, 3, 4, 4}), cropped.InferBlobShape(datums));
  // Crop larger than the datum.
  EXPECT_THROW(cropped.InferBlobShape(MakeDatum(3, 3, 6)), Error);
}

TYPED_TEST(DataTransformerTest, BadDatumsThrow) {
  TransformationParameter param;
  DataTransformer<TypeParam> transformer(param, TEST);
  Blob<TypeParam> blob(1, 1, 2, 2);
  Datum encoded = MakeDatum(1, 2, 2);
  encoded.set_encoded(true);
  EXPECT_THROW(transformer.Transform(encoded, &blob), Error);
  EXPECT_THROW(transformer.InferBlobShape(encoded), Error);
  // Data shorter than channels x height x width.
  Datum short_datum = MakeDatum(1, 2, 2);
  short_datum.set_data("abc");
  EXPECT_THROW(transformer.Transform(short_datum, &blob), Error);
  // Blob of the wrong shape.
  Blob<TypeParam> wrong(1, 2, 2, 2);
  EXPECT_THROW(transformer.Transform(MakeDatum(1, 2, 2), &wrong), Error);
  // A datum without a shape.
  Datum empty;
  EXPECT_THROW(transformer.InferBlobShape(empty), Error);
}

TYPED_TEST(DataTransformerTest, DatumVector) {
  TransformationParameter param;
  param.set_scale(0.5);
  vector<Datum> datums;
  for (int i = 0; i < 3; ++i) {
    Datum d = MakeDatum(1, 2, 2);
    string data = d.data();
    for (char& ch : data) ch = static_cast<char>(ch + i);
    d.set_data(data);
    datums.push_back(d);
  }
  DataTransformer<TypeParam> transformer(param, TEST);
  Blob<TypeParam> blob(transformer.InferBlobShape(datums));
  transformer.Transform(datums, &blob);
  for (int n = 0; n < 3; ++n)
    for (int h = 0; h < 2; ++h)
      for (int w = 0; w < 2; ++w)
        EXPECT_NEAR((Pixel(0, h, w) + n) * 0.5, blob.data_at(n, 0, h, w),
                    1e-5);
  Blob<TypeParam> small(2, 1, 2, 2);
  EXPECT_THROW(transformer.Transform(datums, &small), Error);
}

TYPED_TEST(DataTransformerTest, BlobInput) {
  TransformationParameter param;
  param.set_crop_size(2);
  param.add_mean_value(1);
  param.add_mean_value(2);
  param.set_scale(3);
  Blob<TypeParam> input(2, 2, 3, 4);
  for (int i = 0; i < input.count(); ++i) input.mutable_cpu_data()[i] = i;
  Blob<TypeParam> output;
  DataTransformer<TypeParam> transformer(param, TEST);
  transformer.Transform(&input, &output);
  ASSERT_EQ((vector<int>{2, 2, 2, 2}), output.shape());
  // Centre crop: h_off = 0, w_off = 1; the input is not modified.
  for (int n = 0; n < 2; ++n)
    for (int c = 0; c < 2; ++c)
      for (int h = 0; h < 2; ++h)
        for (int w = 0; w < 2; ++w)
          EXPECT_NEAR((input.data_at(n, c, h, w + 1) - (c + 1)) * 3,
                      output.data_at(n, c, h, w), 1e-4);
  EXPECT_EQ(0, input.cpu_data()[0]);
  EXPECT_THROW(transformer.Transform(&input, &input), Error);
}

}  // namespace caffe
