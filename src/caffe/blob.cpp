#include "caffe/blob.hpp"

#include <climits>
#include <type_traits>

#include "caffe/util/blob_math.hpp"
#include "caffe/util/math_functions.hpp"

namespace caffe {

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
  int64_t count = 1;
  for (size_t i = 0; i < shape.size(); ++i) {
    CAFFE_CHECK_GE(shape[i], 0) << "negative dimension in shape";
    count *= shape[i];
    CAFFE_CHECK_LE(count, static_cast<int64_t>(INT_MAX))
        << "blob size exceeds INT_MAX";
  }
  shape_ = shape;
  count_ = static_cast<int>(count);
  if (count_ > capacity_) {
    capacity_ = count_;
    data_.reset(new SyncedMemory(capacity_ * sizeof(Dtype)));
    diff_.reset(new SyncedMemory(capacity_ * sizeof(Dtype)));
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
int Blob<Dtype>::count(int start_axis, int end_axis) const {
  CAFFE_CHECK_LE(start_axis, end_axis);
  CAFFE_CHECK_GE(start_axis, 0);
  CAFFE_CHECK_LE(end_axis, num_axes());
  int c = 1;
  for (int i = start_axis; i < end_axis; ++i) c *= shape_[i];
  return c;
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
int Blob<Dtype>::offset(int n, int c, int h, int w) const {
  return ((n * channels() + c) * height() + h) * width() + w;
}

template <typename Dtype>
int Blob<Dtype>::offset(const vector<int>& indices) const {
  CAFFE_CHECK_LE(static_cast<int>(indices.size()), num_axes());
  int off = 0;
  for (int i = 0; i < num_axes(); ++i) {
    off *= shape(i);
    if (static_cast<int>(indices.size()) > i) off += indices[i];
  }
  return off;
}

template <typename Dtype>
void Blob<Dtype>::CopyFrom(const Blob& source, bool copy_diff, bool reshape) {
  if (source.count() != count_ || source.shape() != shape_) {
    CAFFE_CHECK(reshape) << "cannot copy a blob of shape "
                         << source.shape_string() << " into one of shape "
                         << shape_string();
    ReshapeLike(source);
  }
  if (copy_diff) {
    caffe_copy(count_, source.cpu_diff(), mutable_cpu_diff());
  } else {
    caffe_copy(count_, source.cpu_data(), mutable_cpu_data());
  }
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
  size_t size = count_ * sizeof(Dtype);
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
  CAFFE_CHECK_EQ(count_, other.count());
  data_ = other.data();
}

template <typename Dtype>
void Blob<Dtype>::ShareDiff(const Blob& other) {
  CAFFE_CHECK_EQ(count_, other.count());
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
    return caffe_cpu_asum(count_, cpu_data());
  }
  CAFFE_THROW() << "asum needs a float or double blob";
  return 0;
}

template <typename Dtype>
Dtype Blob<Dtype>::asum_diff() const {
  if (!diff_ || count_ == 0) return 0;
  if constexpr (std::is_floating_point<Dtype>::value) {
    return caffe_cpu_asum(count_, cpu_diff());
  }
  CAFFE_THROW() << "asum needs a float or double blob";
  return 0;
}

template <typename Dtype>
Dtype Blob<Dtype>::sumsq_data() const {
  if (!data_ || count_ == 0) return 0;
  if constexpr (std::is_floating_point<Dtype>::value) {
    return caffe_cpu_dot(count_, cpu_data(), cpu_data());
  }
  CAFFE_THROW() << "sumsq needs a float or double blob";
  return 0;
}

template <typename Dtype>
Dtype Blob<Dtype>::sumsq_diff() const {
  if (!diff_ || count_ == 0) return 0;
  if constexpr (std::is_floating_point<Dtype>::value) {
    return caffe_cpu_dot(count_, cpu_diff(), cpu_diff());
  }
  CAFFE_THROW() << "sumsq needs a float or double blob";
  return 0;
}

template <typename Dtype>
void Blob<Dtype>::scale_data(Dtype scale_factor) {
  if (!data_ || count_ == 0) return;
  if constexpr (std::is_floating_point<Dtype>::value) {
    caffe_scal(count_, scale_factor, mutable_cpu_data());
  } else {
    CAFFE_THROW() << "scale needs a float or double blob";
  }
}

template <typename Dtype>
void Blob<Dtype>::scale_diff(Dtype scale_factor) {
  if (!diff_ || count_ == 0) return;
  if constexpr (std::is_floating_point<Dtype>::value) {
    caffe_scal(count_, scale_factor, mutable_cpu_diff());
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
  proto->clear_shape();
  for (int d : shape_) proto->mutable_shape()->add_dim(d);
  proto->clear_double_data();
  proto->clear_double_diff();
  const double* data = cpu_data();
  for (int i = 0; i < count_; ++i) proto->add_double_data(data[i]);
  if (write_diff) {
    const double* diff = cpu_diff();
    for (int i = 0; i < count_; ++i) proto->add_double_diff(diff[i]);
  }
}

template <>
void Blob<float>::ToProto(BlobProto* proto, bool write_diff) const {
  proto->clear_shape();
  for (int d : shape_) proto->mutable_shape()->add_dim(d);
  proto->clear_data();
  proto->clear_diff();
  const float* data = cpu_data();
  proto->mutable_data()->Reserve(count_);
  for (int i = 0; i < count_; ++i) proto->add_data(data[i]);
  if (write_diff) {
    const float* diff = cpu_diff();
    for (int i = 0; i < count_; ++i) proto->add_diff(diff[i]);
  }
}

INSTANTIATE_CLASS(Blob);
template class Blob<int>;
template class Blob<unsigned int>;

}  // namespace caffe
