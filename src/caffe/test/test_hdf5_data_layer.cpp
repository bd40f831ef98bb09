// Tests of the HDF5Data layer on files written here with the HDF5 C API.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include "caffe/layers/hdf5_data_layer.hpp"
#include "caffe/test/test_data_helpers.hpp"
#include "caffe/test/test_gradient_check_util.hpp"

namespace caffe {

using test::TempDir;

namespace {
// Row r of "data" (2 x 3 per row) holds 100 r + j; "label" holds r.
double DataValue(int row, int j) { return 100 * row + j; }
}  // namespace

template <typename Dtype>
class HDF5DataLayerTest : public ::testing::Test {
 protected:
  HDF5DataLayerTest() : top_{&data_, &label_} {
    Caffe::set_random_seed(1701);
    // Rows 0-4 in the first file, 5-7 in the second.
    file1_ = WriteFile("first.h5", 0, 5, true);
    file2_ = WriteFile("second.h5", 5, 3, true);
    source_ = WriteList("list.txt", {file1_, file2_});
  }

  // Writes rows [first, first + num) as float "data" and int "label" (or
  // without "label" when with_label is false).
  string WriteFile(const string& name, int first, int num, bool with_label) {
    const string path = tmp_.file(name);
    hid_t file = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT,
                           H5P_DEFAULT);
    CAFFE_CHECK_GE(file, 0);
    vector<float> data;
    vector<int> labels;
    for (int r = first; r < first + num; ++r) {
      for (int j = 0; j < 6; ++j) data.push_back(DataValue(r, j));
      labels.push_back(r);
    }
    hsize_t data_dims[3] = {static_cast<hsize_t>(num), 2, 3};
    CAFFE_CHECK_GE(H5LTmake_dataset_float(file, "data", 3, data_dims,
                                          data.data()), 0);
    if (with_label) {
      hsize_t label_dims[1] = {static_cast<hsize_t>(num)};
      CAFFE_CHECK_GE(H5LTmake_dataset_int(file, "label", 1, label_dims,
                                          labels.data()), 0);
    }
    H5Fclose(file);
    return path;
  }

  string WriteList(const string& name, const vector<string>& files) {
    const string path = tmp_.file(name);
    std::ofstream out(path.c_str());
    for (const string& f : files) out << f << "\n";
    return path;
  }

  LayerParameter MakeParam(const string& source, int batch_size,
                           bool shuffle = false) {
    LayerParameter param;
    param.set_name("hdf5");
    param.set_type("HDF5Data");
    param.add_top("data");
    param.add_top("label");
    param.mutable_hdf5_data_param()->set_source(source);
    param.mutable_hdf5_data_param()->set_batch_size(batch_size);
    param.mutable_hdf5_data_param()->set_shuffle(shuffle);
    return param;
  }

  // Checks that every item's data matches its label's row.
  void ExpectConsistent() {
    for (int n = 0; n < data_.shape(0); ++n) {
      const int row = static_cast<int>(label_.cpu_data()[n]);
      for (int j = 0; j < 6; ++j)
        ASSERT_EQ(DataValue(row, j), data_.cpu_data()[n * 6 + j]);
    }
  }

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
  string file1_, file2_, source_;
  Blob<Dtype> data_, label_;
  vector<Blob<Dtype>*> top_;
  vector<Blob<Dtype>*> bottom_;
};

TYPED_TEST_SUITE(HDF5DataLayerTest, TestDtypes);

TYPED_TEST(HDF5DataLayerTest, ReadsAcrossFilesAndWraps) {
  HDF5DataLayer<TypeParam> layer(this->MakeParam(this->source_, 3));
  layer.SetUp(this->bottom_, this->top_);
  EXPECT_EQ((vector<int>{3, 2, 3}), this->data_.shape());
  EXPECT_EQ((vector<int>{3}), this->label_.shape());
  // 8 rows in all; 6 batches of 3 go round more than twice.
  for (int iter = 0; iter < 6; ++iter) {
    layer.Forward(this->bottom_, this->top_);
    for (int n = 0; n < 3; ++n) {
      const int row = (iter * 3 + n) % 8;
      EXPECT_EQ(row, this->label_.cpu_data()[n]);
      for (int j = 0; j < 6; ++j)
        EXPECT_EQ(DataValue(row, j), this->data_.data_at({n, j / 3, j % 3}));
    }
  }
}

TYPED_TEST(HDF5DataLayerTest, SingleFileWrapsAround) {
  const string list = this->WriteList("one.txt", {this->file2_});
  HDF5DataLayer<TypeParam> layer(this->MakeParam(list, 2));
  layer.SetUp(this->bottom_, this->top_);
  const int expected[] = {5, 6, 7, 5, 6, 7};
  for (int iter = 0; iter < 3; ++iter) {
    layer.Forward(this->bottom_, this->top_);
    for (int n = 0; n < 2; ++n)
      EXPECT_EQ(expected[iter * 2 + n], this->label_.cpu_data()[n]);
  }
}

TYPED_TEST(HDF5DataLayerTest, ShuffleChangesOrderKeepsSet) {
  // One batch of 8 is exactly one pass over both files.
  HDF5DataLayer<TypeParam> layer(this->MakeParam(this->source_, 8, true));
  layer.SetUp(this->bottom_, this->top_);
  bool any_out_of_order = false;
  for (int iter = 0; iter < 4; ++iter) {
    layer.Forward(this->bottom_, this->top_);
    this->ExpectConsistent();
    vector<int> rows;
    for (int n = 0; n < 8; ++n)
      rows.push_back(static_cast<int>(this->label_.cpu_data()[n]));
    for (int n = 0; n < 8; ++n) any_out_of_order |= rows[n] != n;
    // Rows of one file stay together: the first file's 5 rows come either
    // first or last.
    const bool first_file_first = rows[0] < 5;
    for (int n = 0; n < 8; ++n) {
      const bool in_first = (first_file_first ? n < 5 : n >= 3);
      EXPECT_EQ(in_first, rows[n] < 5) << "pass " << iter;
    }
    std::sort(rows.begin(), rows.end());
    for (int n = 0; n < 8; ++n) EXPECT_EQ(n, rows[n]);
  }
  EXPECT_TRUE(any_out_of_order);
}

TYPED_TEST(HDF5DataLayerTest, MissingDatasetNamesFileAndDataset) {
  const string no_label = this->WriteFile("nolabel.h5", 0, 4, false);
  const string list = this->WriteList("nolabel.txt", {no_label});
  HDF5DataLayer<TypeParam> layer(this->MakeParam(list, 2));
  this->ExpectError([&] { layer.SetUp(this->bottom_, this->top_); },
                    {no_label, "label"});
  // The bad file may also come second: found when the layer gets there.
  const string mixed = this->WriteList("mixed.txt", {this->file2_, no_label});
  HDF5DataLayer<TypeParam> layer2(this->MakeParam(mixed, 2));
  layer2.SetUp(this->bottom_, this->top_);
  layer2.Forward(this->bottom_, this->top_);
  this->ExpectError([&] { layer2.Forward(this->bottom_, this->top_); },
                    {no_label, "label"});
}

TYPED_TEST(HDF5DataLayerTest, BadSourcesThrow) {
  const string missing_list = this->tmp_.file("no_list.txt");
  HDF5DataLayer<TypeParam> layer(this->MakeParam(missing_list, 2));
  this->ExpectError([&] { layer.SetUp(this->bottom_, this->top_); },
                    {missing_list});

  const string empty_list = this->WriteList("empty.txt", {});
  HDF5DataLayer<TypeParam> layer2(this->MakeParam(empty_list, 2));
  this->ExpectError([&] { layer2.SetUp(this->bottom_, this->top_); },
                    {empty_list});

  const string missing_h5 = this->tmp_.file("missing.h5");
  const string list = this->WriteList("missing.txt", {missing_h5});
  HDF5DataLayer<TypeParam> layer3(this->MakeParam(list, 2));
  this->ExpectError([&] { layer3.SetUp(this->bottom_, this->top_); },
                    {missing_h5});

  // Rows of another shape in a later file.
  const string other = this->tmp_.file("other.h5");
  {
    hid_t file = H5Fcreate(other.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT,
                           H5P_DEFAULT);
    float data[4] = {0, 1, 2, 3};
    int labels[2] = {0, 1};
    hsize_t data_dims[2] = {2, 2};
    hsize_t label_dims[1] = {2};
    H5LTmake_dataset_float(file, "data", 2, data_dims, data);
    H5LTmake_dataset_int(file, "label", 1, label_dims, labels);
    H5Fclose(file);
  }
  const string mixed = this->WriteList("shapes.txt", {this->file2_, other});
  HDF5DataLayer<TypeParam> layer4(this->MakeParam(mixed, 3));
  layer4.SetUp(this->bottom_, this->top_);
  this->ExpectError([&] { layer4.Forward(this->bottom_, this->top_); },
                    {other, "data"});

  // batch_size 0, and unnamed tops.
  HDF5DataLayer<TypeParam> layer5(this->MakeParam(this->source_, 0));
  EXPECT_THROW(layer5.SetUp(this->bottom_, this->top_), Error);
  LayerParameter unnamed = this->MakeParam(this->source_, 2);
  unnamed.clear_top();
  HDF5DataLayer<TypeParam> layer6(unnamed);
  EXPECT_THROW(layer6.SetUp(this->bottom_, this->top_), Error);
}

TYPED_TEST(HDF5DataLayerTest, RowCountMismatchThrows) {
  const string path = this->tmp_.file("uneven.h5");
  {
    hid_t file = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT,
                           H5P_DEFAULT);
    float data[6] = {0, 1, 2, 3, 4, 5};
    int labels[2] = {0, 1};
    hsize_t data_dims[1] = {6};
    hsize_t label_dims[1] = {2};
    H5LTmake_dataset_float(file, "data", 1, data_dims, data);
    H5LTmake_dataset_int(file, "label", 1, label_dims, labels);
    H5Fclose(file);
  }
  HDF5DataLayer<TypeParam> layer(
      this->MakeParam(this->WriteList("uneven.txt", {path}), 2));
  this->ExpectError([&] { layer.SetUp(this->bottom_, this->top_); },
                    {path, "label"});
}

TYPED_TEST(HDF5DataLayerTest, BackwardReadsNothing) {
  HDF5DataLayer<TypeParam> layer(this->MakeParam(this->source_, 2));
  EXPECT_EQ(kReadsNothing, layer.Memory().backward_reads);
  EXPECT_FALSE(layer.Memory().in_place);
  layer.SetUp(this->bottom_, this->top_);
  layer.Forward(this->bottom_, this->top_);
  const TypeParam nan = std::numeric_limits<TypeParam>::quiet_NaN();
  caffe_set(this->data_.count(), nan, this->data_.mutable_cpu_data());
  caffe_set(this->label_.count(), nan, this->label_.mutable_cpu_data());
  layer.Backward(this->top_, vector<bool>(), this->bottom_);
  layer.Forward(this->bottom_, this->top_);
  EXPECT_EQ(2, this->label_.cpu_data()[0]);
  this->ExpectConsistent();
}

}  // namespace caffe
