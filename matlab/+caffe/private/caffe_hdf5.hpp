// caffe_hdf5.hpp: HDF5 datasets for matcaffe's caffe.io.h5* functions
// (caffe_hdf5.cpp has the contract).  Sizes and offsets are in Octave's
// order and 1-based; Inf marks an unlimited dimension.
#ifndef MATCAFFE_CAFFE_HDF5_HPP_
#define MATCAFFE_CAFFE_HDF5_HPP_

#include <string>
#include <vector>

namespace matcaffe {

void H5Create(const std::string& file, const std::string& dataset,
              const std::vector<double>& size,
              const std::vector<double>& chunk, bool is_double);

// data holds prod(count) values, column-major, float or double.
void H5Write(const std::string& file, const std::string& dataset,
             const void* data, bool is_double, const std::vector<double>& start,
             const std::vector<double>& count);

struct H5Array {
  std::vector<double> size;  // Octave order
  bool is_double = false;
  std::vector<char> values;  // column-major
};

// The whole dataset when start is empty.
H5Array H5Read(const std::string& file, const std::string& dataset,
               const std::vector<double>& start,
               const std::vector<double>& count);

struct H5DatasetInfo {
  std::string name;
  std::vector<double> size, max_size;  // Octave order; Inf: unlimited
};

// The datasets in the file's root group, by name.
std::vector<H5DatasetInfo> H5Info(const std::string& file);

}  // namespace matcaffe

#endif  // MATCAFFE_CAFFE_HDF5_HPP_
