// io.hpp: reading and writing protobuf messages and Datums.
//
// Contract: every reader throws caffe::Error naming the file when it cannot
// be opened or parsed; text parse errors carry file:line:column from the
// protobuf parser.  Binary reads allow messages up to INT_MAX bytes (large
// .caffemodel files), as Caffe 1.0 does.  Writers go through a temporary
// file and rename(), so an interrupted snapshot never replaces a good file
// with a truncated one.
#ifndef CAFFE_UTIL_IO_HPP_
#define CAFFE_UTIL_IO_HPP_

#include <google/protobuf/message.h>

#include <string>

#include "caffe/blob.hpp"
#include "caffe/common.hpp"
#include "caffe/proto/caffe.pb.h"

namespace caffe {

using ::google::protobuf::Message;

// Returns false (and fills *error) instead of throwing.
bool ReadProtoFromTextFile(const string& filename, Message* proto,
                           string* error);
void ReadProtoFromTextFileOrDie(const string& filename, Message* proto);
bool ReadProtoFromBinaryFile(const string& filename, Message* proto,
                             string* error);
void ReadProtoFromBinaryFileOrDie(const string& filename, Message* proto);
// Parses text held in memory; `source_name` names it in errors.
void ReadProtoFromTextString(const string& text, const string& source_name,
                             Message* proto);

void WriteProtoToTextFile(const Message& proto, const string& filename);
void WriteProtoToBinaryFile(const Message& proto, const string& filename);

// Writes `contents` to filename atomically (temporary file + rename).
void WriteFileAtomically(const string& filename, const string& contents);

bool FileExists(const string& filename);

// Legacy names kept for Caffe users' code.
inline void ReadProtoFromTextFileOrDie(const char* f, Message* p) {
  ReadProtoFromTextFileOrDie(string(f), p);
}
inline void ReadProtoFromBinaryFileOrDie(const char* f, Message* p) {
  ReadProtoFromBinaryFileOrDie(string(f), p);
}

}  // namespace caffe

#endif  // CAFFE_UTIL_IO_HPP_
