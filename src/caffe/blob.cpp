#include "caffe/blob.hpp"

#include <climits>
#include <type_traits>

#include "caffe/util/blob_math.hpp"
#include "caffe/util/int_pieces.hpp"
#include "caffe/util/math_functions.hpp"

namespace caffe {

namespace {
// asum (abs true) or x.y over [0, count), summed piece by piece: one BLAS
// call, with its bits, for a blob under 2^31 elements.
template <typename Dtype>
Dtype SumOverPieces(int64_t count, const Dtype* x, const Dtype* y, bool abs) {
  Dtype sum = 0;
  ForIntPieces(count, [&](int64_t start, int n) {
    sum += abs ? caffe_cpu_asum(n, x + start)
               : caffe_cpu_dot(n, x + start, y + start);
  });
  return sum;
}
}  // namespace

template <typename Dtype>
Blob<Dtype>::Blob(const vector<int>& shape) : capacity_(0) {
  Reshape(shape);
}

template <typename Dtype>
Blob<Dtype>::Blob(int num, int channels, int height, int width)
    : capacity_(0) {
  Reshape(num, channels, height, width);
}

template <typename Dtype>
void Blob<Dtype>::Reshape(int num, int channels, int height, int width) {
  Reshape(vector<int>{num, channels, height, width});
}

template <typename Dtype>
void Blob<Dtype>::Reshape(const vector<int>& shape) {
  CAFFE_CHECK_LE(static_cast<int>(shape.size()), kMaxBlobAxes)
      << "a blob has at most " << kMaxBlobAxes << " axes";
  // The byte size must fit a signed 64-bit offset; nothing real comes near.
  const int64_t max_count = INT64_MAX / static_cast<int64_t>(sizeof(Dtype));
  int64_t count = 1;
  for (size_t i = 0; i < shape.size(); ++i) {
    CAFFE_CHECK_GE(shape[i], 0) << "negative dimension in shape";
    CAFFE_CHECK(shape[i] == 0 || count <= max_count / shape[i])
        << "blob size overflows 64 bits";
    count *= shape[i];
  }
  shape_ = shape;
  count_ = count;
  if (count_ > capacity_) {
    capacity_ = count_;
    const size_t bytes = static_cast<size_t>(capacity_) * sizeof(Dtype);
    data_.reset(new SyncedMemory(bytes));
    diff_.reset(new SyncedMemory(bytes));
  }
}

template <typename Dtype>
void Blob<Dtype>::Reshape(const BlobShape& shape) {
  CAFFE_CHECK_LE(shape.dim_size(), kMaxBlobAxes);
  vector<int> dims(shape.dim_size());
  for (int i = 0; i < shape.dim_size(); ++i) {
    CAFFE_CHECK_LE(shape.dim(i), static_cast<int64_t>(INT_MAX));
    dims[i] = static_cast<int>(shape.dim(i));
  }
  Reshape(dims);
}

template <typename Dtype>
string Blob<Dtype>::shape_string() const {
  ostringstream s;
  for (size_t i = 0; i < shape_.size(); ++i) s << shape_[i] << " ";
  s << "(" << count_ << ")";
  return s.str();
}

template <typename Dtype>
int64_t Blob<Dtype>::count64(int start_axis, int end_axis) const {
  CAFFE_CHECK_LE(start_axis, end_axis);
  CAFFE_CHECK_GE(start_axis, 0);
  CAFFE_CHECK_LE(end_axis, num_axes());
  int64_t c = 1;
  for (int i = start_axis; i < end_axis; ++i) c *= shape_[i];
  return c;
}

template <typename Dtype>
int Blob<Dtype>::count(int start_axis, int end_axis) const {
  const int64_t c = count64(start_axis, end_axis);
  if (c > INT_MAX) ThrowCountOver32Bits(c);
  return static_cast<int>(c);
}

template <typename Dtype>
void Blob<Dtype>::ThrowCountOver32Bits(int64_t count) const {
  CAFFE_THROW() << "a blob of shape " << shape_string() << " has " << count
                << " elements in the axes asked for, more than INT_MAX: "
                << "this path counts in 32 bits (blobs over 2^31 elements "
                << "run through the paths docs/gpu.md lists)";
  throw;  // not reached: CAFFE_THROW throws when its message ends
}

template <typename Dtype>
int Blob<Dtype>::CanonicalAxisIndex(int axis_index) const {
  CAFFE_CHECK(axis_index >= -num_axes() && axis_index < num_axes())
      << "axis " << axis_index << " out of range for a " << num_axes()
      << "-D blob with shape " << shape_string();
  return axis_index < 0 ? axis_index + num_axes() : axis_index;
}

template <typename Dtype>
int Blob<Dtype>::LegacyShape(int index) const {
  CAFFE_CHECK_LE(num_axes(), 4)
      << "legacy 4-D accessors used on a blob with shape " << shape_string();
  CAFFE_CHECK(index < 4 && index >= -4) << "index " << index;
  if (index >= num_axes() || index < -num_axes()) return 1;
  return shape(index);
}

template <typename Dtype>
int64_t Blob<Dtype>::offset(int n, int c, int h, int w) const {
  return ((int64_t{n} * channels() + c) * height() + h) * width() + w;
}

template <typename Dtype>
int64_t Blob<Dtype>::offset(const vector<int>& indices) const {
  CAFFE_CHECK_LE(static_cast<int>(indices.size()), num_axes());
  int64_t off = 0;
  for (int i = 0; i < num_axes(); ++i) {
    off *= shape(i);
    if (static_cast<int>(indices.size()) > i) off += indices[i];
  }
  return off;
}

template <typename Dtype>
void Blob<Dtype>::CopyFrom(const Blob& source, bool copy_diff, bool reshape) {
  if (source.count64() != count_ || source.shape() != shape_) {
    CAFFE_CHECK(reshape) << "cannot copy a blob of shape "
                         << source.shape_string() << " into one of shape "
                         << shape_string();
    ReshapeLike(source);
  }
  const Dtype* from = copy_diff ? source.cpu_diff() : source.cpu_data();
  Dtype* to = copy_diff ? mutable_cpu_diff() : mutable_cpu_data();
  ForIntPieces(count_, [&](int64_t start, int n) {
    caffe_copy(n, from + start, to + start);
  });
}

template <typename Dtype>
const Dtype* Blob<Dtype>::cpu_data() const {
  CAFFE_CHECK(data_) << "blob has no data buffer";
  return static_cast<const Dtype*>(data_->cpu_data());
}

template <typename Dtype>
void Blob<Dtype>::set_cpu_data(Dtype* data) {
  CAFFE_CHECK(data);
  // Blobs that shared the old buffer keep it; this blob gets its own head.
  const size_t size = static_cast<size_t>(count_) * sizeof(Dtype);
  if (data_->size() != size) {
    data_.reset(new SyncedMemory(size));
    diff_.reset(new SyncedMemory(size));
  }
  data_->set_cpu_data(data);
}

template <typename Dtype>
const Dtype* Blob<Dtype>::gpu_data() const {
  CAFFE_CHECK(data_);
  return static_cast<const Dtype*>(data_->gpu_data());
}

template <typename Dtype>
void Blob<Dtype>::set_gpu_data(Dtype* data) {
  data_->set_gpu_data(data);
}

template <typename Dtype>
const Dtype* Blob<Dtype>::cpu_diff() const {
  CAFFE_CHECK(diff_) << "blob has no diff buffer";
  if (stale_diff_) throw BlobNotReadable(*stale_diff_);
  return static_cast<const Dtype*>(diff_->cpu_data());
}

template <typename Dtype>
const Dtype* Blob<Dtype>::gpu_diff() const {
  CAFFE_CHECK(diff_);
  if (stale_diff_) throw BlobNotReadable(*stale_diff_);
  return static_cast<const Dtype*>(diff_->gpu_data());
}

template <typename Dtype>
Dtype* Blob<Dtype>::mutable_cpu_data() {
  CAFFE_CHECK(data_) << "blob has no data buffer";
  return static_cast<Dtype*>(data_->mutable_cpu_data());
}

template <typename Dtype>
Dtype* Blob<Dtype>::mutable_gpu_data() {
  CAFFE_CHECK(data_);
  return static_cast<Dtype*>(data_->mutable_gpu_data());
}

template <typename Dtype>
Dtype* Blob<Dtype>::mutable_cpu_diff() {
  CAFFE_CHECK(diff_) << "blob has no diff buffer";
  stale_diff_.reset();
  return static_cast<Dtype*>(diff_->mutable_cpu_data());
}

template <typename Dtype>
Dtype* Blob<Dtype>::mutable_gpu_diff() {
  CAFFE_CHECK(diff_);
  stale_diff_.reset();
  return static_cast<Dtype*>(diff_->mutable_gpu_data());
}

template <typename Dtype>
void Blob<Dtype>::ShareData(const Blob& other) {
  CAFFE_CHECK_EQ(count_, other.count64());
  data_ = other.data();
}

template <typename Dtype>
void Blob<Dtype>::ShareDiff(const Blob& other) {
  CAFFE_CHECK_EQ(count_, other.count64());
  diff_ = other.diff();
}

template <typename Dtype>
void Blob<Dtype>::SeparateDiff() {
  diff_.reset(new SyncedMemory(static_cast<size_t>(capacity_) * sizeof(Dtype)));
}

template <typename Dtype>
void Blob<Dtype>::Update() {
  if (!data_ || data_->head() == SyncedMemory::UNINITIALIZED) return;
  if constexpr (std::is_floating_point<Dtype>::value) {
    // Device-neutral: runs where the blob's memory lives.
    blob_math::Axpy(Dtype(-1), blob_math::Diff(this), blob_math::Data(this));
  } else {
    CAFFE_THROW() << "Update is only defined for float and double blobs";
  }
}

template <typename Dtype>
Dtype Blob<Dtype>::asum_data() const {
  if (!data_ || count_ == 0) return 0;
  if constexpr (std::is_floating_point<Dtype>::value) {
    return SumOverPieces(count_, cpu_data(), cpu_data(), true);
  }
  CAFFE_THROW() << "asum needs a float or double blob";
  return 0;
}

template <typename Dtype>
Dtype Blob<Dtype>::asum_diff() const {
  if (!diff_ || count_ == 0) return 0;
  if constexpr (std::is_floating_point<Dtype>::value) {
    return SumOverPieces(count_, cpu_diff(), cpu_diff(), true);
  }
  CAFFE_THROW() << "asum needs a float or double blob";
  return 0;
}

template <typename Dtype>
Dtype Blob<Dtype>::sumsq_data() const {
  if (!data_ || count_ == 0) return 0;
  if constexpr (std::is_floating_point<Dtype>::value) {
    return SumOverPieces(count_, cpu_data(), cpu_data(), false);
  }
  CAFFE_THROW() << "sumsq needs a float or double blob";
  return 0;
}

template <typename Dtype>
Dtype Blob<Dtype>::sumsq_diff() const {
  if (!diff_ || count_ == 0) return 0;
  if constexpr (std::is_floating_point<Dtype>::value) {
    return SumOverPieces(count_, cpu_diff(), cpu_diff(), false);
  }
  CAFFE_THROW() << "sumsq needs a float or double blob";
  return 0;
}

template <typename Dtype>
void Blob<Dtype>::scale_data(Dtype scale_factor) {
  if (!data_ || count_ == 0) return;
  if constexpr (std::is_floating_point<Dtype>::value) {
    Dtype* x = mutable_cpu_data();
    ForIntPieces(count_, [&](int64_t start, int n) {
      caffe_scal(n, scale_factor, x + start);
    });
  } else {
    CAFFE_THROW() << "scale needs a float or double blob";
  }
}

template <typename Dtype>
void Blob<Dtype>::scale_diff(Dtype scale_factor) {
  if (!diff_ || count_ == 0) return;
  if constexpr (std::is_floating_point<Dtype>::value) {
    Dtype* x = mutable_cpu_diff();
    ForIntPieces(count_, [&](int64_t start, int n) {
      caffe_scal(n, scale_factor, x + start);
    });
  } else {
    CAFFE_THROW() << "scale needs a float or double blob";
  }
}

template <typename Dtype>
bool Blob<Dtype>::ShapeEquals(const BlobProto& other) const {
  if (other.has_num() || other.has_channels() || other.has_height() ||
      other.has_width()) {
    // Legacy protos are 4-D; a blob with fewer axes matches when its missing
    // leading axes are 1.
    return num_axes() <= 4 && LegacyShape(-4) == other.num() &&
           LegacyShape(-3) == other.channels() &&
           LegacyShape(-2) == other.height() &&
           LegacyShape(-1) == other.width();
  }
  vector<int> other_shape(other.shape().dim_size());
  for (int i = 0; i < other.shape().dim_size(); ++i)
    other_shape[i] = static_cast<int>(other.shape().dim(i));
  return shape_ == other_shape;
}

namespace {
string ProtoShapeString(const BlobProto& proto) {
  ostringstream s;
  if (proto.has_shape()) {
    for (int i = 0; i < proto.shape().dim_size(); ++i)
      s << proto.shape().dim(i) << " ";
  } else {
    s << proto.num() << " " << proto.channels() << " " << proto.height()
      << " " << proto.width() << " ";
  }
  return s.str();
}
}  // namespace

template <typename Dtype>
void Blob<Dtype>::FromProto(const BlobProto& proto, bool reshape) {
  if (reshape) {
    vector<int> shape;
    if (proto.has_num() || proto.has_channels() || proto.has_height() ||
        proto.has_width()) {
      shape = {proto.num(), proto.channels(), proto.height(), proto.width()};
    } else {
      for (int i = 0; i < proto.shape().dim_size(); ++i) {
        CAFFE_CHECK_LE(proto.shape().dim(i), static_cast<int64_t>(INT_MAX));
        shape.push_back(static_cast<int>(proto.shape().dim(i)));
      }
    }
    Reshape(shape);
  } else {
    CAFFE_CHECK(ShapeEquals(proto))
        << "shape mismatch: stored blob has shape " << ProtoShapeString(proto)
        << "but the target blob has shape " << shape_string();
  }
  Dtype* data = mutable_cpu_data();
  if (proto.double_data_size() > 0) {
    CAFFE_CHECK_EQ(count_, proto.double_data_size())
        << "stored blob has the wrong number of values";
    for (int i = 0; i < count_; ++i) data[i] = proto.double_data(i);
  } else {
    CAFFE_CHECK_EQ(count_, proto.data_size())
        << "stored blob has the wrong number of values";
    for (int i = 0; i < count_; ++i) data[i] = proto.data(i);
  }
  if (proto.double_diff_size() > 0) {
    CAFFE_CHECK_EQ(count_, proto.double_diff_size());
    Dtype* diff = mutable_cpu_diff();
    for (int i = 0; i < count_; ++i) diff[i] = proto.double_diff(i);
  } else if (proto.diff_size() > 0) {
    CAFFE_CHECK_EQ(count_, proto.diff_size());
    Dtype* diff = mutable_cpu_diff();
    for (int i = 0; i < count_; ++i) diff[i] = proto.diff(i);
  }
}

template <>
void Blob<double>::ToProto(BlobProto* proto, bool write_diff) const {
  const int n = count();  // a protobuf field holds at most INT_MAX values
  proto->clear_shape();
  for (int d : shape_) proto->mutable_shape()->add_dim(d);
  proto->clear_double_data();
  proto->clear_double_diff();
  const double* data = cpu_data();
  for (int i = 0; i < n; ++i) proto->add_double_data(data[i]);
  if (write_diff) {
    const double* diff = cpu_diff();
    for (int i = 0; i < n; ++i) proto->add_double_diff(diff[i]);
  }
}

template <>
void Blob<float>::ToProto(BlobProto* proto, bool write_diff) const {
  const int n = count();  // a protobuf field holds at most INT_MAX values
  proto->clear_shape();
  for (int d : shape_) proto->mutable_shape()->add_dim(d);
  proto->clear_data();
  proto->clear_diff();
  const float* data = cpu_data();
  proto->mutable_data()->Reserve(n);
  for (int i = 0; i < n; ++i) proto->add_data(data[i]);
  if (write_diff) {
    const float* diff = cpu_diff();
    for (int i = 0; i < n; ++i) proto->add_diff(diff[i]);
  }
}

INSTANTIATE_CLASS(Blob);
template class Blob<int>;
template class Blob<unsigned int>;

}  // namespace caffe
