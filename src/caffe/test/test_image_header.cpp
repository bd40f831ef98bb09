// Encoded images are sized from their headers, and an image whose decoded
// pixels cannot fit is refused before OpenCV allocates them (found by
// fuzz_datum: a JPEG header claiming 2.8 GB of pixels).  Peeking needs no
// OpenCV, so hand-written headers check it in every build; the tests that
// encode and decode real images need OpenCV (USE_OPENCV).
#include <gtest/gtest.h>

#ifdef USE_OPENCV
#include <opencv2/core/core.hpp>
#include <opencv2/imgcodecs/imgcodecs.hpp>
#endif

#include <string>
#include <vector>

#include "caffe/test/test_data_helpers.hpp"
#include "caffe/util/host_memory_room.hpp"
#include "caffe/util/image_header.hpp"
#include "caffe/util/image_io.hpp"

namespace caffe {
namespace {

string Bytes(std::initializer_list<int> bytes) {
  string s;
  for (int b : bytes) s.push_back(static_cast<char>(b));
  return s;
}

const unsigned char* Data(const string& s) {
  return reinterpret_cast<const unsigned char*>(s.data());
}

TEST(ImageHeaderTest, ReadsHandWrittenHeaders) {
  // 53 x 37 in each format's own layout.
  const string png = Bytes({0x89, 'P', 'N', 'G', 0x0D, 0x0A, 0x1A, 0x0A,
                            0, 0, 0, 13, 'I', 'H', 'D', 'R',
                            0, 0, 0, 53, 0, 0, 0, 37});
  const string jpeg = Bytes({0xFF, 0xD8, 0xFF, 0xE0, 0, 4, 'J', 'F',
                             0xFF, 0xC0, 0, 17, 8, 0, 37, 0, 53, 3});
  // Height -37: a top-down bitmap.
  const string bmp = Bytes({'B', 'M'}) + string(16, '\0') +
                     Bytes({53, 0, 0, 0, 0xDB, 0xFF, 0xFF, 0xFF});
  const string ppm = "P6\n# a comment\n53 37\n255\n";
  // A damaged segment length (0, 1) skips nothing, as in libjpeg, which
  // decodes the frame after it (a fuzz finding).
  const string jpeg_bad_length =
      Bytes({0xFF, 0xD8, 0xFF, 0xE0, 0, 0, 0, 0, 0xFF, 0xE1, 0, 1,
             0xFF, 0xC0, 0, 17, 8, 0, 37, 0, 53, 3});
  for (const string* header : {&png, &jpeg, &jpeg_bad_length, &bmp, &ppm}) {
    int w = 0, h = 0;
    ASSERT_TRUE(PeekImageSize(Data(*header), header->size(), &w, &h))
        << header->substr(0, 2);
    EXPECT_EQ(53, w) << header->substr(0, 2);
    EXPECT_EQ(37, h) << header->substr(0, 2);
  }
  // A header that claims more pixels than fit is refused.
  const size_t old_limit = HostMemoryLimit();
  SetHostMemoryLimit(size_t(64) << 20);
  const string huge = Bytes({0x89, 'P', 'N', 'G', 0x0D, 0x0A, 0x1A, 0x0A,
                             0, 0, 0, 13, 'I', 'H', 'D', 'R',
                             0, 0, 0xC3, 0x50, 0, 0, 0xEA, 0x60});
  try {
    CheckDecodedImageFits(Data(huge), huge.size());
    ADD_FAILURE() << "a 50000 x 60000 header passed a 64 MiB limit";
  } catch (const Error& e) {
    EXPECT_NE(string(e.what()).find("50000 x 60000 pixels"), string::npos)
        << e.what();
  }
  SetHostMemoryLimit(old_limit);
}

#ifdef USE_OPENCV
std::vector<uchar> Encode(const string& ext, int rows, int cols) {
  cv::Mat img(rows, cols, CV_8UC3, cv::Scalar(10, 20, 30));
  std::vector<uchar> bytes;
  EXPECT_TRUE(cv::imencode(ext, img, bytes));
  return bytes;
}

TEST(ImageHeaderTest, ReadsTheSizeOfEveryKnownFormat) {
  for (const char* ext : {".png", ".jpg", ".bmp", ".ppm"}) {
    const std::vector<uchar> bytes = Encode(ext, 37, 53);
    int w = 0, h = 0;
    ASSERT_TRUE(PeekImageSize(bytes.data(), bytes.size(), &w, &h)) << ext;
    EXPECT_EQ(w, 53) << ext;
    EXPECT_EQ(h, 37) << ext;
  }
  int w = 0, h = 0;
  const unsigned char garbage[] = {'G', 'I', 'F', '8', '9', 'a', 1, 2};
  EXPECT_FALSE(PeekImageSize(garbage, sizeof(garbage), &w, &h));
  // A truncated JPEG header is unknown, never read past its end.
  const std::vector<uchar> jpeg = Encode(".jpg", 8, 8);
  EXPECT_FALSE(PeekImageSize(jpeg.data(), 30, &w, &h));
}

// A JPEG whose SOF0 claims `rows` x `cols`; with `garbage`, the first
// DQT marker is damaged (libjpeg skips such bytes and decodes anyway).
// With `stuffed`, a 00 follows the FF after SOI (an "FF 00" libjpeg skips,
// then the APP0 bytes as non-markers: the third fuzz_datum finding).
Datum HugeJpegDatum(int rows, int cols, bool garbage = false,
                    bool stuffed = false) {
  std::vector<uchar> bytes = Encode(".jpg", 8, 8);
  if (stuffed) bytes.insert(bytes.begin() + 3, 0x00);
  for (size_t i = 2; garbage && i + 1 < bytes.size(); ++i) {
    if (bytes[i] == 0xFF && bytes[i + 1] == 0xDB) {
      bytes[i] = 0xFB;
      break;
    }
  }
  for (size_t i = 2; i + 9 < bytes.size(); ++i) {
    if (bytes[i] == 0xFF && bytes[i + 1] == 0xC0) {
      bytes[i + 5] = rows >> 8;
      bytes[i + 6] = rows & 0xFF;
      bytes[i + 7] = cols >> 8;
      bytes[i + 8] = cols & 0xFF;
      break;
    }
  }
  Datum datum;
  datum.set_encoded(true);
  datum.set_data(string(bytes.begin(), bytes.end()));
  return datum;
}

TEST(ImageHeaderTest, AnImageThatCannotFitIsRefusedBeforeDecoding) {
  const size_t old_limit = HostMemoryLimit();
  SetHostMemoryLimit(size_t(64) << 20);
  const Datum huge = HugeJpegDatum(60000, 50000);
  try {
    DecodeDatumToCVMat(huge, true);
    ADD_FAILURE() << "a 60000 x 50000 image decoded under a 64 MiB limit";
  } catch (const Error& e) {
    EXPECT_NE(string(e.what()).find("50000 x 60000 pixels"), string::npos)
        << e.what();
  }
  // Found by fuzz_datum too: bytes that are not a marker before the size.
  try {
    DecodeDatumToCVMat(HugeJpegDatum(60000, 50000, true), true);
    ADD_FAILURE() << "a damaged 60000 x 50000 image decoded";
  } catch (const Error& e) {
    EXPECT_NE(string(e.what()).find("50000 x 60000 pixels"), string::npos)
        << e.what();
  }
  try {
    DecodeDatumToCVMat(HugeJpegDatum(60000, 50000, false, true), true);
    ADD_FAILURE() << "a 60000 x 50000 image after FF 00 decoded";
  } catch (const Error& e) {
    EXPECT_NE(string(e.what()).find("50000 x 60000 pixels"), string::npos)
        << e.what();
  }
  // The same file on disk.
  test::TempDir dir;
  const string file = dir.file("huge.jpg");
  test::WriteBytes(file, huge.data(), false);
  try {
    ReadImageToCVMat(file, 0, 0, true);
    ADD_FAILURE() << "the file decoded";
  } catch (const Error& e) {
    EXPECT_NE(string(e.what()).find("huge.jpg"), string::npos) << e.what();
    EXPECT_NE(string(e.what()).find("50000 x 60000"), string::npos)
        << e.what();
  }
  // A small image still decodes under the limit.
  Datum small;
  small.set_encoded(true);
  const std::vector<uchar> bytes = Encode(".png", 20, 30);
  small.set_data(string(bytes.begin(), bytes.end()));
  EXPECT_EQ(DecodeDatumToCVMat(small, true).cols, 30);
  SetHostMemoryLimit(old_limit);
}
#endif  // USE_OPENCV

}  // namespace
}  // namespace caffe
