#include "caffe/util/hdf5_walk.hpp"

#include <hdf5_hl.h>

#include <algorithm>
#include <set>

namespace caffe {
namespace hdf5_walk {

namespace {

const int kMaxDepth = 64;
const size_t kMaxObjects = 100000;

// Closes an HDF5 id at the end of the scope.
class Id {
 public:
  Id(hid_t id, herr_t (*closer)(hid_t)) : id_(id), closer_(closer) {}
  ~Id() {
    if (id_ >= 0) closer_(id_);
  }
  Id(const Id&) = delete;
  Id& operator=(const Id&) = delete;
  hid_t get() const { return id_; }
  bool ok() const { return id_ >= 0; }

 private:
  hid_t id_;
  herr_t (*closer_)(hid_t);
};

struct Walk {
  std::set<haddr_t> seen;
};

void WalkDataset(hid_t loc, const std::string& name) {
  {
    Id dset(H5Dopen2(loc, name.c_str(), H5P_DEFAULT), H5Dclose);
    if (!dset.ok()) return;
    bool ok = false;
    if (!StorageOf(dset.get(), &ok).fits || !ok) return;
  }
  int ndims = -1;
  if (H5LTget_dataset_ndims(loc, name.c_str(), &ndims) < 0 || ndims < 0 ||
      ndims > 32)
    return;
  std::vector<hsize_t> dims(std::max(ndims, 1), 1);
  H5T_class_t type_class;
  size_t type_size = 0;
  if (H5LTget_dataset_info(loc, name.c_str(), dims.data(), &type_class,
                           &type_size) < 0)
    return;
  if (type_class != H5T_INTEGER && type_class != H5T_FLOAT) return;
  hsize_t points = 1;
  for (int i = 0; i < ndims; ++i) {
    if (dims[i] != 0 && points > kWalkReadLimit / dims[i]) return;
    points *= dims[i];
  }
  if (points == 0 || points > kWalkReadLimit / sizeof(double)) return;
  std::vector<double> values(points);
  H5LTread_dataset(loc, name.c_str(), H5T_NATIVE_DOUBLE, values.data());
}

void WalkGroup(hid_t group, int depth, Walk* walk);

void WalkLink(hid_t group, const std::string& name, int depth, Walk* walk) {
  if (H5Lexists(group, name.c_str(), H5P_DEFAULT) <= 0) return;
  H5O_info_t info;
  if (H5Oget_info_by_name2(group, name.c_str(), &info, H5O_INFO_BASIC,
                           H5P_DEFAULT) < 0)
    return;
  if (walk->seen.size() >= kMaxObjects ||
      !walk->seen.insert(info.addr).second)
    return;
  if (info.type == H5O_TYPE_GROUP) {
    Id child(H5Gopen2(group, name.c_str(), H5P_DEFAULT), H5Gclose);
    if (child.ok()) WalkGroup(child.get(), depth + 1, walk);
  } else if (info.type == H5O_TYPE_DATASET) {
    WalkDataset(group, name);
  }
}

void WalkGroup(hid_t group, int depth, Walk* walk) {
  if (depth >= kMaxDepth) return;
  H5G_info_t info;
  if (H5Gget_info(group, &info) < 0) return;
  for (hsize_t i = 0; i < info.nlinks && walk->seen.size() < kMaxObjects;
       ++i) {
    const ssize_t size = H5Lget_name_by_idx(group, ".", H5_INDEX_NAME,
                                            H5_ITER_NATIVE, i, nullptr, 0,
                                            H5P_DEFAULT);
    if (size < 0) continue;
    std::string name(static_cast<size_t>(size) + 1, '\0');
    if (H5Lget_name_by_idx(group, ".", H5_INDEX_NAME, H5_ITER_NATIVE, i,
                           &name[0], name.size(), H5P_DEFAULT) < 0)
      continue;
    name.resize(static_cast<size_t>(size));
    WalkLink(group, name, depth, walk);
  }
}

}  // namespace

Storage StorageOf(hid_t dset, bool* ok) {
  Storage s;
  *ok = false;
  Id plist(H5Dget_create_plist(dset), H5Pclose);
  Id space(H5Dget_space(dset), H5Sclose);
  Id type(H5Dget_type(dset), H5Tclose);
  if (!plist.ok() || !space.ok() || !type.ok()) return s;
  s.points = H5Sget_simple_extent_npoints(space.get());
  s.type_size = H5Tget_size(type.get());
  if (s.points < 0 || s.type_size == 0) return s;
  *ok = true;
  s.stored = H5Dget_storage_size(dset);
  const H5D_layout_t layout = H5Pget_layout(plist.get());
  if (layout != H5D_COMPACT && layout != H5D_CONTIGUOUS) {
    s.fits = true;
    return s;
  }
  const bool unallocated = layout == H5D_CONTIGUOUS && s.stored == 0;
  // Division, not multiplication: a damaged extent may overflow.
  s.fits = s.points == 0 || unallocated ||
           s.stored / s.type_size >= static_cast<hsize_t>(s.points);
  return s;
}

bool WalkFile(const char* filename, const std::vector<std::string>& names) {
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  const hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
  if (fapl < 0) return false;
  H5Pset_fclose_degree(fapl, H5F_CLOSE_STRONG);
  Id file(H5Fopen(filename, H5F_ACC_RDONLY, fapl), H5Fclose);
  H5Pclose(fapl);
  if (!file.ok()) return false;
  Walk walk;
  for (const std::string& name : names) {
    { Id group(H5Gopen2(file.get(), name.c_str(), H5P_DEFAULT), H5Gclose); }
    WalkLink(file.get(), name, 0, &walk);
  }
  WalkGroup(file.get(), 0, &walk);
  return true;
}

}  // namespace hdf5_walk
}  // namespace caffe
