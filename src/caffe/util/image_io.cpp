#include "caffe/util/image_io.hpp"

#ifdef USE_OPENCV
#include <opencv2/imgcodecs/imgcodecs.hpp>
#include <opencv2/imgproc/imgproc.hpp>
#endif

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <vector>

#include "caffe/util/image_header.hpp"

namespace caffe {

void ThrowOpenCVMissing(const string& what) {
  throw Error(what + " needs OpenCV, and this build of LeanCaffe was "
              "configured with USE_OPENCV=OFF (reconfigure with "
              "-DUSE_OPENCV=ON to use it)");
}

#ifdef USE_OPENCV
namespace {

// OpenCV reports unknown or damaged files by returning an empty Mat, but
// some codecs throw cv::Exception instead; fold both into caffe::Error.
cv::Mat ImreadOrThrow(const string& filename, int flags) {
  std::ifstream probe(filename.c_str(), std::ios::binary);
  if (!probe) {
    CAFFE_THROW() << "Could not open or find image file '" << filename
                  << "': " << std::strerror(errno);
  }
  // The header, to refuse an image that cannot fit before decoding it
  // (JPEG's size may follow up to 64 KiB of metadata).
  std::vector<unsigned char> head(256 * 1024);
  probe.read(reinterpret_cast<char*>(head.data()),
             static_cast<std::streamsize>(head.size()));
  try {
    CheckDecodedImageFits(head.data(), static_cast<size_t>(probe.gcount()));
  } catch (const Error& e) {
    throw Error("image file '" + filename + "': " + e.what());
  }
  cv::Mat img;
  try {
    img = cv::imread(filename, flags);
  } catch (const cv::Exception& e) {
    CAFFE_THROW() << "Could not decode image file '" << filename
                  << "': " << e.what();
  }
  CAFFE_CHECK(img.data) << "Could not decode image file '" << filename
                        << "' (not an image format OpenCV can read, or "
                           "damaged)";
  return img;
}

cv::Mat DecodeBytes(const Datum& datum, int flags) {
  CAFFE_CHECK(datum.encoded()) << "Datum is not encoded";
  const string& data = datum.data();
  CheckDecodedImageFits(reinterpret_cast<const unsigned char*>(data.data()),
                        data.size());
  cv::Mat img;
  try {
    std::vector<uchar> buffer(data.begin(), data.end());
    img = cv::imdecode(buffer, flags);
  } catch (const cv::Exception& e) {
    CAFFE_THROW() << "Could not decode encoded datum (" << data.size()
                  << " bytes): " << e.what();
  }
  CAFFE_CHECK(img.data) << "Could not decode encoded datum (" << data.size()
                        << " bytes; not an image format OpenCV can read, "
                           "or damaged)";
  return img;
}

string Lower(string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  return s;
}

// Whether filename's extension names `encoding` (jpg and jpeg alike).
bool MatchExtension(const string& filename, string encoding) {
  const size_t dot = filename.rfind('.');
  if (dot == string::npos) return false;
  string ext = Lower(filename.substr(dot + 1));
  encoding = Lower(encoding);
  if (ext == "jpeg") ext = "jpg";
  if (encoding == "jpeg") encoding = "jpg";
  return ext == encoding;
}

}  // namespace

cv::Mat ReadImageToCVMat(const string& filename, int height, int width,
                         bool is_color) {
  CAFFE_CHECK((height == 0 && width == 0) || (height > 0 && width > 0))
      << "Resizing '" << filename << "' needs both height and width (got "
      << height << " x " << width << ")";
  const int flags = is_color ? cv::IMREAD_COLOR : cv::IMREAD_GRAYSCALE;
  cv::Mat img = ImreadOrThrow(filename, flags);
  if (height > 0 && width > 0) {
    cv::Mat resized;
    cv::resize(img, resized, cv::Size(width, height), 0, 0, cv::INTER_LINEAR);
    return resized;
  }
  return img;
}

cv::Mat ReadImageToCVMat(const string& filename, int height, int width) {
  return ReadImageToCVMat(filename, height, width, true);
}

cv::Mat ReadImageToCVMat(const string& filename, bool is_color) {
  return ReadImageToCVMat(filename, 0, 0, is_color);
}

cv::Mat ReadImageToCVMat(const string& filename) {
  return ReadImageToCVMat(filename, 0, 0, true);
}

bool ReadImageToDatum(const string& filename, int label, int height,
                      int width, bool is_color, const string& encoding,
                      Datum* datum) {
  cv::Mat img = ReadImageToCVMat(filename, height, width, is_color);
  if (encoding.empty()) {
    CVMatToDatum(img, datum);
    datum->set_label(label);
    return true;
  }
  // The file can be stored as it is when decoding it later (natively) gives
  // what was asked.  Caffe compares with the converted image instead and so
  // stores colour files even when gray was asked for.
  if (height == 0 && width == 0 && MatchExtension(filename, encoding) &&
      ImreadOrThrow(filename, cv::IMREAD_ANYCOLOR).channels() ==
          img.channels()) {
    return ReadFileToDatum(filename, label, datum);
  }
  std::vector<uchar> buffer;
  bool ok = false;
  try {
    ok = cv::imencode("." + encoding, img, buffer);
  } catch (const cv::Exception& e) {
    CAFFE_THROW() << "Could not encode '" << filename << "' as '" << encoding
                  << "': " << e.what();
  }
  CAFFE_CHECK(ok) << "Could not encode '" << filename << "' as '" << encoding
                  << "'";
  datum->Clear();
  datum->set_data(string(reinterpret_cast<const char*>(buffer.data()),
                         buffer.size()));
  datum->set_label(label);
  datum->set_encoded(true);
  return true;
}
#else   // !USE_OPENCV
bool ReadImageToDatum(const string& filename, int label, int height,
                      int width, bool is_color, const string& encoding,
                      Datum* datum) {
  ThrowOpenCVMissing("reading image file '" + filename + "'");
}
#endif  // USE_OPENCV

bool ReadFileToDatum(const string& filename, int label, Datum* datum) {
  std::ifstream file(filename.c_str(), std::ios::binary);
  if (!file) {
    CAFFE_THROW() << "Could not open or find file '" << filename
                  << "': " << std::strerror(errno);
  }
  std::ostringstream contents;
  contents << file.rdbuf();
  CAFFE_CHECK(!file.bad()) << "Could not read file '" << filename << "'";
  datum->Clear();
  datum->set_data(contents.str());
  datum->set_label(label);
  datum->set_encoded(true);
  return true;
}

#ifdef USE_OPENCV
cv::Mat DecodeDatumToCVMatNative(const Datum& datum) {
  return DecodeBytes(datum, cv::IMREAD_ANYCOLOR);
}

cv::Mat DecodeDatumToCVMat(const Datum& datum, bool is_color) {
  return DecodeBytes(datum,
                     is_color ? cv::IMREAD_COLOR : cv::IMREAD_GRAYSCALE);
}

bool DecodeDatumNative(Datum* datum) {
  if (!datum->encoded()) return false;
  const cv::Mat img = DecodeDatumToCVMatNative(*datum);
  CVMatToDatum(img, datum);
  return true;
}

bool DecodeDatum(Datum* datum, bool is_color) {
  if (!datum->encoded()) return false;
  const cv::Mat img = DecodeDatumToCVMat(*datum, is_color);
  CVMatToDatum(img, datum);
  return true;
}

void CVMatToDatum(const cv::Mat& cv_img, Datum* datum) {
  CAFFE_CHECK(cv_img.depth() == CV_8U)
      << "Image data type must be unsigned byte (got OpenCV depth "
      << cv_img.depth() << ")";
  const int channels = cv_img.channels();
  const int height = cv_img.rows;
  const int width = cv_img.cols;
  datum->set_channels(channels);
  datum->set_height(height);
  datum->set_width(width);
  datum->clear_data();
  datum->clear_float_data();
  datum->set_encoded(false);
  string buffer(static_cast<size_t>(channels) * height * width, '\0');
  for (int h = 0; h < height; ++h) {
    const uchar* row = cv_img.ptr<uchar>(h);
    for (int w = 0; w < width; ++w) {
      for (int c = 0; c < channels; ++c) {
        buffer[(static_cast<size_t>(c) * height + h) * width + w] =
            static_cast<char>(row[w * channels + c]);
      }
    }
  }
  datum->set_data(buffer);
}
#else   // !USE_OPENCV
// A raw datum needs no decoding, so it passes as with OpenCV.
bool DecodeDatumNative(Datum* datum) {
  if (!datum->encoded()) return false;
  ThrowOpenCVMissing("decoding an encoded (compressed image) Datum");
}

bool DecodeDatum(Datum* datum, bool is_color) {
  return DecodeDatumNative(datum);
}
#endif  // USE_OPENCV

vector<ImageListEntry> ReadImageList(const string& list_file) {
  std::ifstream infile(list_file.c_str());
  if (!infile) {
    CAFFE_THROW() << "Could not open image list file '" << list_file
                  << "': " << std::strerror(errno);
  }
  vector<ImageListEntry> entries;
  string line;
  int line_number = 0;
  while (std::getline(infile, line)) {
    ++line_number;
    // Lists written on Windows end their lines in \r.
    while (!line.empty() && std::isspace(static_cast<unsigned char>(
                                line.back())))
      line.pop_back();
    if (line.empty()) continue;
    const size_t pos = line.find_last_of(' ');
    CAFFE_CHECK(pos != string::npos && pos > 0)
        << list_file << ":" << line_number
        << ": expected '<path> <label>', got '" << line << "'";
    const string label_text = line.substr(pos + 1);
    char* end = nullptr;
    errno = 0;
    const long label = std::strtol(label_text.c_str(), &end, 10);
    CAFFE_CHECK(end != label_text.c_str() && *end == '\0' && errno == 0 &&
                label >= INT32_MIN && label <= INT32_MAX)
        << list_file << ":" << line_number << ": label '" << label_text
        << "' is not an integer";
    entries.push_back({line.substr(0, pos), static_cast<int>(label),
                       line_number});
  }
  CAFFE_CHECK(!infile.bad()) << "Could not read image list file '"
                             << list_file << "'";
  return entries;
}

}  // namespace caffe
