// blob.hpp: an N-D array with a value (data) and a gradient (diff).
//
// Contract: shapes are row-major, outermost axis first, with at most
// kMaxBlobAxes axes, each under 2^31, and a 64-bit element count (issue 13,
// item 5).  count() and count(start, end) are BVLC's 32-bit API: they throw
// caffe::Error, naming the shape, when the answer passes INT_MAX, so a path
// not yet written for such blobs fails clearly instead of wrapping an index;
// paths that are written for them call count64() (docs/gpu.md lists them).
// offset() is 64-bit.  Reshape only grows the
// underlying buffers; shrinking keeps the memory for reuse.  ShareData and
// ShareDiff make two blobs view the same buffer (same count required).
// MarkDiffStale makes this blob's const diff accessors throw
// BlobNotReadable until its diff is next written through this blob: the
// memory engine's mark for a diff whose memory another blob has overwritten
// (gradient aliasing, memory_contract.hpp).
// FromProto accepts the N-D `shape` or the legacy num/channels/height/width
// form and float or double arrays; ToProto writes `shape` plus `data` for
// float blobs and `double_data` for double blobs, as Caffe 1.0 does.
#ifndef CAFFE_BLOB_HPP_
#define CAFFE_BLOB_HPP_

#include <climits>
#include <cstdint>
#include <string>
#include <vector>

#include "caffe/common.hpp"
#include "caffe/proto/caffe.pb.h"
#include "caffe/syncedmem.hpp"

namespace caffe {

const int kMaxBlobAxes = 32;

template <typename Dtype>
class Blob {
 public:
  Blob() : count_(0), capacity_(0) {}
  explicit Blob(const vector<int>& shape);
  // Legacy 4-D constructor.
  Blob(int num, int channels, int height, int width);

  void Reshape(const vector<int>& shape);
  void Reshape(const BlobShape& shape);
  void Reshape(int num, int channels, int height, int width);
  void ReshapeLike(const Blob& other) { Reshape(other.shape()); }

  string shape_string() const;
  const vector<int>& shape() const { return shape_; }
  int shape(int index) const { return shape_[CanonicalAxisIndex(index)]; }
  int num_axes() const { return static_cast<int>(shape_.size()); }
  int count() const {
    if (count_ > INT_MAX) ThrowCountOver32Bits(count_);
    return static_cast<int>(count_);
  }
  int64_t count64() const { return count_; }
  // Elements in axes [start_axis, end_axis).
  int count(int start_axis, int end_axis) const;
  int count(int start_axis) const { return count(start_axis, num_axes()); }
  int64_t count64(int start_axis, int end_axis) const;
  int64_t count64(int start_axis) const {
    return count64(start_axis, num_axes());
  }
  // Maps a possibly negative axis index into [0, num_axes()); throws when out
  // of range.
  int CanonicalAxisIndex(int axis_index) const;

  // Legacy 4-D accessors: axes beyond the blob's count as 1.
  int num() const { return LegacyShape(0); }
  int channels() const { return LegacyShape(1); }
  int height() const { return LegacyShape(2); }
  int width() const { return LegacyShape(3); }
  int LegacyShape(int index) const;

  int64_t offset(int n, int c = 0, int h = 0, int w = 0) const;
  int64_t offset(const vector<int>& indices) const;

  // Copies data (or diff) from source; reshapes when reshape is true,
  // otherwise the counts must match.
  void CopyFrom(const Blob<Dtype>& source, bool copy_diff = false,
                bool reshape = false);

  Dtype data_at(int n, int c, int h, int w) const {
    return cpu_data()[offset(n, c, h, w)];
  }
  Dtype diff_at(int n, int c, int h, int w) const {
    return cpu_diff()[offset(n, c, h, w)];
  }
  Dtype data_at(const vector<int>& index) const {
    return cpu_data()[offset(index)];
  }
  Dtype diff_at(const vector<int>& index) const {
    return cpu_diff()[offset(index)];
  }

  const shared_ptr<SyncedMemory>& data() const { return data_; }
  const shared_ptr<SyncedMemory>& diff() const { return diff_; }

  const Dtype* cpu_data() const;
  void set_cpu_data(Dtype* data);
  const Dtype* gpu_data() const;
  void set_gpu_data(Dtype* data);
  const Dtype* cpu_diff() const;
  const Dtype* gpu_diff() const;
  Dtype* mutable_cpu_data();
  Dtype* mutable_gpu_data();
  Dtype* mutable_cpu_diff();
  Dtype* mutable_gpu_diff();

  // data -= diff (the parameter update step).
  void Update();
  void FromProto(const BlobProto& proto, bool reshape = true);
  void ToProto(BlobProto* proto, bool write_diff = false) const;

  Dtype asum_data() const;
  Dtype asum_diff() const;
  Dtype sumsq_data() const;
  Dtype sumsq_diff() const;
  void scale_data(Dtype scale_factor);
  void scale_diff(Dtype scale_factor);

  void ShareData(const Blob& other);
  void ShareDiff(const Blob& other);
  // Ends a ShareDiff: the diff gets memory of its own (capacity elements,
  // zero-filled on first use, as after Reshape).
  void SeparateDiff();
  void MarkDiffStale(shared_ptr<const std::string> why) { stale_diff_ = why; }
  // Null when the diff is readable through this blob.
  const std::string* diff_stale() const { return stale_diff_.get(); }

  bool ShapeEquals(const BlobProto& other) const;

 protected:
  shared_ptr<SyncedMemory> data_;
  shared_ptr<SyncedMemory> diff_;
  vector<int> shape_;
  [[noreturn]] void ThrowCountOver32Bits(int64_t count) const;

  int64_t count_;
  int64_t capacity_;
  shared_ptr<const std::string> stale_diff_;

  DISABLE_COPY_AND_ASSIGN(Blob);
};

}  // namespace caffe

#endif  // CAFFE_BLOB_HPP_
