#include "caffe/util/dataset_tools.hpp"

#ifdef USE_OPENCV
#include <opencv2/core/core.hpp>
#include <opencv2/imgcodecs/imgcodecs.hpp>
#endif

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <fstream>
#include <memory>

#include "caffe/blob.hpp"
#include "caffe/net.hpp"
#include "caffe/proto/caffe.pb.h"
#include "caffe/util/db.hpp"
#include "caffe/util/image_io.hpp"

namespace caffe {

namespace {

string FormatInt(int n, int digits) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%0*d", digits, n);
  return buffer;
}

#ifdef USE_OPENCV
// The encoding convert_imageset guesses from a file name: its extension.
string GuessEncoding(const string& filename) {
  const size_t dot = filename.rfind('.');
  const size_t slash = filename.rfind('/');
  if (dot == string::npos || (slash != string::npos && dot < slash)) {
    LOG(WARNING) << "Failed to guess the encoding of '" << filename << "'";
    return "";
  }
  string ext = filename.substr(dot + 1);
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  return ext;
}
#endif  // USE_OPENCV

}  // namespace

vector<string> SplitCommaList(const string& list) {
  vector<string> parts;
  size_t start = 0;
  for (;;) {
    const size_t comma = list.find(',', start);
    parts.push_back(list.substr(start, comma - start));
    if (comma == string::npos) break;
    start = comma + 1;
  }
  return parts;
}

#ifdef USE_OPENCV
int ConvertImageset(const string& root_folder, const string& list_file,
                    const string& db_path,
                    const ConvertImagesetOptions& options) {
  const bool is_color = !options.gray;
  const bool check_size = options.check_size;
  bool encoded = options.encoded;
  const string& encode_type = options.encode_type;
  CAFFE_CHECK(options.resize_height >= 0 && options.resize_width >= 0)
      << "resize_height and resize_width must not be negative";
  CAFFE_CHECK((options.resize_height == 0) == (options.resize_width == 0))
      << "resize_height and resize_width must be given together (got "
      << options.resize_height << " x " << options.resize_width << ")";

  vector<ImageListEntry> lines = ReadImageList(list_file);
  if (options.shuffle) {
    LOG(INFO) << "Shuffling data";
    std::shuffle(lines.begin(), lines.end(), Caffe::rng());
  }
  LOG(INFO) << "A total of " << lines.size() << " images.";
  if (!encode_type.empty() && !encoded) {
    LOG(INFO) << "encode_type specified, assuming encoded=true.";
    encoded = true;
  }
  if (!encode_type.empty()) {
    // Fail before creating the database rather than on the first image.
    CAFFE_CHECK(cv::haveImageWriter("." + encode_type))
        << "encode_type '" << encode_type
        << "' is not an image format OpenCV can write";
  }

  std::unique_ptr<db::DB> db(db::GetDB(options.backend));
  db->Open(db_path, db::NEW);
  std::unique_ptr<db::Transaction> txn(db->NewTransaction());

  Datum datum;
  int count = 0;
  int first_channels = 0, first_height = 0, first_width = 0;
  string value;
  for (size_t line_id = 0; line_id < lines.size(); ++line_id) {
    const ImageListEntry& entry = lines[line_id];
    const string where = list_file + ":" + std::to_string(entry.line) +
                         ": image '" + entry.path + "'";
    string enc = encode_type;
    if (encoded && enc.empty()) enc = GuessEncoding(entry.path);
    cv::Mat img;
    try {
      // Encoded datums carry no shape, so check_size decodes the image too.
      if (!encoded || check_size) {
        img = ReadImageToCVMat(root_folder + entry.path,
                               options.resize_height, options.resize_width,
                               is_color);
      }
      if (encoded) {
        ReadImageToDatum(root_folder + entry.path, entry.label,
                         options.resize_height, options.resize_width,
                         is_color, enc, &datum);
      } else {
        CVMatToDatum(img, &datum);
        datum.set_label(entry.label);
      }
    } catch (const Error& e) {
      throw Error(where + ": " + e.what());
    }
    if (check_size) {
      if (count == 0) {
        first_channels = img.channels();
        first_height = img.rows;
        first_width = img.cols;
      } else {
        CAFFE_CHECK(img.channels() == first_channels &&
                    img.rows == first_height && img.cols == first_width)
            << where << ": size " << img.channels() << " x " << img.rows
            << " x " << img.cols << " differs from the first image's "
            << first_channels << " x " << first_height << " x "
            << first_width << " (check_size)";
      }
    }
    const string key = FormatInt(static_cast<int>(line_id), 8) + "_" +
                       entry.path;
    CAFFE_CHECK(datum.SerializeToString(&value))
        << where << ": cannot serialize the Datum";
    txn->Put(key, value);
    if (++count % 1000 == 0) {
      txn->Commit();
      LOG(INFO) << "Processed " << count << " files.";
    }
  }
  if (count % 1000 != 0) {
    txn->Commit();
    LOG(INFO) << "Processed " << count << " files.";
  }
  txn.reset();
  db->Close();
  return count;
}
#else   // !USE_OPENCV
// Even encoded output decodes each image (channels, check_size), so there
// is nothing this build can convert; say so before creating the database.
int ConvertImageset(const string& root_folder, const string& list_file,
                    const string& db_path,
                    const ConvertImagesetOptions& options) {
  ThrowOpenCVMissing("convert_imageset (reading image files)");
}
#endif  // USE_OPENCV

namespace {

const int kCIFARSize = 32;
const int kCIFARImageNBytes = 3072;
const int kCIFARBatchSize = 10000;
const int kCIFARTrainBatches = 5;

// Writes every record of `filename` with keys "%05d" of key_base + item.
int ConvertCifarFile(const string& filename, int key_base,
                     db::Transaction* txn) {
  std::ifstream file(filename.c_str(), std::ios::binary);
  CAFFE_CHECK(file) << "Unable to open CIFAR-10 batch file '" << filename
                    << "'";
  Datum datum;
  datum.set_channels(3);
  datum.set_height(kCIFARSize);
  datum.set_width(kCIFARSize);
  string record(kCIFARImageNBytes + 1, '\0');
  string value;
  int item = 0;
  for (;;) {
    file.read(&record[0], record.size());
    const std::streamsize got = file.gcount();
    if (got == 0) break;
    CAFFE_CHECK_EQ(got, static_cast<std::streamsize>(record.size()))
        << "CIFAR-10 batch file '" << filename << "' ends inside record "
        << item << " (records are " << record.size() << " bytes)";
    CAFFE_CHECK_LT(item, kCIFARBatchSize)
        << "CIFAR-10 batch file '" << filename << "' holds more than "
        << kCIFARBatchSize << " records";
    datum.set_label(static_cast<unsigned char>(record[0]));
    datum.set_data(record.substr(1));
    datum.SerializeToString(&value);
    txn->Put(FormatInt(key_base + item, 5), value);
    ++item;
  }
  return item;
}

}  // namespace

CifarCounts ConvertCifar(const string& input_folder,
                         const string& output_folder, const string& backend) {
  CifarCounts counts;
  {
    std::unique_ptr<db::DB> train_db(db::GetDB(backend));
    train_db->Open(output_folder + "/cifar10_train_" + backend, db::NEW);
    std::unique_ptr<db::Transaction> txn(train_db->NewTransaction());
    LOG(INFO) << "Writing Training data";
    for (int fileid = 0; fileid < kCIFARTrainBatches; ++fileid) {
      LOG(INFO) << "Training Batch " << fileid + 1;
      const string filename =
          input_folder + "/data_batch_" + std::to_string(fileid + 1) + ".bin";
      counts.train +=
          ConvertCifarFile(filename, fileid * kCIFARBatchSize, txn.get());
      // One commit per file bounds what a transaction buffers.
      txn->Commit();
    }
    txn.reset();
    train_db->Close();
  }
  {
    LOG(INFO) << "Writing Testing data";
    std::unique_ptr<db::DB> test_db(db::GetDB(backend));
    test_db->Open(output_folder + "/cifar10_test_" + backend, db::NEW);
    std::unique_ptr<db::Transaction> txn(test_db->NewTransaction());
    counts.test =
        ConvertCifarFile(input_folder + "/test_batch.bin", 0, txn.get());
    txn->Commit();
    txn.reset();
    test_db->Close();
  }
  return counts;
}

int ExtractFeatures(const string& pretrained_model, const string& net_proto,
                    const vector<string>& blob_names,
                    const vector<string>& db_names, int num_mini_batches,
                    const string& backend) {
  CAFFE_CHECK_EQ(blob_names.size(), db_names.size())
      << "the number of blob names and dataset names must be equal";
  CAFFE_CHECK_GT(num_mini_batches, 0)
      << "num_mini_batches must be positive";
  Net<float> net(net_proto, TEST);
  net.CopyTrainedLayersFrom(pretrained_model);
  for (const string& name : blob_names) {
    CAFFE_CHECK(net.has_blob(name))
        << "Unknown feature blob name " << name << " in the network "
        << net_proto;
  }
  // Under mem_param the blobs asked for are kept out of sharing, so they
  // hold their values after the pass (no effect without mem_param).
  net.KeepBlobs(blob_names);

  const size_t num_features = blob_names.size();
  vector<std::unique_ptr<db::DB> > dbs;
  vector<std::unique_ptr<db::Transaction> > txns;
  for (size_t i = 0; i < num_features; ++i) {
    LOG(INFO) << "Opening dataset " << db_names[i];
    dbs.emplace_back(db::GetDB(backend));
    dbs.back()->Open(db_names[i], db::NEW);
    txns.emplace_back(dbs.back()->NewTransaction());
  }

  LOG(INFO) << "Extracting Features";
  Datum datum;
  string value;
  vector<int> image_indices(num_features, 0);
  for (int batch_index = 0; batch_index < num_mini_batches; ++batch_index) {
    net.Forward();
    for (size_t i = 0; i < num_features; ++i) {
      const shared_ptr<Blob<float> > blob = net.blob_by_name(blob_names[i]);
      const int batch_size = blob->num_axes() > 0 ? blob->shape(0) : 1;
      CAFFE_CHECK_GT(batch_size, 0)
          << "feature blob " << blob_names[i] << " is empty ("
          << blob->shape_string() << ")";
      const int dim_features = blob->count() / batch_size;
      const float* blob_data = blob->cpu_data();
      for (int n = 0; n < batch_size; ++n) {
        datum.set_height(blob->height());
        datum.set_width(blob->width());
        datum.set_channels(blob->channels());
        datum.clear_data();
        datum.clear_float_data();
        const float* item = blob_data + static_cast<size_t>(n) * dim_features;
        for (int d = 0; d < dim_features; ++d) datum.add_float_data(item[d]);
        datum.SerializeToString(&value);
        txns[i]->Put(FormatInt(image_indices[i], 10), value);
        ++image_indices[i];
        if (image_indices[i] % 1000 == 0) {
          txns[i]->Commit();
          LOG(INFO) << "Extracted features of " << image_indices[i]
                    << " query images for feature blob " << blob_names[i];
        }
      }
    }
  }
  for (size_t i = 0; i < num_features; ++i) {
    if (image_indices[i] % 1000 != 0) txns[i]->Commit();
    LOG(INFO) << "Extracted features of " << image_indices[i]
              << " query images for feature blob " << blob_names[i];
    txns[i].reset();
    dbs[i]->Close();
  }
  LOG(INFO) << "Successfully extracted the features!";
  return num_features ? image_indices[0] : 0;
}

}  // namespace caffe
