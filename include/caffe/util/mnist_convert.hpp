// mnist_convert.hpp: the work behind tools/convert_mnist_data and
// tools/compute_image_mean, as library functions so tests can run them
// without the binaries.
//
// Contract: ConvertMnist reads an MNIST-format idx image file (magic 2051,
// count, rows, cols, then uint8 pixels) and label file (magic 2049, count,
// then uint8 labels), plain or gzip-compressed (as Debian's
// dataset-fashion-mnist ships them), and writes one Datum per image
// (1 x rows x cols uint8 data, label) under keys "%08d" in file order into
// a NEW database at db_path; it returns the number of items.  Bad magic
// numbers, mismatched counts, truncated files and an existing db_path throw
// caffe::Error naming the file.  ConvertMnistSiamese writes, for each of
// the N images, a pair of images drawn at random (seeded) as one
// 2 x rows x cols Datum whose label is 1 when both show the same class and
// 0 otherwise: the input of Caffe's mnist_siamese example.
// ComputeImageMean averages every Datum of a
// database (uint8 data, float_data or encoded images, which are decoded
// keeping their channels; all of one size) into a 1 x C x H x W
// BlobProto (legacy num/channels/height/width fields, as Caffe writes mean
// files), optionally returning the per-channel means; it returns the
// number of records read.
#ifndef CAFFE_UTIL_MNIST_CONVERT_HPP_
#define CAFFE_UTIL_MNIST_CONVERT_HPP_

#include <string>
#include <vector>

#include "caffe/common.hpp"
#include "caffe/proto/caffe.pb.h"

namespace caffe {

int ConvertMnist(const string& image_filename, const string& label_filename,
                 const string& db_path, const string& backend);

int ConvertMnistSiamese(const string& image_filename,
                        const string& label_filename, const string& db_path,
                        const string& backend, unsigned int seed);

int ComputeImageMean(const string& db_path, const string& backend,
                     BlobProto* mean, vector<double>* channel_means = nullptr);

}  // namespace caffe

#endif  // CAFFE_UTIL_MNIST_CONVERT_HPP_
