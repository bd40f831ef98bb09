// test_image_helpers.hpp: small synthetic images for the image, data-layer
// and converter tests.
//
// Contract: PatternImage(i, rows, cols, channels) is an 8-bit OpenCV image
// (H x W x C, BGR order for colour) whose pixel (h, w, c) is
// PatternValue(i, h, w, c), so tests can predict every value after
// conversion.  WritePng writes losslessly, so reading back gives the same
// pixels; WriteTextFile writes a list or window file.  The cv::Mat
// helpers exist only in builds with OpenCV (USE_OPENCV); PatternValue and
// WriteTextFile in every build.
#ifndef CAFFE_TEST_TEST_IMAGE_HELPERS_HPP_
#define CAFFE_TEST_TEST_IMAGE_HELPERS_HPP_

#ifdef USE_OPENCV
#include <opencv2/core/core.hpp>
#include <opencv2/imgcodecs/imgcodecs.hpp>
#endif

#include <fstream>
#include <string>

#include "caffe/common.hpp"

namespace caffe {
namespace test {

inline int PatternValue(int image, int h, int w, int c) {
  return (image * 37 + h * 11 + w * 3 + c * 50) % 256;
}

#ifdef USE_OPENCV
inline cv::Mat PatternImage(int image, int rows, int cols, int channels) {
  cv::Mat img(rows, cols, channels == 3 ? CV_8UC3 : CV_8UC1);
  for (int h = 0; h < rows; ++h) {
    uchar* row = img.ptr<uchar>(h);
    for (int w = 0; w < cols; ++w)
      for (int c = 0; c < channels; ++c)
        row[w * channels + c] =
            static_cast<uchar>(PatternValue(image, h, w, c));
  }
  return img;
}

// An image of one colour (B, G, R); interpolation cannot change it.
inline cv::Mat SolidImage(int rows, int cols, int b, int g, int r) {
  return cv::Mat(rows, cols, CV_8UC3, cv::Scalar(b, g, r));
}

inline void WritePng(const string& filename, const cv::Mat& img) {
  CAFFE_CHECK(cv::imwrite(filename, img)) << "cannot write " << filename;
}
#endif  // USE_OPENCV

inline void WriteTextFile(const string& filename, const string& text) {
  std::ofstream f(filename.c_str());
  f << text;
  CAFFE_CHECK(f.good()) << "cannot write " << filename;
}

}  // namespace test
}  // namespace caffe

#endif  // CAFFE_TEST_TEST_IMAGE_HELPERS_HPP_
