#include "caffe/util/mnist_convert.hpp"

#include <zlib.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <random>

#include "caffe/util/db.hpp"
#include "caffe/util/image_io.hpp"

namespace caffe {

namespace {

// Reads an idx file through zlib, which passes uncompressed files through
// unchanged, so .gz and plain files take the same path.
class IdxReader {
 public:
  explicit IdxReader(const string& filename) : filename_(filename) {
    file_ = gzopen(filename.c_str(), "rb");
    CAFFE_CHECK(file_ != nullptr)
        << "Cannot open idx file '" << filename << "'";
  }
  ~IdxReader() {
    if (file_) gzclose(file_);
  }

  // Reads exactly n bytes; `what` names the missing part in the error.
  void Read(void* buffer, size_t n, const char* what) {
    const int got = gzread(file_, buffer, static_cast<unsigned int>(n));
    if (got < 0) {
      int errnum = 0;
      const char* message = gzerror(file_, &errnum);
      CAFFE_THROW() << "Cannot read idx file '" << filename_ << "': "
                    << message;
    }
    CAFFE_CHECK_EQ(static_cast<size_t>(got), n)
        << "idx file '" << filename_ << "' is truncated while reading "
        << what;
  }

  uint32_t ReadBigEndian32(const char* what) {
    unsigned char b[4];
    Read(b, 4, what);
    return (uint32_t(b[0]) << 24) | (uint32_t(b[1]) << 16) |
           (uint32_t(b[2]) << 8) | uint32_t(b[3]);
  }

  const string& filename() const { return filename_; }

 private:
  string filename_;
  gzFile file_;
  DISABLE_COPY_AND_ASSIGN(IdxReader);
};

void DecodeRecord(const string& key, const string& db_path, Datum* datum) {
  try {
    DecodeDatumNative(datum);
  } catch (const Error& e) {
    throw Error("Record '" + key + "' in '" + db_path + "': " + e.what());
  }
}

string FormatKey(int item_id) {
  char buffer[16];
  std::snprintf(buffer, sizeof(buffer), "%08d", item_id);
  return buffer;
}

// The two idx files of one dataset, headers read and checked.
struct MnistFiles {
  MnistFiles(const string& image_filename, const string& label_filename)
      : images(image_filename), labels(label_filename) {
    const uint32_t image_magic = images.ReadBigEndian32("the magic number");
    CAFFE_CHECK_EQ(image_magic, 2051u)
        << "'" << image_filename << "' is not an idx image file (magic "
        << image_magic << ", expected 2051)";
    const uint32_t label_magic = labels.ReadBigEndian32("the magic number");
    CAFFE_CHECK_EQ(label_magic, 2049u)
        << "'" << label_filename << "' is not an idx label file (magic "
        << label_magic << ", expected 2049)";
    num_items = images.ReadBigEndian32("the image count");
    const uint32_t num_labels = labels.ReadBigEndian32("the label count");
    CAFFE_CHECK_EQ(num_items, num_labels)
        << "'" << image_filename << "' holds " << num_items
        << " images but '" << label_filename << "' holds " << num_labels
        << " labels";
    rows = images.ReadBigEndian32("the row count");
    cols = images.ReadBigEndian32("the column count");
    CAFFE_CHECK(rows > 0 && cols > 0 && rows <= 65536 && cols <= 65536)
        << "'" << image_filename << "' has implausible image size " << rows
        << " x " << cols;
    CAFFE_CHECK_LE(num_items, 99999999u)
        << "'" << image_filename
        << "' holds too many images for 8-digit keys";
    LOG(INFO) << "A total of " << num_items << " items.";
    LOG(INFO) << "Rows: " << rows << " Cols: " << cols;
  }
  size_t image_bytes() const { return static_cast<size_t>(rows) * cols; }

  IdxReader images, labels;
  uint32_t num_items = 0, rows = 0, cols = 0;
};

// Writes Datums under "%08d" keys into a new database, committing every
// thousand.
class DatumWriter {
 public:
  DatumWriter(const string& db_path, const string& backend)
      : db_(db::GetDB(backend)) {
    db_->Open(db_path, db::NEW);
    txn_.reset(db_->NewTransaction());
  }
  void Put(const Datum& datum) {
    datum.SerializeToString(&value_);
    txn_->Put(FormatKey(count_), value_);
    if (++count_ % 1000 == 0) txn_->Commit();
  }
  int Close() {
    if (count_ % 1000 != 0) txn_->Commit();
    txn_.reset();
    db_->Close();
    return count_;
  }

 private:
  std::unique_ptr<db::DB> db_;
  std::unique_ptr<db::Transaction> txn_;
  string value_;
  int count_ = 0;
};

}  // namespace

int ConvertMnist(const string& image_filename, const string& label_filename,
                 const string& db_path, const string& backend) {
  MnistFiles files(image_filename, label_filename);
  DatumWriter writer(db_path, backend);
  string pixels(files.image_bytes(), '\0');
  Datum datum;
  datum.set_channels(1);
  datum.set_height(static_cast<int>(files.rows));
  datum.set_width(static_cast<int>(files.cols));
  for (uint32_t item_id = 0; item_id < files.num_items; ++item_id) {
    files.images.Read(&pixels[0], pixels.size(), "the image pixels");
    unsigned char label;
    files.labels.Read(&label, 1, "the labels");
    datum.set_data(pixels);
    datum.set_label(label);
    writer.Put(datum);
  }
  const int count = writer.Close();
  LOG(INFO) << "Processed " << count << " files.";
  return count;
}

int ConvertMnistSiamese(const string& image_filename,
                        const string& label_filename, const string& db_path,
                        const string& backend, unsigned int seed) {
  MnistFiles files(image_filename, label_filename);
  const size_t bytes = files.image_bytes();
  CAFFE_CHECK_GT(files.num_items, 0u)
      << "'" << image_filename << "' holds no images to pair";
  string all_pixels(bytes * files.num_items, '\0');
  string all_labels(files.num_items, '\0');
  files.images.Read(&all_pixels[0], all_pixels.size(), "the image pixels");
  files.labels.Read(&all_labels[0], all_labels.size(), "the labels");
  std::mt19937 rng(seed);
  std::uniform_int_distribution<uint32_t> pick(0, files.num_items - 1);
  DatumWriter writer(db_path, backend);
  Datum datum;
  datum.set_channels(2);
  datum.set_height(static_cast<int>(files.rows));
  datum.set_width(static_cast<int>(files.cols));
  for (uint32_t item_id = 0; item_id < files.num_items; ++item_id) {
    const uint32_t i = pick(rng), j = pick(rng);
    datum.set_data(all_pixels.substr(i * bytes, bytes) +
                   all_pixels.substr(j * bytes, bytes));
    datum.set_label(all_labels[i] == all_labels[j] ? 1 : 0);
    writer.Put(datum);
  }
  return writer.Close();
}

int ComputeImageMean(const string& db_path, const string& backend,
                     BlobProto* mean, vector<double>* channel_means) {
  std::unique_ptr<db::DB> db(db::GetDB(backend));
  db->Open(db_path, db::READ);
  std::unique_ptr<db::Cursor> cursor(db->NewCursor());
  CAFFE_CHECK(cursor->valid()) << "Database '" << db_path << "' is empty";

  Datum datum;
  CAFFE_CHECK(datum.ParseFromString(cursor->value()))
      << "Record '" << cursor->key() << "' in '" << db_path
      << "' is not a Datum";
  // Encoded images are averaged as the pixels they decode to.
  if (datum.encoded()) DecodeRecord(cursor->key(), db_path, &datum);
  const int channels = datum.channels();
  const int height = datum.height();
  const int width = datum.width();
  CAFFE_CHECK(channels > 0 && height > 0 && width > 0)
      << "Record '" << cursor->key() << "' in '" << db_path
      << "' has shape " << channels << " x " << height << " x " << width;
  const size_t data_size = static_cast<size_t>(channels) * height * width;

  // Double sums: float loses the low bits after ~16M additions.
  vector<double> sum(data_size, 0.0);
  int count = 0;
  for (; cursor->valid(); cursor->Next()) {
    CAFFE_CHECK(datum.ParseFromString(cursor->value()))
        << "Record '" << cursor->key() << "' in '" << db_path
        << "' is not a Datum";
    if (datum.encoded()) DecodeRecord(cursor->key(), db_path, &datum);
    const string& data = datum.data();
    const size_t size_in_datum =
        std::max<size_t>(data.size(), datum.float_data_size());
    CAFFE_CHECK_EQ(size_in_datum, data_size)
        << "Record '" << cursor->key() << "' in '" << db_path << "' has "
        << size_in_datum << " values; the first record has " << data_size;
    if (!data.empty()) {
      for (size_t i = 0; i < data_size; ++i)
        sum[i] += static_cast<uint8_t>(data[i]);
    } else {
      for (size_t i = 0; i < data_size; ++i) sum[i] += datum.float_data(i);
    }
    if (++count % 10000 == 0) LOG(INFO) << "Processed " << count << " files.";
  }
  if (count % 10000 != 0) LOG(INFO) << "Processed " << count << " files.";

  mean->Clear();
  mean->set_num(1);
  mean->set_channels(channels);
  mean->set_height(height);
  mean->set_width(width);
  for (size_t i = 0; i < data_size; ++i)
    mean->add_data(static_cast<float>(sum[i] / count));

  const size_t dim = static_cast<size_t>(height) * width;
  vector<double> means(channels, 0.0);
  LOG(INFO) << "Number of channels: " << channels;
  for (int c = 0; c < channels; ++c) {
    for (size_t i = 0; i < dim; ++i) means[c] += sum[c * dim + i] / count;
    means[c] /= dim;
    LOG(INFO) << "mean_value channel [" << c << "]: " << means[c];
  }
  if (channel_means) *channel_means = means;
  return count;
}

}  // namespace caffe
