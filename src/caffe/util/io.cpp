#include "caffe/util/io.hpp"

#include <fcntl.h>
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/tokenizer.h>
#include <google/protobuf/io/zero_copy_stream_impl.h>
#include <google/protobuf/text_format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

namespace caffe {

using google::protobuf::TextFormat;
using google::protobuf::io::CodedInputStream;
using google::protobuf::io::FileInputStream;
using google::protobuf::io::ZeroCopyInputStream;

namespace {

// Collects the parser's messages with the file name in front, so the user
// sees "net.prototxt:12:3: Expected ..." rather than a bare complaint.
class NamedErrorCollector : public google::protobuf::io::ErrorCollector {
 public:
  explicit NamedErrorCollector(const string& name) : name_(name) {}
  void AddError(int line, int column, const string& message) override {
    if (!text_.empty()) text_ += "\n";
    std::ostringstream s;
    s << name_ << ":" << (line + 1) << ":" << (column + 1) << ": "
      << message;
    text_ += s.str();
  }
  void AddWarning(int line, int column, const string& message) override {
    LOG(WARNING) << name_ << ":" << (line + 1) << ":" << (column + 1) << ": "
                 << message;
  }
  const string& text() const { return text_; }

 private:
  string name_;
  string text_;
};

bool ParseText(const string& text, const string& name, Message* proto,
               string* error) {
  NamedErrorCollector collector(name);
  TextFormat::Parser parser;
  parser.RecordErrorsTo(&collector);
  bool ok = parser.ParseFromString(text, proto);
  if (!ok && error) {
    *error = collector.text().empty() ? name + ": cannot parse text proto"
                                      : collector.text();
  }
  return ok;
}

}  // namespace

bool FileExists(const string& filename) {
  struct stat st;
  return stat(filename.c_str(), &st) == 0;
}

bool ReadProtoFromTextFile(const string& filename, Message* proto,
                           string* error) {
  std::ifstream in(filename.c_str());
  if (!in) {
    if (error) *error = filename + ": cannot open file";
    return false;
  }
  std::stringstream ss;
  ss << in.rdbuf();
  return ParseText(ss.str(), filename, proto, error);
}

void ReadProtoFromTextFileOrDie(const string& filename, Message* proto) {
  string error;
  if (!ReadProtoFromTextFile(filename, proto, &error)) throw Error(error);
}

void ReadProtoFromTextString(const string& text, const string& source_name,
                             Message* proto) {
  string error;
  if (!ParseText(text, source_name, proto, &error)) throw Error(error);
}

bool ReadProtoFromBinaryFile(const string& filename, Message* proto,
                             string* error) {
  int fd = open(filename.c_str(), O_RDONLY);
  if (fd == -1) {
    if (error) *error = filename + ": cannot open file";
    return false;
  }
  bool ok;
  {
    FileInputStream raw_input(fd);
    CodedInputStream coded_input(&raw_input);
    coded_input.SetTotalBytesLimit(INT_MAX);
    ok = proto->ParseFromCodedStream(&coded_input) &&
         coded_input.ConsumedEntireMessage();
  }
  close(fd);
  if (!ok && error) {
    *error = filename + ": not a valid binary " + proto->GetTypeName() +
             " (truncated, or a different kind of file)";
  }
  return ok;
}

void ReadProtoFromBinaryFileOrDie(const string& filename, Message* proto) {
  string error;
  if (!ReadProtoFromBinaryFile(filename, proto, &error)) throw Error(error);
}

void WriteFileAtomically(const string& filename, const string& contents) {
  const string tmp = filename + ".tmp." + std::to_string(getpid());
  errno = 0;
  FILE* f = std::fopen(tmp.c_str(), "wb");
  if (!f)
    CAFFE_THROW() << filename << ": cannot open for writing ("
                  << std::strerror(errno) << ")";
  size_t written = std::fwrite(contents.data(), 1, contents.size(), f);
  bool ok = written == contents.size();
  ok = ok && std::fflush(f) == 0;
  ok = ok && fsync(fileno(f)) == 0;
  const int error = errno;  // the first failure's reason, before fclose
  ok = (std::fclose(f) == 0) && ok;
  if (!ok) {
    std::remove(tmp.c_str());
    CAFFE_THROW() << filename << ": write failed ("
                  << std::strerror(error ? error : errno)
                  << "); the previous file is unchanged";
  }
  if (std::rename(tmp.c_str(), filename.c_str()) != 0) {
    const int rename_error = errno;
    std::remove(tmp.c_str());
    CAFFE_THROW() << filename << ": cannot rename temporary file into place ("
                  << std::strerror(rename_error) << ")";
  }
}

void WriteProtoToTextFile(const Message& proto, const string& filename) {
  string text;
  CAFFE_CHECK(TextFormat::PrintToString(proto, &text))
      << "cannot print " << proto.GetTypeName();
  WriteFileAtomically(filename, text);
}

void WriteProtoToBinaryFile(const Message& proto, const string& filename) {
  string bytes;
  CAFFE_CHECK(proto.SerializeToString(&bytes))
      << "cannot serialize " << proto.GetTypeName();
  WriteFileAtomically(filename, bytes);
}

}  // namespace caffe
