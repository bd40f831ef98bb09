// Tests of the HDF5Output layer: what it writes, and that HDF5Data reads it
// back.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include "caffe/layers/hdf5_data_layer.hpp"
#include "caffe/layers/hdf5_output_layer.hpp"
#include "caffe/test/test_data_helpers.hpp"
#include "caffe/test/test_gradient_check_util.hpp"
#include "caffe/util/hdf5.hpp"

namespace caffe {

using test::TempDir;

template <typename Dtype>
class HDF5OutputLayerTest : public ::testing::Test {
 protected:
  HDF5OutputLayerTest()
      : data_(vector<int>{3, 2, 2, 1}), label_(vector<int>{3}),
        bottom_{&data_, &label_} {
    output_ = tmp_.file("out.h5");
    Fill(0);
  }

  void Fill(int base) {
    for (int i = 0; i < data_.count(); ++i)
      data_.mutable_cpu_data()[i] = base + i * 0.5;
    for (int i = 0; i < label_.count(); ++i)
      label_.mutable_cpu_data()[i] = base + i;
  }

  LayerParameter MakeParam() {
    LayerParameter param;
    param.set_name("out");
    param.set_type("HDF5Output");
    param.add_bottom("data");
    param.add_bottom("label");
    param.mutable_hdf5_output_param()->set_file_name(output_);
    return param;
  }

  TempDir tmp_;
  string output_;
  Blob<Dtype> data_, label_;
  vector<Blob<Dtype>*> bottom_;
  vector<Blob<Dtype>*> top_;
};

TYPED_TEST_SUITE(HDF5OutputLayerTest, TestDtypes);

TYPED_TEST(HDF5OutputLayerTest, WritesLegacyShapedDatasets) {
  {
    HDF5OutputLayer<TypeParam> layer(this->MakeParam());
    layer.SetUp(this->bottom_, this->top_);
    EXPECT_EQ(this->output_, layer.file_name());
    layer.Forward(this->bottom_, this->top_);
  }
  hdf5_silence_errors();
  hid_t file = H5Fopen(this->output_.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  ASSERT_GE(file, 0);
  Blob<TypeParam> data, label;
  hdf5_load_nd_dataset(file, "data", 1, 4, &data, true);
  hdf5_load_nd_dataset(file, "label", 1, 4, &label, true);
  H5Fclose(file);
  EXPECT_EQ((vector<int>{3, 2, 2, 1}), data.shape());
  // Labels are stored N x 1 x 1 x 1, as Caffe does.
  EXPECT_EQ((vector<int>{3, 1, 1, 1}), label.shape());
  for (int i = 0; i < data.count(); ++i)
    EXPECT_EQ(this->data_.cpu_data()[i], data.cpu_data()[i]);
  for (int i = 0; i < label.count(); ++i)
    EXPECT_EQ(this->label_.cpu_data()[i], label.cpu_data()[i]);
}

TYPED_TEST(HDF5OutputLayerTest, HDF5DataReadsBackEveryBatch) {
  {
    HDF5OutputLayer<TypeParam> layer(this->MakeParam());
    layer.SetUp(this->bottom_, this->top_);
    layer.Forward(this->bottom_, this->top_);
    this->Fill(100);
    layer.Forward(this->bottom_, this->top_);
  }
  const string list = this->tmp_.file("list.txt");
  {
    std::ofstream out(list.c_str());
    out << this->output_ << "\n";
  }
  LayerParameter param;
  param.set_name("in");
  param.add_top("data");
  param.add_top("label");
  param.mutable_hdf5_data_param()->set_source(list);
  param.mutable_hdf5_data_param()->set_batch_size(6);
  HDF5DataLayer<TypeParam> reader(param);
  Blob<TypeParam> data, label;
  vector<Blob<TypeParam>*> top{&data, &label};
  reader.SetUp(vector<Blob<TypeParam>*>(), top);
  reader.Forward(vector<Blob<TypeParam>*>(), top);
  ASSERT_EQ((vector<int>{6, 2, 2, 1}), data.shape());
  for (int batch = 0; batch < 2; ++batch) {
    for (int i = 0; i < 12; ++i)
      EXPECT_EQ(batch * 100 + i * 0.5, data.cpu_data()[batch * 12 + i]);
    for (int i = 0; i < 3; ++i)
      EXPECT_EQ(batch * 100 + i, label.cpu_data()[batch * 3 + i]);
  }
}

TYPED_TEST(HDF5OutputLayerTest, BadParamsAndShapesThrow) {
  LayerParameter no_name = this->MakeParam();
  no_name.mutable_hdf5_output_param()->clear_file_name();
  HDF5OutputLayer<TypeParam> layer(no_name);
  EXPECT_THROW(layer.SetUp(this->bottom_, this->top_), Error);

  LayerParameter bad_dir = this->MakeParam();
  const string bad = this->tmp_.file("no/such/dir/out.h5");
  bad_dir.mutable_hdf5_output_param()->set_file_name(bad);
  HDF5OutputLayer<TypeParam> layer2(bad_dir);
  try {
    layer2.SetUp(this->bottom_, this->top_);
    FAIL() << "expected caffe::Error";
  } catch (const Error& e) {
    EXPECT_NE(string::npos, string(e.what()).find(bad)) << e.what();
  }

  HDF5OutputLayer<TypeParam> layer3(this->MakeParam());
  layer3.SetUp(this->bottom_, this->top_);
  Blob<TypeParam> short_label(vector<int>{2});
  vector<Blob<TypeParam>*> mismatched{&this->data_, &short_label};
  EXPECT_THROW(layer3.Forward(mismatched, this->top_), Error);
  vector<Blob<TypeParam>*> one{&this->data_};
  HDF5OutputLayer<TypeParam> layer4(this->MakeParam());
  EXPECT_THROW(layer4.SetUp(one, this->top_), Error);
}

TYPED_TEST(HDF5OutputLayerTest, BackwardReadsNothing) {
  HDF5OutputLayer<TypeParam> layer(this->MakeParam());
  EXPECT_EQ(kReadsNothing, layer.Memory().backward_reads);
  EXPECT_FALSE(layer.Memory().in_place);
  layer.SetUp(this->bottom_, this->top_);
  layer.Forward(this->bottom_, this->top_);
  // Backward reads neither bottom (poisoned here) and gives a zero
  // gradient to the bottoms asked for, leaving the others alone.
  const TypeParam nan = std::numeric_limits<TypeParam>::quiet_NaN();
  caffe_set(this->data_.count(), nan, this->data_.mutable_cpu_data());
  caffe_set(this->label_.count(), nan, this->label_.mutable_cpu_data());
  caffe_set(this->data_.count(), TypeParam(4),
            this->data_.mutable_cpu_diff());
  caffe_set(this->label_.count(), TypeParam(4),
            this->label_.mutable_cpu_diff());
  layer.Backward(this->top_, vector<bool>{true, false}, this->bottom_);
  for (int i = 0; i < this->data_.count(); ++i)
    EXPECT_EQ(0, this->data_.cpu_diff()[i]);
  for (int i = 0; i < this->label_.count(); ++i)
    EXPECT_EQ(4, this->label_.cpu_diff()[i]);
}

}  // namespace caffe
