// Tests of image reading and Datum conversion (image_io.hpp) and of the
// DataTransformer on images and encoded Datums.  Reading image lists needs
// no OpenCV; the rest does (USE_OPENCV), and a build without it checks
// instead that everything needing it says so.
#include <gtest/gtest.h>

#ifdef USE_OPENCV
#include <opencv2/core/core.hpp>
#include <opencv2/imgcodecs/imgcodecs.hpp>
#include <opencv2/imgproc/imgproc.hpp>
#endif

#include <string>
#include <vector>

#include "caffe/data_transformer.hpp"
#include "caffe/net.hpp"
#include "caffe/test/test_data_helpers.hpp"
#include "caffe/test/test_gradient_check_util.hpp"
#include "caffe/test/test_image_helpers.hpp"
#include "caffe/util/dataset_tools.hpp"
#include "caffe/util/image_io.hpp"

namespace caffe {

#ifdef USE_OPENCV
using test::PatternImage;
#endif
using test::PatternValue;
using test::TempDir;

namespace {

// Runs fn, expecting caffe::Error whose message holds every part.
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

class ImageIOTest : public ::testing::Test {
 protected:
  ImageIOTest() {
    color_ = tmp_.file("color.png");
#ifdef USE_OPENCV
    test::WritePng(color_, PatternImage(1, 5, 7, 3));
#endif
  }
  TempDir tmp_;
  string color_;
};

#ifdef USE_OPENCV
TEST_F(ImageIOTest, ReadsColorGrayAndResized) {
  cv::Mat img = ReadImageToCVMat(color_);
  ASSERT_EQ(3, img.channels());
  ASSERT_EQ(5, img.rows);
  ASSERT_EQ(7, img.cols);
  for (int h = 0; h < 5; ++h)
    for (int w = 0; w < 7; ++w)
      for (int c = 0; c < 3; ++c)
        ASSERT_EQ(PatternValue(1, h, w, c), img.at<cv::Vec3b>(h, w)[c]);
  cv::Mat gray = ReadImageToCVMat(color_, false);
  EXPECT_EQ(1, gray.channels());
  cv::Mat expected_gray;
  cv::cvtColor(img, expected_gray, cv::COLOR_BGR2GRAY);
  EXPECT_EQ(0, cv::norm(gray, expected_gray, cv::NORM_INF));
  cv::Mat resized = ReadImageToCVMat(color_, 3, 4);
  EXPECT_EQ(3, resized.rows);
  EXPECT_EQ(4, resized.cols);
  EXPECT_EQ(3, resized.channels());
  // Only height or only width is a mistake.
  EXPECT_THROW(ReadImageToCVMat(color_, 3, 0, true), Error);
}

TEST_F(ImageIOTest, MissingAndCorruptImagesThrowNamingFile) {
  const string missing = tmp_.file("missing.png");
  ExpectErrorNaming([&] { ReadImageToCVMat(missing); }, {missing});
  Datum datum;
  ExpectErrorNaming([&] { ReadImageToDatum(missing, 1, &datum); }, {missing});
  const string corrupt = tmp_.file("corrupt.png");
  test::WriteTextFile(corrupt, "\x89PNG this is not really a png");
  ExpectErrorNaming([&] { ReadImageToCVMat(corrupt); }, {corrupt, "decode"});
  datum.Clear();
  datum.set_encoded(true);
  datum.set_data("garbage bytes");
  EXPECT_THROW(DecodeDatumToCVMatNative(datum), Error);
  EXPECT_THROW(DecodeDatumNative(&datum), Error);
}

TEST_F(ImageIOTest, RawDatumIsPlanar) {
  Datum datum;
  ASSERT_TRUE(ReadImageToDatum(color_, 9, 0, 0, true, &datum));
  EXPECT_FALSE(datum.encoded());
  EXPECT_EQ(9, datum.label());
  EXPECT_EQ(3, datum.channels());
  EXPECT_EQ(5, datum.height());
  EXPECT_EQ(7, datum.width());
  ASSERT_EQ(3u * 5 * 7, datum.data().size());
  for (int c = 0; c < 3; ++c)
    for (int h = 0; h < 5; ++h)
      for (int w = 0; w < 7; ++w)
        ASSERT_EQ(PatternValue(1, h, w, c),
                  static_cast<uint8_t>(datum.data()[(c * 5 + h) * 7 + w]));
  ReadImageToDatum(color_, 2, 0, 0, false, &datum);
  EXPECT_EQ(1, datum.channels());
  EXPECT_EQ(35u, datum.data().size());
}

TEST_F(ImageIOTest, EncodedDatumRoundTrips) {
  Datum file_datum;
  // A png asked for as png with its own colour is stored as the file is.
  ReadImageToDatum(color_, 4, 0, 0, true, "png", &file_datum);
  EXPECT_TRUE(file_datum.encoded());
  EXPECT_EQ(4, file_datum.label());
  Datum file_bytes;
  ReadFileToDatum(color_, 4, &file_bytes);
  EXPECT_EQ(file_bytes.data(), file_datum.data());
  // Gray or resized output is re-encoded.
  Datum gray;
  ReadImageToDatum(color_, 4, 0, 0, false, "png", &gray);
  EXPECT_TRUE(gray.encoded());
  EXPECT_EQ(1, DecodeDatumToCVMatNative(gray).channels());
  Datum resized;
  ReadImageToDatum(color_, 4, 2, 3, true, "png", &resized);
  cv::Mat small = DecodeDatumToCVMatNative(resized);
  EXPECT_EQ(2, small.rows);
  EXPECT_EQ(3, small.cols);

  Datum raw;
  ReadImageToDatum(color_, 4, &raw);
  Datum decoded = file_datum;
  ASSERT_TRUE(DecodeDatumNative(&decoded));
  EXPECT_FALSE(decoded.encoded());
  EXPECT_EQ(raw.data(), decoded.data());
  EXPECT_EQ(raw.channels(), decoded.channels());
  EXPECT_FALSE(DecodeDatumNative(&decoded));  // already raw
  Datum forced_gray = file_datum;
  ASSERT_TRUE(DecodeDatum(&forced_gray, false));
  EXPECT_EQ(1, forced_gray.channels());
}
#endif  // USE_OPENCV

TEST_F(ImageIOTest, ReadImageListNamesBadLines) {
  const string list = tmp_.file("list.txt");
  test::WriteTextFile(list, "a.png 1\n\nsub dir/b c.png 22\r\n");
  vector<ImageListEntry> entries = ReadImageList(list);
  ASSERT_EQ(2u, entries.size());
  EXPECT_EQ("a.png", entries[0].path);
  EXPECT_EQ(1, entries[0].label);
  EXPECT_EQ(1, entries[0].line);
  EXPECT_EQ("sub dir/b c.png", entries[1].path);
  EXPECT_EQ(22, entries[1].label);
  EXPECT_EQ(3, entries[1].line);
  test::WriteTextFile(list, "a.png 1\nb.png x\n");
  ExpectErrorNaming([&] { ReadImageList(list); }, {list + ":2", "x"});
  test::WriteTextFile(list, "a.png 1\nnolabel\n");
  ExpectErrorNaming([&] { ReadImageList(list); }, {list + ":2"});
  ExpectErrorNaming([&] { ReadImageList(tmp_.file("none.txt")); },
                    {tmp_.file("none.txt")});
}

#ifdef USE_OPENCV
template <typename Dtype>
class ImageTransformTest : public ::testing::Test {
 protected:
  TempDir tmp_;
};

TYPED_TEST_SUITE(ImageTransformTest, TestDtypes);

TYPED_TEST(ImageTransformTest, MatMatchesRawDatum) {
  // The same image through cv::Mat, raw Datum and encoded Datum gives the
  // same values, with crop, mean and scale applied.
  const cv::Mat img = PatternImage(2, 6, 5, 3);
  Datum raw;
  CVMatToDatum(img, &raw);
  const string file = this->tmp_.file("img.png");
  test::WritePng(file, img);
  Datum encoded;
  ReadFileToDatum(file, 0, &encoded);

  TransformationParameter param;
  param.set_crop_size(4);
  param.set_scale(0.5);
  param.add_mean_value(10);
  param.add_mean_value(20);
  param.add_mean_value(30);
  DataTransformer<TypeParam> transformer(param, TEST);
  EXPECT_EQ((vector<int>{1, 3, 4, 4}), transformer.InferBlobShape(img));
  EXPECT_EQ((vector<int>{1, 3, 4, 4}), transformer.InferBlobShape(encoded));
  Blob<TypeParam> from_mat(1, 3, 4, 4), from_raw(1, 3, 4, 4),
      from_encoded(1, 3, 4, 4);
  transformer.Transform(img, &from_mat);
  transformer.Transform(raw, &from_raw);
  transformer.Transform(encoded, &from_encoded);
  const int h_off = 1, w_off = 0;  // centred crop of 6 x 5 to 4 x 4
  for (int c = 0; c < 3; ++c)
    for (int h = 0; h < 4; ++h)
      for (int w = 0; w < 4; ++w) {
        const TypeParam expected =
            (PatternValue(2, h + h_off, w + w_off, c) - 10 * (c + 1)) * 0.5;
        ASSERT_NEAR(expected, from_mat.data_at(0, c, h, w), 1e-5);
        ASSERT_NEAR(expected, from_raw.data_at(0, c, h, w), 1e-5);
        ASSERT_NEAR(expected, from_encoded.data_at(0, c, h, w), 1e-5);
      }
}

TYPED_TEST(ImageTransformTest, MirrorFlipsWidth) {
  const cv::Mat img = PatternImage(3, 2, 4, 1);
  TransformationParameter param;
  param.set_mirror(true);
  DataTransformer<TypeParam> transformer(param, TRAIN);
  transformer.InitRand();
  Blob<TypeParam> blob(1, 1, 2, 4);
  bool saw[2] = {false, false};
  for (int trial = 0; trial < 40; ++trial) {
    transformer.Transform(img, &blob);
    const bool mirrored = blob.data_at(0, 0, 0, 0) == PatternValue(3, 0, 3, 0);
    saw[mirrored] = true;
    for (int h = 0; h < 2; ++h)
      for (int w = 0; w < 4; ++w)
        ASSERT_EQ(PatternValue(3, h, mirrored ? 3 - w : w, 0),
                  blob.data_at(0, 0, h, w));
  }
  EXPECT_TRUE(saw[0] && saw[1]);
}

TYPED_TEST(ImageTransformTest, ForceColorAndGrayOnEncoded) {
  const string file = this->tmp_.file("gray.png");
  test::WritePng(file, PatternImage(4, 3, 3, 1));
  Datum encoded;
  ReadFileToDatum(file, 0, &encoded);
  TransformationParameter param;
  DataTransformer<TypeParam> native(param, TEST);
  EXPECT_EQ((vector<int>{1, 1, 3, 3}), native.InferBlobShape(encoded));
  param.set_force_color(true);
  DataTransformer<TypeParam> color(param, TEST);
  EXPECT_EQ((vector<int>{1, 3, 3, 3}), color.InferBlobShape(encoded));
  Blob<TypeParam> blob(1, 3, 3, 3);
  color.Transform(encoded, &blob);
  // Gray expanded to colour repeats the value in every channel.
  for (int c = 0; c < 3; ++c)
    EXPECT_EQ(PatternValue(4, 1, 2, 0), blob.data_at(0, c, 1, 2));
  param.set_force_gray(true);
  DataTransformer<TypeParam> both(param, TEST);
  EXPECT_THROW(both.InferBlobShape(encoded), Error);
  param.set_force_color(false);
  DataTransformer<TypeParam> gray(param, TEST);
  const string color_file = this->tmp_.file("color.png");
  test::WritePng(color_file, PatternImage(4, 3, 3, 3));
  ReadFileToDatum(color_file, 0, &encoded);
  EXPECT_EQ((vector<int>{1, 1, 3, 3}), gray.InferBlobShape(encoded));
  // A blob that does not fit the decoded image.
  Blob<TypeParam> wrong(1, 3, 3, 3);
  EXPECT_THROW(gray.Transform(encoded, &wrong), Error);
}

TYPED_TEST(ImageTransformTest, MatVector) {
  vector<cv::Mat> mats{PatternImage(0, 2, 2, 3), PatternImage(1, 2, 2, 3)};
  TransformationParameter param;
  DataTransformer<TypeParam> transformer(param, TEST);
  EXPECT_EQ((vector<int>{2, 3, 2, 2}), transformer.InferBlobShape(mats));
  Blob<TypeParam> blob(2, 3, 2, 2);
  transformer.Transform(mats, &blob);
  EXPECT_EQ(PatternValue(1, 1, 0, 2), blob.data_at(1, 2, 1, 0));
  Blob<TypeParam> too_big(3, 3, 2, 2);
  EXPECT_THROW(transformer.Transform(mats, &too_big), Error);
}
#else   // !USE_OPENCV
// What needs OpenCV says so, naming the option, and the image layers stay
// registered so that a net naming them is told why it cannot run.
TEST_F(ImageIOTest, WithoutOpenCVImageWorkSaysSo) {
  const string off = "USE_OPENCV=OFF";
  test::WriteTextFile(color_, "\x89PNG not decoded here");
  Datum encoded;
  ReadFileToDatum(color_, 0, &encoded);  // needs no decoding
  ExpectErrorNaming([&] { DecodeDatumNative(&encoded); }, {"encoded", off});
  Datum raw;
  raw.set_channels(1);
  raw.set_height(1);
  raw.set_width(2);
  raw.set_data("ab");
  EXPECT_FALSE(DecodeDatumNative(&raw));  // a raw datum passes
  DataTransformer<float> transformer(TransformationParameter(), TEST);
  Blob<float> blob(1, 1, 1, 2);
  ExpectErrorNaming([&] { transformer.InferBlobShape(encoded); },
                    {"encoded", off});
  ExpectErrorNaming([&] { transformer.Transform(encoded, &blob); },
                    {"encoded", off});
  transformer.Transform(raw, &blob);
  EXPECT_EQ(98, blob.cpu_data()[1]);
  ExpectErrorNaming([&] { ReadImageToDatum(color_, 0, &raw); },
                    {color_, off});
  ExpectErrorNaming(
      [&] {
        ConvertImageset(tmp_.path() + "/", tmp_.file("list.txt"),
                        tmp_.file("db"), ConvertImagesetOptions());
      },
      {"convert_imageset", off});
  for (const string type : {"ImageData", "WindowData"}) {
    NetParameter param;
    LayerParameter* layer = param.add_layer();
    layer->set_name("images");
    layer->set_type(type);
    layer->add_top("data");
    layer->add_top("label");
    ExpectErrorNaming([&] { Net<float> net(param); },
                      {"layer 'images'", type + " layer type", off});
  }
}
#endif  // USE_OPENCV

}  // namespace caffe
