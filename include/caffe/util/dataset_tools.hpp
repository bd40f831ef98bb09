// dataset_tools.hpp: the work behind tools/convert_imageset,
// tools/convert_cifar_data and tools/extract_features, as library functions
// so tests (and other programs) can run them without the binaries.
//
// Contract (Caffe 1.0 tools):
//  * ConvertImageset reads list_file ("<path> <label>" lines) and stores one
//    Datum per image, read from root_folder + path, into a NEW database at
//    db_path under keys "%08d_<path>" (line order, or shuffled with
//    Caffe's random stream), committing every 1000 records.  Images are
//    colour unless gray; resized when resize_height and resize_width are
//    both > 0.  encoded stores compressed bytes (encode_type, or each file's
//    own extension when empty; a non-empty encode_type implies encoded).
//    check_size requires every image to have the first image's channels x
//    height x width.  Unlike Caffe, which skips unreadable images, a missing
//    or undecodable image throws caffe::Error naming the list file, line and
//    image, and nothing half-written is left open.  Returns the count.
//    It reads images with OpenCV: a build without it (USE_OPENCV=OFF)
//    throws caffe::Error saying so, before creating the database.
//  * ConvertCifar reads CIFAR-10 binary batches (records of 1 label byte
//    and 3072 bytes of 32 x 32 R, G, B planes) data_batch_1..5.bin and
//    test_batch.bin from input_folder and writes output_folder/
//    cifar10_train_<backend> (keys "%05d" of file * 10000 + item) and
//    cifar10_test_<backend> (keys "%05d" of item).  Batch files may hold
//    fewer than 10000 records; a missing file or a partial record throws.
//  * ExtractFeatures builds net_proto in TEST phase with the weights of
//    pretrained_model, runs num_mini_batches forward passes and stores, for
//    each blob name, every item of that blob as a Datum of float_data
//    (channels/height/width of the blob, legacy 4-D view) under keys
//    "%010d" into a NEW database of the paired name.  Returns the number
//    of items written per blob.  With mem_param the named blobs are kept
//    (Net::KeepBlobs), so the features equal the unoptimized net's.
#ifndef CAFFE_UTIL_DATASET_TOOLS_HPP_
#define CAFFE_UTIL_DATASET_TOOLS_HPP_

#include <string>
#include <vector>

#include "caffe/common.hpp"

namespace caffe {

struct ConvertImagesetOptions {
  bool gray = false;
  bool shuffle = false;
  string backend = "lmdb";
  int resize_width = 0;
  int resize_height = 0;
  bool check_size = false;
  bool encoded = false;
  string encode_type;
};

int ConvertImageset(const string& root_folder, const string& list_file,
                    const string& db_path,
                    const ConvertImagesetOptions& options);

struct CifarCounts {
  int train = 0;
  int test = 0;
};

CifarCounts ConvertCifar(const string& input_folder,
                         const string& output_folder, const string& backend);

int ExtractFeatures(const string& pretrained_model, const string& net_proto,
                    const vector<string>& blob_names,
                    const vector<string>& db_names, int num_mini_batches,
                    const string& backend);

// Splits "a,b,c" into its comma-separated parts (empty parts kept).
vector<string> SplitCommaList(const string& list);

}  // namespace caffe

#endif  // CAFFE_UTIL_DATASET_TOOLS_HPP_
