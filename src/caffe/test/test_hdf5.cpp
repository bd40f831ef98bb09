// Tests of the HDF5 helpers used by the HDF5 layers and HDF5 snapshots.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "caffe/test/test_data_helpers.hpp"
#include "caffe/test/test_gradient_check_util.hpp"
#include "caffe/util/hdf5.hpp"

namespace caffe {

using test::TempDir;

template <typename Dtype>
class HDF5UtilTest : public ::testing::Test {
 protected:
  HDF5UtilTest() {
    hdf5_silence_errors();
    file_name_ = tmp_.file("test.h5");
    file_id_ = H5Fcreate(file_name_.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT,
                         H5P_DEFAULT);
  }
  ~HDF5UtilTest() override {
    if (file_id_ >= 0) H5Fclose(file_id_);
  }

  // Expects fn to throw caffe::Error mentioning all of needles.
  template <typename Fn>
  void ExpectError(Fn fn, const vector<string>& needles) {
    try {
      fn();
      ADD_FAILURE() << "expected caffe::Error";
    } catch (const Error& e) {
      for (const string& n : needles)
        EXPECT_NE(string::npos, string(e.what()).find(n)) << e.what();
    }
  }

  TempDir tmp_;
  string file_name_;
  hid_t file_id_;
};

TYPED_TEST_SUITE(HDF5UtilTest, TestDtypes);

TYPED_TEST(HDF5UtilTest, SaveLoadNdDataset) {
  ASSERT_GE(this->file_id_, 0);
  Blob<TypeParam> blob(vector<int>{2, 3, 4});
  for (int i = 0; i < blob.count(); ++i) {
    blob.mutable_cpu_data()[i] = i * 0.25;
    blob.mutable_cpu_diff()[i] = -i;
  }
  hdf5_save_nd_dataset(this->file_id_, "values", blob);
  hdf5_save_nd_dataset(this->file_id_, "grads", blob, true);

  Blob<TypeParam> loaded;
  hdf5_load_nd_dataset(this->file_id_, "values", 1, 4, &loaded, true);
  EXPECT_EQ(blob.shape(), loaded.shape());
  for (int i = 0; i < blob.count(); ++i)
    EXPECT_EQ(blob.cpu_data()[i], loaded.cpu_data()[i]);
  // Without reshape the shapes must already agree.
  hdf5_load_nd_dataset(this->file_id_, "grads", 1, 4, &loaded);
  for (int i = 0; i < blob.count(); ++i)
    EXPECT_EQ(-i, loaded.cpu_data()[i]);
  Blob<TypeParam> wrong(vector<int>{3, 2, 4});
  this->ExpectError(
      [&] { hdf5_load_nd_dataset(this->file_id_, "values", 1, 4, &wrong); },
      {"values", this->file_name_, "shape mismatch"});
  // Rank limits.
  this->ExpectError(
      [&] { hdf5_load_nd_dataset(this->file_id_, "values", 4, 5, &loaded,
                                 true); },
      {"values", this->file_name_});
  // Writing the same dataset twice fails cleanly.
  this->ExpectError(
      [&] { hdf5_save_nd_dataset(this->file_id_, "values", blob); },
      {"values", this->file_name_});
}

TYPED_TEST(HDF5UtilTest, LoadsIntegerDatasets) {
  const int values[6] = {1, -2, 3, 4, 5, 600};
  hsize_t dims[2] = {2, 3};
  ASSERT_GE(H5LTmake_dataset_int(this->file_id_, "ints", 2, dims, values), 0);
  Blob<TypeParam> loaded;
  hdf5_load_nd_dataset(this->file_id_, "ints", 1, 2, &loaded, true);
  EXPECT_EQ((vector<int>{2, 3}), loaded.shape());
  for (int i = 0; i < 6; ++i) EXPECT_EQ(values[i], loaded.cpu_data()[i]);
}

TYPED_TEST(HDF5UtilTest, MissingDatasetNamesFileAndDataset) {
  Blob<TypeParam> loaded;
  this->ExpectError(
      [&] { hdf5_load_nd_dataset(this->file_id_, "absent", 1, 4, &loaded,
                                 true); },
      {"absent", this->file_name_});
  this->ExpectError([&] { hdf5_load_int(this->file_id_, "absent_int"); },
                    {"absent_int", this->file_name_});
  this->ExpectError([&] { hdf5_load_string(this->file_id_, "absent_str"); },
                    {"absent_str", this->file_name_});
}

TYPED_TEST(HDF5UtilTest, IntsStringsAndLinks) {
  hdf5_save_int(this->file_id_, "iter", 1234);
  hdf5_save_string(this->file_id_, "name", "lenet_iter_1234.caffemodel.h5");
  EXPECT_EQ(1234, hdf5_load_int(this->file_id_, "iter"));
  EXPECT_EQ("lenet_iter_1234.caffemodel.h5",
            hdf5_load_string(this->file_id_, "name"));
  this->ExpectError([&] { hdf5_load_string(this->file_id_, "iter"); },
                    {"iter", "not a string"});

  // A group of datasets, as net snapshots store layer parameters.
  hid_t group = H5Gcreate2(this->file_id_, "conv1", H5P_DEFAULT, H5P_DEFAULT,
                           H5P_DEFAULT);
  ASSERT_GE(group, 0);
  Blob<TypeParam> blob(vector<int>{2});
  hdf5_save_nd_dataset(group, "1", blob);
  hdf5_save_nd_dataset(group, "0", blob);
  EXPECT_EQ(2, hdf5_get_num_links(group));
  EXPECT_EQ("0", hdf5_get_name_by_idx(group, 0));
  EXPECT_EQ("1", hdf5_get_name_by_idx(group, 1));
  this->ExpectError([&] { hdf5_get_name_by_idx(group, 5); },
                    {this->file_name_});
  H5Gclose(group);
  EXPECT_EQ(3, hdf5_get_num_links(this->file_id_));
  // Paths reach into groups.
  Blob<TypeParam> loaded;
  hdf5_load_nd_dataset(this->file_id_, "conv1/0", 1, 1, &loaded, true);
  EXPECT_EQ((vector<int>{2}), loaded.shape());
}

TYPED_TEST(HDF5UtilTest, AppendGrowsAlongFirstAxis) {
  Blob<TypeParam> blob(vector<int>{2, 3});
  for (int i = 0; i < 6; ++i) blob.mutable_cpu_data()[i] = i;
  hdf5_append_nd_dataset(this->file_id_, "rows", blob);
  for (int i = 0; i < 6; ++i) blob.mutable_cpu_data()[i] = 10 + i;
  hdf5_append_nd_dataset(this->file_id_, "rows", blob);
  Blob<TypeParam> loaded;
  hdf5_load_nd_dataset(this->file_id_, "rows", 2, 2, &loaded, true);
  EXPECT_EQ((vector<int>{4, 3}), loaded.shape());
  for (int i = 0; i < 6; ++i) {
    EXPECT_EQ(i, loaded.cpu_data()[i]);
    EXPECT_EQ(10 + i, loaded.cpu_data()[6 + i]);
  }
  Blob<TypeParam> other(vector<int>{2, 4});
  this->ExpectError(
      [&] { hdf5_append_nd_dataset(this->file_id_, "rows", other); },
      {"rows", this->file_name_});
}

}  // namespace caffe
