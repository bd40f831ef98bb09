#include "caffe/util/hdf5.hpp"

#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <string>
#include <vector>

#include "caffe/util/io.hpp"
#include "caffe/util/hdf5_walk.hpp"
#include "caffe/util/isolated_run.hpp"

namespace caffe {

namespace {

template <typename Dtype> hid_t NativeType();
template <> hid_t NativeType<float>() { return H5T_NATIVE_FLOAT; }
template <> hid_t NativeType<double>() { return H5T_NATIVE_DOUBLE; }

// "dataset 'x' in HDF5 file 'f.h5'", the common head of error messages.
// The dataset's path names the group it sits in (a snapshot's layer:
// "/data/conv1/0").
string Where(hid_t loc_id, const string& dataset_name) {
  string path = dataset_name;
  const ssize_t size = H5Iget_name(loc_id, nullptr, 0);
  if (size > 0 && dataset_name[0] != '/') {
    string group(static_cast<size_t>(size) + 1, '\0');
    H5Iget_name(loc_id, &group[0], group.size());
    group.resize(static_cast<size_t>(size));
    if (group != "/") path = group + "/" + dataset_name;
  }
  return "dataset '" + path + "' in HDF5 file '" + hdf5_file_name(loc_id) +
         "'";
}

// Opening is the one test that works for plain names and paths alike.
bool DatasetExists(hid_t loc_id, const string& dataset_name) {
  hid_t dset = H5Dopen2(loc_id, dataset_name.c_str(), H5P_DEFAULT);
  if (dset < 0) return false;
  H5Dclose(dset);
  return true;
}

string DimsString(const vector<hsize_t>& dims) {
  std::ostringstream s;
  for (size_t i = 0; i < dims.size(); ++i) s << dims[i] << " ";
  s << "(" << dims.size() << " axes)";
  return s.str();
}

// Closes an HDF5 handle when the scope ends, also when a check throws.
class Handle {
 public:
  typedef herr_t (*Closer)(hid_t);
  Handle(hid_t id, Closer closer) : id_(id), closer_(closer) {}
  ~Handle() {
    if (id_ >= 0) closer_(id_);
  }
  hid_t get() const { return id_; }
  bool ok() const { return id_ >= 0; }

 private:
  hid_t id_;
  Closer closer_;
  DISABLE_COPY_AND_ASSIGN(Handle);
};

// The dataset exists and its stored bytes can hold its values.  HDF5
// 1.10 trusts a damaged layout message: a compact dataset whose stored
// data is shorter than its extent makes H5Dread copy from a null buffer
// (a fuzz finding: a crash, not an error).  Short contiguous storage is
// refused the same way; storage not yet allocated (size 0) reads as the
// fill value, as HDF5 intends.
void CheckDatasetReadable(hid_t loc_id, const string& dataset_name) {
  const hid_t id = H5Dopen2(loc_id, dataset_name.c_str(), H5P_DEFAULT);
  CAFFE_CHECK_GE(id, 0) << "HDF5 file '" << hdf5_file_name(loc_id)
                        << "' has no dataset '" << dataset_name << "'";
  Handle dset(id, H5Dclose);
  bool ok = false;
  const hdf5_walk::Storage st = hdf5_walk::StorageOf(id, &ok);
  CAFFE_CHECK(ok) << "Cannot read the layout, extent or type of "
                  << Where(loc_id, dataset_name);
  CAFFE_CHECK(st.fits) << Where(loc_id, dataset_name) << " is damaged: "
                       << st.points << " values of " << st.type_size
                       << " bytes stored in " << st.stored << " bytes";
}


}  // namespace

void hdf5_silence_errors() { H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr); }

Hdf5AtomicFile::Hdf5AtomicFile(const string& filename)
    : filename_(filename), id_(-1) {
  hdf5_silence_errors();
  // Built in memory (the core driver, no backing store) and written out by
  // WriteFileAtomically: HDF5 never writes the disk itself, so a full disk
  // or a file-size limit meets one checked write() instead of HDF5's own
  // failure paths (which leave a file id it crashes on at exit).
  hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
  H5Pset_fapl_core(fapl, size_t(1) << 20, 0);
  H5Pset_fclose_degree(fapl, H5F_CLOSE_STRONG);
  id_ = H5Fcreate(filename_.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
  H5Pclose(fapl);
  if (id_ < 0) throw Error(filename_ + ": cannot create HDF5 file in memory");
}

Hdf5AtomicFile::~Hdf5AtomicFile() {
  if (id_ >= 0) H5Fclose(id_);
}

void Hdf5AtomicFile::Commit() {
  hdf5_silence_errors();
  const bool flushed = H5Fflush(id_, H5F_SCOPE_GLOBAL) >= 0;
  const ssize_t size = flushed ? H5Fget_file_image(id_, nullptr, 0) : -1;
  if (size < 0) throw Error(filename_ + ": cannot build the HDF5 image");
  string image(static_cast<size_t>(size), '\0');
  if (H5Fget_file_image(id_, &image[0], image.size()) != size)
    throw Error(filename_ + ": cannot build the HDF5 image");
  H5Fclose(id_);
  id_ = -1;
  WriteFileAtomically(filename_, image);
}

Hdf5ReadFile::Hdf5ReadFile(const string& filename) : id_(-1) {
  hdf5_silence_errors();
  const hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
  if (fapl < 0) return;
  H5Pset_fclose_degree(fapl, H5F_CLOSE_STRONG);
  id_ = H5Fopen(filename.c_str(), H5F_ACC_RDONLY, fapl);
  H5Pclose(fapl);
}

Hdf5ReadFile::~Hdf5ReadFile() {
  if (id_ >= 0) H5Fclose(id_);
}

string hdf5_checker_path() {
  static const string path = [] {
    const char* env = std::getenv("LEANCAFFE_HDF5_CHECK");
    if (env && *env) return string(access(env, X_OK) == 0 ? env : "");
    // Next to this library: build/libcaffe.so and build/tools/.
    Dl_info info;
    if (!dladdr(reinterpret_cast<void*>(&hdf5_checker_path), &info) ||
        !info.dli_fname)
      return string();
    string dir(info.dli_fname);
    const size_t slash = dir.rfind('/');
    dir = slash == string::npos ? "." : dir.substr(0, slash);
    for (const char* rel :
         {"/tools/caffe_hdf5_check", "/caffe_hdf5_check",
          "/../tools/caffe_hdf5_check", "/../bin/caffe_hdf5_check"}) {
      const string candidate = dir + rel;
      if (access(candidate.c_str(), X_OK) == 0) return candidate;
    }
    return string();
  }();
  return path;
}

void hdf5_check_file(const string& filename,
                     const vector<string>& names) {
  const char* env = std::getenv("LEANCAFFE_HDF5_CHECK");
  if (env && string(env) == "off") return;
  const string checker = hdf5_checker_path();
  IsolatedResult r;
  if (!checker.empty()) {
    vector<string> args(1, filename);
    args.insert(args.end(), names.begin(), names.end());
    r = RunProgram(checker, args, kHdf5CheckSeconds);
  }
  if (checker.empty() || r.kind == IsolatedResult::kNotRun) {
    r = RunIsolated(
        [&filename, &names] { hdf5_walk::WalkFile(filename.c_str(), names); },
        kHdf5CheckSeconds);
  }
  if (r.kind == IsolatedResult::kCrashed &&
      r.message == "exited with status " +
                       std::to_string(hdf5_walk::kExitOutOfMemory))
    throw Error(filename + ": damaged HDF5 file: reading it made the HDF5 "
                "library ask for more than 2 GiB in a checking process; "
                "nothing was loaded");
  if (r.kind == IsolatedResult::kCrashed)
    throw Error(filename + ": damaged HDF5 file: the HDF5 library crashed "
                "reading it in a checking process (" + r.message +
                "); nothing was loaded");
  if (r.kind == IsolatedResult::kTimedOut)
    throw Error(filename + ": damaged HDF5 file: the HDF5 library did not "
                "finish reading it in " + std::to_string(kHdf5CheckSeconds) +
                " s; nothing was loaded");
  // kOk and kNotRun (no process could be started: read as before) go on
  // to the real read, which reports what is wrong with its own context.
}

string hdf5_file_name(hid_t loc_id) {
  const ssize_t size = H5Fget_name(loc_id, nullptr, 0);
  if (size < 0) return "<unknown HDF5 file>";
  string name(static_cast<size_t>(size) + 1, '\0');
  H5Fget_name(loc_id, &name[0], name.size());
  name.resize(static_cast<size_t>(size));
  return name;
}

template <typename Dtype>
void hdf5_load_nd_dataset_helper(hid_t file_id, const char* dataset_name_,
                                 int min_dim, int max_dim, Blob<Dtype>* blob,
                                 bool reshape) {
  hdf5_silence_errors();
  const string name(dataset_name_);
  CheckDatasetReadable(file_id, name);
  int ndims = -1;
  CAFFE_CHECK_GE(H5LTget_dataset_ndims(file_id, dataset_name_, &ndims), 0)
      << "Cannot read the rank of " << Where(file_id, name);
  CAFFE_CHECK_GE(ndims, min_dim)
      << Where(file_id, name) << " has too few axes";
  CAFFE_CHECK_LE(ndims, max_dim)
      << Where(file_id, name) << " has too many axes";

  vector<hsize_t> dims(ndims);
  H5T_class_t class_;
  CAFFE_CHECK_GE(H5LTget_dataset_info(file_id, dataset_name_, dims.data(),
                                      &class_, nullptr), 0)
      << "Cannot read the shape of " << Where(file_id, name);
  switch (class_) {
    case H5T_FLOAT:
    case H5T_INTEGER:
      // Both convert to Dtype on reading.
      break;
    default:
      CAFFE_THROW() << Where(file_id, name) << " has datatype class "
                    << static_cast<int>(class_)
                    << "; only float and integer datasets can be loaded";
  }

  vector<int> blob_dims(ndims);
  for (int i = 0; i < ndims; ++i) {
    CAFFE_CHECK_LE(dims[i], static_cast<hsize_t>(INT_MAX))
        << Where(file_id, name) << " is too large: " << DimsString(dims);
    blob_dims[i] = static_cast<int>(dims[i]);
  }
  if (reshape) {
    blob->Reshape(blob_dims);
  } else {
    CAFFE_CHECK(blob_dims == blob->shape())
        << "Cannot load blob from " << Where(file_id, name)
        << ": shape mismatch. Source shape " << DimsString(dims)
        << " target shape " << blob->shape_string();
  }
}

template <typename Dtype>
void hdf5_load_nd_dataset(hid_t file_id, const char* dataset_name_,
                          int min_dim, int max_dim, Blob<Dtype>* blob,
                          bool reshape) {
  hdf5_load_nd_dataset_helper(file_id, dataset_name_, min_dim, max_dim, blob,
                              reshape);
  if (blob->count() == 0) return;
  CAFFE_CHECK_GE(H5LTread_dataset(file_id, dataset_name_, NativeType<Dtype>(),
                                  blob->mutable_cpu_data()), 0)
      << "Failed to read " << Where(file_id, dataset_name_);
}

template <typename Dtype>
void hdf5_save_nd_dataset(const hid_t file_id, const string& dataset_name,
                          const Blob<Dtype>& blob, bool write_diff) {
  hdf5_silence_errors();
  const int num_axes = blob.num_axes();
  vector<hsize_t> dims(num_axes);
  for (int i = 0; i < num_axes; ++i) dims[i] = blob.shape(i);
  const Dtype* data = write_diff ? blob.cpu_diff() : blob.cpu_data();
  CAFFE_CHECK_GE(H5LTmake_dataset(file_id, dataset_name.c_str(), num_axes,
                                  dims.data(), NativeType<Dtype>(), data), 0)
      << "Failed to write " << Where(file_id, dataset_name)
      << " (does it exist already, or is the file read-only?)";
}

template <typename Dtype>
void hdf5_append_nd_dataset(const hid_t file_id, const string& dataset_name,
                            const Blob<Dtype>& blob) {
  hdf5_silence_errors();
  const int num_axes = blob.num_axes();
  CAFFE_CHECK_GE(num_axes, 1)
      << "Cannot append a scalar blob to " << Where(file_id, dataset_name);
  vector<hsize_t> dims(num_axes);
  for (int i = 0; i < num_axes; ++i) dims[i] = blob.shape(i);
  const hid_t type = NativeType<Dtype>();
  const char* name = dataset_name.c_str();

  if (!DatasetExists(file_id, dataset_name)) {
    // Unlimited along axis 0 so later batches can extend it; chunks of one
    // batch keep writes contiguous.
    vector<hsize_t> max_dims(dims);
    max_dims[0] = H5S_UNLIMITED;
    vector<hsize_t> chunk(dims);
    for (auto& c : chunk) c = std::max<hsize_t>(c, 1);
    Handle space(H5Screate_simple(num_axes, dims.data(), max_dims.data()),
                 H5Sclose);
    Handle plist(H5Pcreate(H5P_DATASET_CREATE), H5Pclose);
    CAFFE_CHECK(space.ok() && plist.ok() &&
                H5Pset_chunk(plist.get(), num_axes, chunk.data()) >= 0)
        << "Cannot prepare " << Where(file_id, dataset_name);
    Handle dset(H5Dcreate2(file_id, name, type, space.get(), H5P_DEFAULT,
                           plist.get(), H5P_DEFAULT),
                H5Dclose);
    CAFFE_CHECK(dset.ok()) << "Cannot create " << Where(file_id, dataset_name);
    if (blob.count() > 0) {
      CAFFE_CHECK_GE(H5Dwrite(dset.get(), type, H5S_ALL, H5S_ALL, H5P_DEFAULT,
                              blob.cpu_data()), 0)
          << "Failed to write " << Where(file_id, dataset_name);
    }
    return;
  }

  Handle dset(H5Dopen2(file_id, name, H5P_DEFAULT), H5Dclose);
  CAFFE_CHECK(dset.ok()) << "Cannot open " << Where(file_id, dataset_name);
  vector<hsize_t> cur(num_axes);
  {
    Handle space(H5Dget_space(dset.get()), H5Sclose);
    const int ndims = H5Sget_simple_extent_ndims(space.get());
    CAFFE_CHECK_EQ(ndims, num_axes)
        << "Cannot append a blob of shape " << blob.shape_string() << " to "
        << Where(file_id, dataset_name);
    H5Sget_simple_extent_dims(space.get(), cur.data(), nullptr);
  }
  for (int i = 1; i < num_axes; ++i) {
    CAFFE_CHECK_EQ(cur[i], dims[i])
        << "Cannot append a blob of shape " << blob.shape_string() << " to "
        << Where(file_id, dataset_name) << " of shape " << DimsString(cur);
  }
  if (dims[0] == 0) return;
  vector<hsize_t> grown(cur);
  grown[0] += dims[0];
  CAFFE_CHECK_GE(H5Dset_extent(dset.get(), grown.data()), 0)
      << "Cannot extend " << Where(file_id, dataset_name)
      << " (was it written without an unlimited first axis?)";
  Handle file_space(H5Dget_space(dset.get()), H5Sclose);
  vector<hsize_t> start(num_axes, 0);
  start[0] = cur[0];
  Handle mem_space(H5Screate_simple(num_axes, dims.data(), nullptr),
                   H5Sclose);
  CAFFE_CHECK(file_space.ok() && mem_space.ok() &&
              H5Sselect_hyperslab(file_space.get(), H5S_SELECT_SET,
                                  start.data(), nullptr, dims.data(),
                                  nullptr) >= 0 &&
              H5Dwrite(dset.get(), type, mem_space.get(), file_space.get(),
                       H5P_DEFAULT, blob.cpu_data()) >= 0)
      << "Failed to append to " << Where(file_id, dataset_name);
}

int hdf5_load_int(hid_t loc_id, const string& dataset_name) {
  hdf5_silence_errors();
  CheckDatasetReadable(loc_id, dataset_name);
  int ndims = -1;
  CAFFE_CHECK_GE(H5LTget_dataset_ndims(loc_id, dataset_name.c_str(), &ndims),
                 0)
      << "Cannot read the rank of " << Where(loc_id, dataset_name);
  vector<hsize_t> dims(ndims);
  H5T_class_t class_;
  CAFFE_CHECK_GE(H5LTget_dataset_info(loc_id, dataset_name.c_str(),
                                      dims.data(), &class_, nullptr), 0)
      << "Cannot read the shape of " << Where(loc_id, dataset_name);
  hsize_t count = 1;
  for (hsize_t d : dims) count *= d;
  CAFFE_CHECK_EQ(count, static_cast<hsize_t>(1))
      << Where(loc_id, dataset_name) << " is not a single integer";
  CAFFE_CHECK(class_ == H5T_INTEGER || class_ == H5T_FLOAT)
      << Where(loc_id, dataset_name) << " is not numeric";
  int val = 0;
  CAFFE_CHECK_GE(H5LTread_dataset_int(loc_id, dataset_name.c_str(), &val), 0)
      << "Failed to read " << Where(loc_id, dataset_name);
  return val;
}

void hdf5_save_int(hid_t loc_id, const string& dataset_name, int i) {
  hdf5_silence_errors();
  hsize_t one = 1;
  CAFFE_CHECK_GE(H5LTmake_dataset_int(loc_id, dataset_name.c_str(), 1, &one,
                                      &i), 0)
      << "Failed to write " << Where(loc_id, dataset_name);
}

string hdf5_load_string(hid_t loc_id, const string& dataset_name) {
  hdf5_silence_errors();
  CheckDatasetReadable(loc_id, dataset_name);
  size_t size = 0;
  H5T_class_t class_;
  CAFFE_CHECK_GE(H5LTget_dataset_info(loc_id, dataset_name.c_str(), nullptr,
                                      &class_, &size), 0)
      << "Cannot read the type of " << Where(loc_id, dataset_name);
  CAFFE_CHECK(class_ == H5T_STRING)
      << Where(loc_id, dataset_name) << " is not a string";
  {
    Handle dset(H5Dopen2(loc_id, dataset_name.c_str(), H5P_DEFAULT),
                H5Dclose);
    Handle type(dset.ok() ? H5Dget_type(dset.get()) : -1, H5Tclose);
    // H5LTread_dataset_string reads fixed-length strings only; a
    // variable-length one would write pointers into the buffer.
    CAFFE_CHECK(type.ok() && H5Tis_variable_str(type.get()) == 0)
        << Where(loc_id, dataset_name)
        << " is a variable-length string; Caffe writes fixed-length ones";
  }
  string buf(size + 1, '\0');
  CAFFE_CHECK_GE(H5LTread_dataset_string(loc_id, dataset_name.c_str(),
                                         &buf[0]), 0)
      << "Failed to read " << Where(loc_id, dataset_name);
  return string(buf.c_str());
}

void hdf5_save_string(hid_t loc_id, const string& dataset_name,
                      const string& s) {
  hdf5_silence_errors();
  CAFFE_CHECK_GE(H5LTmake_dataset_string(loc_id, dataset_name.c_str(),
                                         s.c_str()), 0)
      << "Failed to write " << Where(loc_id, dataset_name);
}

int hdf5_get_num_links(hid_t loc_id) {
  hdf5_silence_errors();
  H5G_info_t info;
  CAFFE_CHECK_GE(H5Gget_info(loc_id, &info), 0)
      << "Cannot list the group in HDF5 file '" << hdf5_file_name(loc_id)
      << "'";
  return static_cast<int>(info.nlinks);
}

string hdf5_get_name_by_idx(hid_t loc_id, int idx) {
  hdf5_silence_errors();
  const ssize_t size = H5Lget_name_by_idx(loc_id, ".", H5_INDEX_NAME,
                                          H5_ITER_NATIVE, idx, nullptr, 0,
                                          H5P_DEFAULT);
  CAFFE_CHECK_GE(size, 0) << "HDF5 file '" << hdf5_file_name(loc_id)
                          << "' has no link number " << idx;
  string name(static_cast<size_t>(size) + 1, '\0');
  CAFFE_CHECK_GE(H5Lget_name_by_idx(loc_id, ".", H5_INDEX_NAME,
                                    H5_ITER_NATIVE, idx, &name[0],
                                    name.size(), H5P_DEFAULT), 0)
      << "HDF5 file '" << hdf5_file_name(loc_id)
      << "': cannot read the name of link " << idx;
  name.resize(static_cast<size_t>(size));
  return name;
}

#define INSTANTIATE_HDF5(Dtype)                                             \
  template void hdf5_load_nd_dataset_helper<Dtype>(hid_t, const char*, int, \
                                                   int, Blob<Dtype>*, bool); \
  template void hdf5_load_nd_dataset<Dtype>(hid_t, const char*, int, int,   \
                                            Blob<Dtype>*, bool);            \
  template void hdf5_save_nd_dataset<Dtype>(const hid_t, const string&,     \
                                            const Blob<Dtype>&, bool);      \
  template void hdf5_append_nd_dataset<Dtype>(const hid_t, const string&,  \
                                              const Blob<Dtype>&)
INSTANTIATE_HDF5(float);
INSTANTIATE_HDF5(double);

}  // namespace caffe
