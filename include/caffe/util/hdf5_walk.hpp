// hdf5_walk.hpp: reading every part of an HDF5 file without trusting it,
// for the check that runs ahead of LeanCaffe's HDF5 readers
// (hdf5.hpp, hdf5_check_file).
//
// Contract:
//  * Plain HDF5 calls only -- no LeanCaffe types, no exceptions, no
//    logging -- so that the same code runs in the small caffe_hdf5_check
//    program (tools/hdf5_check/, which links HDF5 and nothing else) and,
//    where that program cannot be found, in a forked child.
//  * WalkFile looks up `names` at the file's root first (the links the
//    reader will look up, the way it will), then every link of every
//    group by name, each object once (hard links may form cycles), to a
//    bounded depth and count.  Each dataset's storage is checked
//    (StorageFits), its extent and type read, and its values read when
//    they take at most kWalkReadLimit bytes as doubles.  What fails is
//    skipped: the walk exists to meet HDF5's crashes and hangs in another
//    process, and the reader reports errors with its own context.
//  * StorageFits: a compact or contiguous dataset's stored bytes can hold
//    its extent (HDF5 1.10 copies from a null buffer when a damaged
//    compact layout says otherwise); unallocated contiguous storage (0
//    bytes) reads as the fill value and fits.  Other layouts fit.
#ifndef CAFFE_UTIL_HDF5_WALK_HPP_
#define CAFFE_UTIL_HDF5_WALK_HPP_

#include <hdf5.h>

#include <string>
#include <vector>

namespace caffe {
namespace hdf5_walk {

const hsize_t kWalkReadLimit = hsize_t(64) << 20;
// caffe_hdf5_check's exit status when the walk came near its memory limit
// (2 GiB): a damaged size made HDF5 allocate without end.
const int kExitOutOfMemory = 3;

struct Storage {
  hssize_t points = 0;    // values in the extent
  size_t type_size = 0;   // bytes per value in the file
  hsize_t stored = 0;     // bytes stored
  bool fits = false;
};

// False in `ok` when the layout, extent or type cannot be read.
Storage StorageOf(hid_t dset, bool* ok);

// False when `filename` cannot be opened as HDF5.
bool WalkFile(const char* filename, const std::vector<std::string>& names);

}  // namespace hdf5_walk
}  // namespace caffe

#endif  // CAFFE_UTIL_HDF5_WALK_HPP_
