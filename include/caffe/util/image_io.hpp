// image_io.hpp: images <-> cv::Mat <-> Datum, and image list files, as
// Caffe 1.0's util/io.hpp has them.
//
// Contract:
//  * OpenCV is optional (USE_OPENCV, as in Caffe 1.0).  Without it the
//    cv::Mat functions are not declared; ReadImageToDatum, and
//    DecodeDatum/DecodeDatumNative given an encoded Datum, throw the
//    caffe::Error of ThrowOpenCVMissing, which names USE_OPENCV=OFF.
//    ReadFileToDatum, ReadImageList and decoding a raw Datum (a no-op
//    returning false) work in every build.
//  * Images are read with OpenCV: colour images as 3-channel BGR, gray ones
//    as 1 channel, 8 bits per channel.  height and width > 0 resize with
//    bilinear interpolation (cv::INTER_LINEAR); 0 keeps the size (both must
//    be given together).
//  * Unlike Caffe, which logs and returns an empty Mat or false, a missing
//    or undecodable image throws caffe::Error naming the file (or, for a
//    Datum, saying it could not be decoded).  ReadImageToDatum still returns
//    bool (always true) so Caffe callers compile unchanged.
//  * Raw Datums are C x H x W uint8 (planar); CVMatToDatum converts from
//    OpenCV's interleaved H x W x C.  Encoded Datums hold the compressed file
//    bytes with encoded = true and no shape.
//  * An image list file has one "<path> <label>" per line, split at the
//    last space (paths may contain spaces); blank lines are skipped; a line
//    without an integer label throws naming file:line.
#ifndef CAFFE_UTIL_IMAGE_IO_HPP_
#define CAFFE_UTIL_IMAGE_IO_HPP_

#ifdef USE_OPENCV
#include <opencv2/core/core.hpp>
#endif

#include <string>
#include <vector>

#include "caffe/common.hpp"
#include "caffe/proto/caffe.pb.h"

namespace caffe {

// Throws caffe::Error saying that `what` (e.g. "decoding an encoded Datum")
// needs OpenCV and that this build was configured with USE_OPENCV=OFF: what
// a build without OpenCV answers wherever it is asked to read an image.
[[noreturn]] void ThrowOpenCVMissing(const string& what);

#ifdef USE_OPENCV
cv::Mat ReadImageToCVMat(const string& filename, int height, int width,
                         bool is_color);
cv::Mat ReadImageToCVMat(const string& filename, int height, int width);
cv::Mat ReadImageToCVMat(const string& filename, bool is_color);
cv::Mat ReadImageToCVMat(const string& filename);
#endif  // USE_OPENCV

// Reads an image into datum: raw pixels without `encoding`; with an encoding
// ("jpg", "png", ...) the compressed bytes, re-encoded unless the file is
// already in that format, decodes to the wanted channel count and is not
// resized.
bool ReadImageToDatum(const string& filename, int label, int height,
                      int width, bool is_color, const string& encoding,
                      Datum* datum);
inline bool ReadImageToDatum(const string& filename, int label, int height,
                             int width, bool is_color, Datum* datum) {
  return ReadImageToDatum(filename, label, height, width, is_color, "",
                          datum);
}
inline bool ReadImageToDatum(const string& filename, int label,
                             bool is_color, Datum* datum) {
  return ReadImageToDatum(filename, label, 0, 0, is_color, datum);
}
inline bool ReadImageToDatum(const string& filename, int label,
                             Datum* datum) {
  return ReadImageToDatum(filename, label, 0, 0, true, datum);
}

// The file's bytes as an encoded Datum.
bool ReadFileToDatum(const string& filename, int label, Datum* datum);
inline bool ReadFileToDatum(const string& filename, Datum* datum) {
  return ReadFileToDatum(filename, -1, datum);
}

#ifdef USE_OPENCV
// Decodes an encoded Datum keeping its own channel count (Native) or forcing
// colour / gray.
cv::Mat DecodeDatumToCVMatNative(const Datum& datum);
cv::Mat DecodeDatumToCVMat(const Datum& datum, bool is_color);
#endif  // USE_OPENCV
// Replaces an encoded datum by its raw pixels; false if it was not encoded.
bool DecodeDatumNative(Datum* datum);
bool DecodeDatum(Datum* datum, bool is_color);

#ifdef USE_OPENCV
// 8-bit Mat (1 or 3 channels, H x W x C) -> raw C x H x W Datum (label kept).
void CVMatToDatum(const cv::Mat& cv_img, Datum* datum);
#endif  // USE_OPENCV

// One line of an image list file.
struct ImageListEntry {
  string path;
  int label;
  int line;  // 1-based line number in the list file
};
vector<ImageListEntry> ReadImageList(const string& list_file);

}  // namespace caffe

#endif  // CAFFE_UTIL_IMAGE_IO_HPP_
