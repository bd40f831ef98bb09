// hdf5.hpp: reading and writing blobs and small values in HDF5 files, for
// the HDF5 data layers and for .caffemodel.h5 / .solverstate.h5 snapshots.
//
// Contract (Caffe 1.0 names and semantics): every function takes an open
// location (file or group id).  Failures throw caffe::Error naming the file
// and the dataset (missing dataset, wrong rank, shape mismatch, unsupported
// type class, failed write).  Each call first silences HDF5's own error
// printing on the calling thread (H5Eset_auto), so errors reach the user
// once, as caffe::Error, not as an HDF5 stack dump on stderr.
#ifndef CAFFE_UTIL_HDF5_HPP_
#define CAFFE_UTIL_HDF5_HPP_

#include <hdf5.h>
#include <hdf5_hl.h>

#include <string>

#include "caffe/blob.hpp"

namespace caffe {

// Turns off HDF5's automatic error printing for the calling thread.  Call it
// before raw H5F*/H5D* calls that may fail (opening a missing file, ...).
void hdf5_silence_errors();

// The name of the file that holds loc_id, for error messages.
string hdf5_file_name(hid_t loc_id);

// An HDF5 file written whole or not at all (snapshots): built in memory,
// then Commit() writes it with WriteFileAtomically (util/io.hpp: a
// temporary file, synced, renamed over `filename`).  Destroyed without a
// commit (an error while writing), nothing reaches the disk; a failed
// commit -- a full disk, a file-size limit -- leaves the previous file as it
// was.  Errors name `filename` and the system's reason.
class Hdf5AtomicFile {
 public:
  explicit Hdf5AtomicFile(const string& filename);
  ~Hdf5AtomicFile();
  hid_t id() const { return id_; }
  void Commit();

 private:
  string filename_;
  hid_t id_;
  DISABLE_COPY_AND_ASSIGN(Hdf5AtomicFile);
};

// An HDF5 file opened read-only for the duration of a scope (weights,
// solver state, HDF5Data files).  Its close is strong (H5F_CLOSE_STRONG):
// when the object goes, every group and dataset still open in the file is
// closed with it, so a reader that throws halfway -- a damaged or
// mismatched file -- leaves no open file or HDF5 memory behind in a
// long-lived process.  ok() is false when the file cannot be opened as
// HDF5; the caller reports that with its own context.
class Hdf5ReadFile {
 public:
  explicit Hdf5ReadFile(const string& filename);
  ~Hdf5ReadFile();
  hid_t id() const { return id_; }
  bool ok() const { return id_ >= 0; }

 private:
  hid_t id_;
  DISABLE_COPY_AND_ASSIGN(Hdf5ReadFile);
};

// HDF5 1.10 can crash, not fail, on some damaged files (fuzz findings: a
// corrupted local heap size makes it copy from a null buffer).  Before a
// reader trusts a file a user gave it, hdf5_check_file walks the whole
// file (util/hdf5_walk.hpp) in another process -- the caffe_hdf5_check
// program found by hdf5_checker_path(), else a forked child
// (util/isolated_run.hpp) -- and throws caffe::Error naming the file when
// that crashes or runs past kHdf5CheckSeconds.  `names` are the links the
// reader will look up at the file's root (a snapshot's "data", a state's
// "iter" ...).  Errors are left to the reader, which reports them with its
// own context; where no process can be started the reader goes on
// unchecked.  Cost: starting the program (a fork of the caller without
// it) and a second read of the file.
const int kHdf5CheckSeconds = 120;
void hdf5_check_file(const string& filename, const vector<string>& names);
// LEANCAFFE_HDF5_CHECK=off skips the check: only for fuzzing the readers
// behind it (scripts/fuzz.sh's contained mode), never for users' files.
// The checker program: $LEANCAFFE_HDF5_CHECK when set (empty when that is
// not an executable: a fork is used), else caffe_hdf5_check in tools/ (or
// beside, or in ../bin/) next to the LeanCaffe library; empty when none.
string hdf5_checker_path();

// Loads dataset_name (float or integer data, converted to Dtype) into blob.
// The dataset must have between min_dim and max_dim axes.  With reshape the
// blob takes the dataset's shape; without, the shapes must already agree.
template <typename Dtype>
void hdf5_load_nd_dataset_helper(hid_t file_id, const char* dataset_name_,
                                 int min_dim, int max_dim, Blob<Dtype>* blob,
                                 bool reshape);

template <typename Dtype>
void hdf5_load_nd_dataset(hid_t file_id, const char* dataset_name_,
                          int min_dim, int max_dim, Blob<Dtype>* blob,
                          bool reshape = false);

// Writes blob's data (or diff) as a new dataset of the blob's shape, in
// float for Blob<float> and double for Blob<double>.
template <typename Dtype>
void hdf5_save_nd_dataset(const hid_t file_id, const string& dataset_name,
                          const Blob<Dtype>& blob, bool write_diff = false);

// Appends blob's data along axis 0 to dataset_name, creating it (chunked,
// unlimited along axis 0) on first use; the other axes must match.
template <typename Dtype>
void hdf5_append_nd_dataset(const hid_t file_id, const string& dataset_name,
                            const Blob<Dtype>& blob);

int hdf5_load_int(hid_t loc_id, const string& dataset_name);
void hdf5_save_int(hid_t loc_id, const string& dataset_name, int i);
string hdf5_load_string(hid_t loc_id, const string& dataset_name);
void hdf5_save_string(hid_t loc_id, const string& dataset_name,
                      const string& s);

// Number of links (datasets, groups) directly under loc_id, and the name of
// the idx-th one in name order.
int hdf5_get_num_links(hid_t loc_id);
string hdf5_get_name_by_idx(hid_t loc_id, int idx);

}  // namespace caffe

#endif  // CAFFE_UTIL_HDF5_HPP_
