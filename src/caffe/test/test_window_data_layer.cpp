// Tests of the WindowData layer on a small window file with generated
// single-colour images, whose warped windows keep their colour exactly.
// They need OpenCV (USE_OPENCV); a build without it checks the layer's
// error in test_image_io.cpp instead.
#ifdef USE_OPENCV
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "caffe/layers/window_data_layer.hpp"
#include "caffe/test/test_data_helpers.hpp"
#include "caffe/test/test_gradient_check_util.hpp"
#include "caffe/test/test_image_helpers.hpp"

namespace caffe {

using test::TempDir;

template <typename Dtype>
class WindowDataLayerTest : public ::testing::Test {
 protected:
  WindowDataLayerTest() : top_{&data_, &label_} {
    Caffe::set_random_seed(1701);
    test::WritePng(tmp_.file("a.png"), test::SolidImage(20, 20, 10, 20, 30));
    test::WritePng(tmp_.file("b.png"), test::SolidImage(16, 24, 40, 50, 60));
    source_ = tmp_.file("windows.txt");
    // Image a: a foreground window of class 1 and a background one (its
    // class is dropped); image b: a class 2 window and one between the
    // thresholds, which is never used.
    test::WriteTextFile(source_,
                        "# 0\na.png\n3 20 20\n2\n"
                        "1 0.9 2 2 10 10\n"
                        "3 0.1 0 0 19 19\n"
                        "# 1\nb.png\n3 16 24\n2\n"
                        "2 0.8 5 3 15 12\n"
                        "4 0.4 0 0 5 5\n");
  }

  LayerParameter MakeParam(int batch_size, float fg_fraction) {
    LayerParameter param;
    param.set_name("windows");
    param.set_type("WindowData");
    param.mutable_transform_param()->set_crop_size(8);
    WindowDataParameter* p = param.mutable_window_data_param();
    p->set_source(source_);
    p->set_root_folder(tmp_.path() + "/");
    p->set_batch_size(batch_size);
    p->set_fg_threshold(0.5);
    p->set_bg_threshold(0.3);
    p->set_fg_fraction(fg_fraction);
    return param;
  }

  // Expects item n to be the colour of the image its label comes from.
  void ExpectSolid(int n, int h0, int w0, Dtype mean, Dtype scale) {
    const int label = static_cast<int>(label_.cpu_data()[n]);
    const int base = label == 2 ? 40 : 10;
    for (int c = 0; c < 3; ++c)
      for (int h = h0; h < 8; ++h)
        for (int w = w0; w < 8; ++w)
          ASSERT_NEAR((base + 10 * c - mean) * scale,
                      data_.data_at(n, c, h, w), 1e-4)
              << "item " << n << " label " << label << " at " << c << ","
              << h << "," << w;
  }

  TempDir tmp_;
  string source_;
  Blob<Dtype> data_, label_;
  vector<Blob<Dtype>*> bottom_, top_;
};

TYPED_TEST_SUITE(WindowDataLayerTest, TestDtypes);

TYPED_TEST(WindowDataLayerTest, SamplesBackgroundThenForeground) {
  LayerParameter param = this->MakeParam(6, 0.5);
  param.mutable_transform_param()->add_mean_value(5);
  param.mutable_window_data_param()->set_scale(0.5);
  WindowDataLayer<TypeParam> layer(param);
  layer.SetUp(this->bottom_, this->top_);
  EXPECT_EQ((vector<int>{6, 3, 8, 8}), this->data_.shape());
  EXPECT_EQ((vector<int>{6}), this->label_.shape());
  EXPECT_EQ(kReadsNothing, layer.Memory().backward_reads);
  bool saw_class[3] = {false, false, false};
  for (int iter = 0; iter < 4; ++iter) {
    layer.Forward(this->bottom_, this->top_);
    for (int n = 0; n < 6; ++n) {
      const int label = static_cast<int>(this->label_.cpu_data()[n]);
      if (n < 3) {
        EXPECT_EQ(0, label);
      } else {
        EXPECT_TRUE(label == 1 || label == 2) << label;
      }
      saw_class[label] = true;
      this->ExpectSolid(n, 0, 0, 5, 0.5);
    }
  }
  EXPECT_TRUE(saw_class[1] && saw_class[2]);
}

TYPED_TEST(WindowDataLayerTest, RanksOfADataParallelJobDrawTheirOwnWindows) {
  // Every rank builds its net from the same seed; the windows it samples
  // must still differ by rank, or N ranks would train on N copies of one
  // batch.  Rank 0 draws what a single process draws.
  vector<TypeParam> labels[3];
  for (int run = 0; run < 3; ++run) {
    const int rank = run == 2 ? 0 : run;   // run 2: a single process
    Caffe::set_solver_count(run == 2 ? 1 : 2);
    Caffe::set_solver_rank(rank);
    Caffe::set_random_seed(1701);
    LayerParameter param = this->MakeParam(8, 0.5);
    param.mutable_window_data_param()->set_scale(0.5);
    {
      WindowDataLayer<TypeParam> layer(param);
      layer.SetUp(this->bottom_, this->top_);
      for (int iter = 0; iter < 4; ++iter) {
        layer.Forward(this->bottom_, this->top_);
        for (int n = 4; n < 8; ++n)  // the foreground half: classes 1, 2
          labels[run].push_back(this->label_.cpu_data()[n]);
      }
    }
  }
  Caffe::set_solver_count(1);
  Caffe::set_solver_rank(0);
  EXPECT_NE(labels[0], labels[1]);
  EXPECT_EQ(labels[0], labels[2]);
}

TYPED_TEST(WindowDataLayerTest, ContextPadLeavesZerosOutsideImage) {
  // One foreground window in the corner of image a: with context_pad 2 the
  // region grows to (-4, -4)-(12, 12), so the top-left 2 x 2 of the output
  // lies outside the image and stays 0.
  test::WriteTextFile(this->source_,
                      "# 0\na.png\n3 20 20\n1\n1 1.0 0 0 7 7\n");
  for (const bool cache : {false, true}) {
    LayerParameter param = this->MakeParam(2, 1.0);
    param.mutable_window_data_param()->set_context_pad(2);
    param.mutable_window_data_param()->set_cache_images(cache);
    WindowDataLayer<TypeParam> layer(param);
    layer.SetUp(this->bottom_, this->top_);
    layer.Forward(this->bottom_, this->top_);
    for (int n = 0; n < 2; ++n) {
      EXPECT_EQ(1, this->label_.cpu_data()[n]);
      for (int c = 0; c < 3; ++c) {
        EXPECT_EQ(0, this->data_.data_at(n, c, 0, 0));
        EXPECT_EQ(0, this->data_.data_at(n, c, 1, 7));
        EXPECT_EQ(0, this->data_.data_at(n, c, 7, 1));
      }
      this->ExpectSolid(n, 2, 2, 0, 1);
    }
  }
}

TYPED_TEST(WindowDataLayerTest, SquareModeMirrorAndCache) {
  LayerParameter param = this->MakeParam(4, 0.5);
  param.mutable_window_data_param()->set_crop_mode("square");
  param.mutable_window_data_param()->set_cache_images(true);
  param.mutable_transform_param()->set_mirror(true);
  WindowDataLayer<TypeParam> layer(param);
  layer.SetUp(this->bottom_, this->top_);
  layer.Forward(this->bottom_, this->top_);
  for (int n = 0; n < 4; ++n) {
    // Square windows inside the images cover the whole output.
    const int label = static_cast<int>(this->label_.cpu_data()[n]);
    if (label != 2) this->ExpectSolid(n, 0, 0, 0, 1);
  }
}

TYPED_TEST(WindowDataLayerTest, ErrorsNameTheFile) {
  {
    // Missing image.
    test::WriteTextFile(this->source_,
                        "# 0\nnone.png\n3 20 20\n1\n1 1.0 0 0 7 7\n");
    WindowDataLayer<TypeParam> layer(this->MakeParam(1, 1.0));
    layer.SetUp(this->bottom_, this->top_);
    try {
      layer.Forward(this->bottom_, this->top_);
      FAIL() << "expected caffe::Error";
    } catch (const Error& e) {
      EXPECT_NE(string::npos, string(e.what()).find("none.png")) << e.what();
    }
  }
  {
    // A window outside its image.
    test::WriteTextFile(this->source_,
                        "# 0\na.png\n3 20 20\n1\n1 1.0 0 0 25 7\n");
    WindowDataLayer<TypeParam> layer(this->MakeParam(1, 1.0));
    layer.SetUp(this->bottom_, this->top_);
    try {
      layer.Forward(this->bottom_, this->top_);
      FAIL() << "expected caffe::Error";
    } catch (const Error& e) {
      EXPECT_NE(string::npos, string(e.what()).find(this->source_))
          << e.what();
    }
  }
  const char* bad_files[] = {
      "",                                              // empty
      "# 0\na.png\n3 20 20\n1\n0 0.9 0 0 7 7\n",       // fg of class 0
      "# 1\na.png\n3 20 20\n1\n1 0.9 0 0 7 7\n",       // index not 0
      "# 0\na.png\n3 20 20\n2\n1 0.9 0 0 7 7\n",       // missing window
      "# 0\na.png\n3 20 20\n1\n1 0.1 0 0 7 7\n",       // no foreground
  };
  for (const char* text : bad_files) {
    test::WriteTextFile(this->source_, text);
    WindowDataLayer<TypeParam> layer(this->MakeParam(2, 0.5));
    try {
      layer.SetUp(this->bottom_, this->top_);
      ADD_FAILURE() << "expected caffe::Error for:\n" << text;
    } catch (const Error& e) {
      EXPECT_NE(string::npos, string(e.what()).find(this->source_))
          << e.what();
    }
  }
  {
    LayerParameter param = this->MakeParam(2, 0.5);
    param.mutable_transform_param()->clear_crop_size();
    WindowDataLayer<TypeParam> layer(param);
    EXPECT_THROW(layer.SetUp(this->bottom_, this->top_), Error);
  }
}

}  // namespace caffe
#endif  // USE_OPENCV
