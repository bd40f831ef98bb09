// caffe_hdf5.cpp: the HDF5 commands of the matcaffe gateway, behind
// caffe.io.h5create / h5write / h5read / h5info, which give GNU Octave
// (which has no h5create) what BVLC's matlab/hdf5creation scripts call.
//
// Contract:
//  * Sizes and offsets are in Octave's order (column-major, 1-based); HDF5
//    stores them reversed, row-major, so an array of size [W H C N] is the
//    dataset N x C x H x W that Caffe's HDF5Data layer reads, and a label
//    array [1 N] is N x 1.  Inf in a size is an unlimited dimension.
//  * Datasets are floating point ('single' or 'double').  A dataset with an
//    unlimited dimension is chunked (HDF5 requires it) and grows when a
//    write reaches past its end.
//  * Errors (a missing file, a dataset that exists or does not, a write
//    outside a fixed size) are caffe::Error naming the file and dataset;
//    HDF5's own error printing is off.
#include "caffe_hdf5.hpp"

#include <hdf5.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "caffe/common.hpp"

namespace matcaffe {

namespace {

// Closes an HDF5 identifier on scope exit.
class Handle {
 public:
  Handle(hid_t id, herr_t (*close)(hid_t)) : id_(id), close_(close) {}
  ~Handle() {
    if (id_ >= 0) close_(id_);
  }
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  hid_t get() const { return id_; }
  bool ok() const { return id_ >= 0; }

 private:
  hid_t id_;
  herr_t (*close_)(hid_t);
};

[[noreturn]] void Fail(const std::string& file, const std::string& dataset,
                       const std::string& what) {
  throw caffe::Error(file + (dataset.empty() ? "" : ":" + dataset) + ": " +
                     what);
}

void Quiet() { H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr); }

hid_t MemType(bool is_double) {
  return is_double ? H5T_NATIVE_DOUBLE : H5T_NATIVE_FLOAT;
}

// Octave order (column-major) to HDF5 order and back.
std::vector<hsize_t> Reversed(const std::vector<double>& v, bool unlimited) {
  std::vector<hsize_t> out;
  for (auto it = v.rbegin(); it != v.rend(); ++it)
    out.push_back(std::isinf(*it) && unlimited ? H5S_UNLIMITED
                                               : static_cast<hsize_t>(*it));
  return out;
}

std::vector<double> Reversed(const std::vector<hsize_t>& v) {
  std::vector<double> out;
  for (auto it = v.rbegin(); it != v.rend(); ++it)
    out.push_back(*it == H5S_UNLIMITED ? INFINITY : static_cast<double>(*it));
  return out;
}

std::vector<hsize_t> Extent(hid_t space, std::vector<hsize_t>* max) {
  const int rank = H5Sget_simple_extent_ndims(space);
  std::vector<hsize_t> dims(std::max(rank, 0)), maxdims(dims.size());
  H5Sget_simple_extent_dims(space, dims.data(), maxdims.data());
  if (max) *max = maxdims;
  return dims;
}

}  // namespace

void H5Create(const std::string& file, const std::string& dataset,
              const std::vector<double>& size,
              const std::vector<double>& chunk, bool is_double) {
  Quiet();
  if (size.empty()) Fail(file, dataset, "the size is empty");
  bool unlimited = false;
  for (double d : size) {
    if (std::isinf(d)) {
      unlimited = true;
    } else if (!(d >= 0) || d != std::floor(d)) {
      Fail(file, dataset, "sizes must be whole numbers of 0 or more, or Inf");
    }
  }
  if (unlimited && chunk.empty())
    Fail(file, dataset, "an unlimited (Inf) size needs a ChunkSize");
  if (!chunk.empty() && chunk.size() != size.size())
    Fail(file, dataset, "ChunkSize must have one entry per dimension");
  for (double c : chunk)
    if (!(c >= 1) || c != std::floor(c) || std::isinf(c))
      Fail(file, dataset, "ChunkSize entries must be whole numbers of 1 or "
                          "more");
  Handle f(H5Fopen(file.c_str(), H5F_ACC_RDWR, H5P_DEFAULT), H5Fclose);
  Handle created(f.ok() ? -1 : H5Fcreate(file.c_str(), H5F_ACC_EXCL,
                                         H5P_DEFAULT, H5P_DEFAULT),
                 H5Fclose);
  const hid_t fid = f.ok() ? f.get() : created.get();
  if (fid < 0) Fail(file, "", "cannot open or create the HDF5 file");
  if (H5Lexists(fid, dataset.c_str(), H5P_DEFAULT) > 0)
    Fail(file, dataset, "the dataset already exists");
  std::vector<hsize_t> maxdims = Reversed(size, true);
  std::vector<hsize_t> dims(maxdims);
  for (hsize_t& d : dims)
    if (d == H5S_UNLIMITED) d = 0;
  Handle space(H5Screate_simple(static_cast<int>(dims.size()), dims.data(),
                                maxdims.data()),
               H5Sclose);
  Handle props(H5Pcreate(H5P_DATASET_CREATE), H5Pclose);
  if (!chunk.empty()) {
    const std::vector<hsize_t> c = Reversed(chunk, false);
    H5Pset_chunk(props.get(), static_cast<int>(c.size()), c.data());
  }
  Handle links(H5Pcreate(H5P_LINK_CREATE), H5Pclose);
  H5Pset_create_intermediate_group(links.get(), 1);
  Handle d(H5Dcreate2(fid, dataset.c_str(),
                      is_double ? H5T_IEEE_F64LE : H5T_IEEE_F32LE,
                      space.get(), links.get(), props.get(), H5P_DEFAULT),
           H5Dclose);
  if (!d.ok()) Fail(file, dataset, "cannot create the dataset");
}

void H5Write(const std::string& file, const std::string& dataset,
             const void* data, bool is_double, const std::vector<double>& start,
             const std::vector<double>& count) {
  Quiet();
  Handle f(H5Fopen(file.c_str(), H5F_ACC_RDWR, H5P_DEFAULT), H5Fclose);
  if (!f.ok()) Fail(file, "", "cannot open the HDF5 file for writing");
  Handle d(H5Dopen2(f.get(), dataset.c_str(), H5P_DEFAULT), H5Dclose);
  if (!d.ok()) Fail(file, dataset, "no such dataset");
  Handle space(H5Dget_space(d.get()), H5Sclose);
  std::vector<hsize_t> maxdims;
  std::vector<hsize_t> dims = Extent(space.get(), &maxdims);
  const size_t rank = dims.size();
  if (start.size() > rank || count.size() > rank)
    Fail(file, dataset, "start and count may have at most " +
                            std::to_string(rank) + " entries");
  // Octave drops trailing singleton sizes: pad with 1s (start with 1s).
  std::vector<double> s(start), c(count);
  s.resize(rank, 1);
  c.resize(rank, 1);
  for (size_t k = 0; k < rank; ++k)
    if (!(s[k] >= 1) || !(c[k] >= 0) || s[k] != std::floor(s[k]) ||
        c[k] != std::floor(c[k]) || std::isinf(s[k] + c[k]))
      Fail(file, dataset, "start must be whole numbers from 1, count whole "
                          "numbers from 0");
  std::vector<hsize_t> offset, extent;
  for (size_t k = rank; k-- > 0;) {
    offset.push_back(static_cast<hsize_t>(s[k] - 1));
    extent.push_back(static_cast<hsize_t>(c[k]));
  }
  bool grow = false;
  std::vector<hsize_t> needed(dims);
  for (size_t k = 0; k < rank; ++k) {
    const hsize_t end = offset[k] + extent[k];
    if (end <= dims[k]) continue;
    if (maxdims[k] != H5S_UNLIMITED && end > maxdims[k])
      Fail(file, dataset, "the write reaches past the dataset's fixed size");
    needed[k] = end;
    grow = true;
  }
  if (grow && H5Dset_extent(d.get(), needed.data()) < 0)
    Fail(file, dataset, "cannot extend the dataset");
  Handle file_space(H5Dget_space(d.get()), H5Sclose);
  H5Sselect_hyperslab(file_space.get(), H5S_SELECT_SET, offset.data(),
                      nullptr, extent.data(), nullptr);
  Handle mem_space(H5Screate_simple(static_cast<int>(rank), extent.data(),
                                    nullptr),
                   H5Sclose);
  if (H5Dwrite(d.get(), MemType(is_double), mem_space.get(), file_space.get(),
               H5P_DEFAULT, data) < 0)
    Fail(file, dataset, "the write failed");
}

H5Array H5Read(const std::string& file, const std::string& dataset,
               const std::vector<double>& start,
               const std::vector<double>& count) {
  Quiet();
  Handle f(H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
  if (!f.ok()) Fail(file, "", "cannot open the HDF5 file");
  Handle d(H5Dopen2(f.get(), dataset.c_str(), H5P_DEFAULT), H5Dclose);
  if (!d.ok()) Fail(file, dataset, "no such dataset");
  Handle type(H5Dget_type(d.get()), H5Tclose);
  if (H5Tget_class(type.get()) != H5T_FLOAT)
    Fail(file, dataset, "only floating-point datasets can be read");
  Handle space(H5Dget_space(d.get()), H5Sclose);
  const std::vector<hsize_t> dims = Extent(space.get(), nullptr);
  const size_t rank = dims.size();
  std::vector<hsize_t> offset(rank, 0), extent(dims);
  if (!start.empty()) {
    if (start.size() != rank || count.size() != rank)
      Fail(file, dataset, "start and count need " + std::to_string(rank) +
                              " entries each");
    for (size_t k = 0; k < rank; ++k) {
      const size_t h = rank - 1 - k;  // HDF5's axis for Octave's k
      if (!(start[k] >= 1) || !(count[k] >= 0) ||
          start[k] - 1 + count[k] > dims[h])
        Fail(file, dataset, "start and count reach outside the dataset");
      offset[h] = static_cast<hsize_t>(start[k] - 1);
      extent[h] = static_cast<hsize_t>(count[k]);
    }
  }
  H5Array out;
  out.is_double = H5Tget_size(type.get()) == 8;
  out.size = Reversed(extent);
  size_t n = 1;
  for (hsize_t e : extent) n *= e;
  out.values.resize(n * (out.is_double ? 8 : 4));
  Handle mem_space(H5Screate_simple(static_cast<int>(rank), extent.data(),
                                    nullptr),
                   H5Sclose);
  H5Sselect_hyperslab(space.get(), H5S_SELECT_SET, offset.data(), nullptr,
                      extent.data(), nullptr);
  if (n && H5Dread(d.get(), MemType(out.is_double), mem_space.get(),
                   space.get(), H5P_DEFAULT, out.values.data()) < 0)
    Fail(file, dataset, "the read failed");
  return out;
}

namespace {

herr_t AddDataset(hid_t group, const char* name, const H5L_info_t*,
                  void* arg) {
  // Groups and other objects do not open as datasets: skipped (HDF5's
  // error printing is off).
  Handle d(H5Dopen2(group, name, H5P_DEFAULT), H5Dclose);
  if (!d.ok()) return 0;
  Handle space(H5Dget_space(d.get()), H5Sclose);
  H5DatasetInfo entry;
  entry.name = name;
  std::vector<hsize_t> maxdims;
  entry.size = Reversed(Extent(space.get(), &maxdims));
  entry.max_size = Reversed(maxdims);
  static_cast<std::vector<H5DatasetInfo>*>(arg)->push_back(entry);
  return 0;
}

}  // namespace

std::vector<H5DatasetInfo> H5Info(const std::string& file) {
  Quiet();
  Handle f(H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
  if (!f.ok()) Fail(file, "", "cannot open the HDF5 file");
  std::vector<H5DatasetInfo> datasets;
  hsize_t index = 0;
  // By name, as MATLAB's h5info lists them.
  H5Literate(f.get(), H5_INDEX_NAME, H5_ITER_INC, &index, AddDataset,
              &datasets);
  return datasets;
}

}  // namespace matcaffe
