// mem_param bit-identity for the layers the model nets do not use: Filter,
// Threshold, Im2col and InfogainLoss on generated data, and the ImageData,
// WindowData and MemoryData sources feeding a small convolutional net.
// Training with the optimizer (every level, check mode: dead buffers are
// NaN-filled) must give the same losses and weights as without it.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "caffe/caffe.hpp"
#include "caffe/layers/memory_data_layer.hpp"
#include "caffe/test/mem_trajectory_util.hpp"
#include "caffe/test/temp_dir.hpp"
#include "caffe/test/test_image_helpers.hpp"

namespace caffe {
namespace {

// Trains `net` without mem_param, then at levels 0-2 (STATIC, check mode)
// and DYNAMIC, expecting the same trajectory each time.
void ExpectOptimizerChangesNothing(
    NetParameter net, const std::string& what,
    const std::function<void(Net<float>*)>& prepare = nullptr) {
  net.set_name(what);
  net.mutable_state()->set_phase(TRAIN);
  const int iters = 3;
  const Trajectory base = TrainTrajectory(net, nullptr, iters, prepare);
  for (float l : base.losses) ASSERT_TRUE(std::isfinite(l)) << what;
  for (int level = 0; level <= 3; ++level) {
    MemoryOptimizationParameter mp;
    mp.set_check(true);
    if (level == 3) {
      mp.set_release(MemoryOptimizationParameter_Release_DYNAMIC);
    } else {
      mp.set_level(level);
    }
    const Trajectory opt = TrainTrajectory(net, &mp, iters, prepare);
    ExpectBitIdentical(base, opt, what + " level " + std::to_string(level));
    if (level < 3) {
      EXPECT_GT(opt.planned_bytes, 0u) << what;
      EXPECT_LT(opt.planned_bytes, opt.unshared_bytes) << what << " level " << level;
    }
  }
}

NetParameter Parse(const std::string& text, const std::string& what) {
  NetParameter net;
  ReadProtoFromTextString(text, what, &net);
  return net;
}

// The tail every data-source net shares: two convolutions, a pooling
// layer, an inner product and a softmax loss on "data" and "label".
const char* kConvTail = R"(
layer { name: "conv1" type: "Convolution" bottom: "data" top: "conv1"
  convolution_param { num_output: 4 kernel_size: 3
    weight_filler { type: "gaussian" std: 0.2 } } }
layer { name: "relu1" type: "ReLU" bottom: "conv1" top: "conv1" }
layer { name: "conv2" type: "Convolution" bottom: "conv1" top: "conv2"
  convolution_param { num_output: 4 kernel_size: 3
    weight_filler { type: "gaussian" std: 0.2 } } }
layer { name: "pool" type: "Pooling" bottom: "conv2" top: "pool"
  pooling_param { pool: MAX kernel_size: 2 stride: 2 } }
layer { name: "ip" type: "InnerProduct" bottom: "pool" top: "ip"
  inner_product_param { num_output: 3 weight_filler { type: "gaussian" std: 0.2 } } }
layer { name: "loss" type: "SoftmaxWithLoss" bottom: "ip" bottom: "label" top: "loss" }
)";

TEST(MemOptimizeDataLayersTest, FilterThresholdIm2colInfogain) {
  // The selector is Threshold([1, 1, -1, -1] > 0) = [1, 1, 0, 0]: Filter
  // keeps the first two items of the Im2col columns and of the labels.  As
  // in Caffe, Filter's label top counts as needing backward, so the loss
  // says propagate_down: false for it.
  ExpectOptimizerChangesNothing(Parse(R"(
layer { name: "d" type: "DummyData" top: "x" top: "label" top: "pos" top: "neg"
  top: "H"
  dummy_data_param { shape { dim: 4 dim: 2 dim: 6 dim: 6 } shape { dim: 4 }
    shape { dim: 2 dim: 1 } shape { dim: 2 dim: 1 } shape { dim: 3 dim: 3 }
    data_filler { type: "gaussian" std: 1 } data_filler { type: "constant" value: 2 }
    data_filler { type: "constant" value: 1 } data_filler { type: "constant" value: -1 }
    data_filler { type: "uniform" min: 0.5 max: 1.5 } } }
layer { name: "cat" type: "Concat" bottom: "pos" bottom: "neg" top: "s"
  concat_param { axis: 0 } }
layer { name: "thr" type: "Threshold" bottom: "s" top: "sel"
  threshold_param { threshold: 0 } }
layer { name: "scale" type: "Convolution" bottom: "x" top: "y"
  convolution_param { num_output: 3 kernel_size: 1
    weight_filler { type: "gaussian" std: 0.5 } } }
layer { name: "cols" type: "Im2col" bottom: "y" top: "c"
  convolution_param { kernel_size: 3 stride: 2 } }
layer { name: "filter" type: "Filter" bottom: "c" bottom: "label" bottom: "sel"
  top: "fc" top: "flabel" }
layer { name: "ip" type: "InnerProduct" bottom: "fc" top: "p"
  inner_product_param { num_output: 3 weight_filler { type: "gaussian" std: 0.2 } } }
layer { name: "prob" type: "Softmax" bottom: "p" top: "prob" }
layer { name: "infogain" type: "InfogainLoss" bottom: "prob" bottom: "flabel"
  bottom: "H" top: "loss"
  propagate_down: true propagate_down: false propagate_down: false }
)", "filter_threshold_im2col_infogain"), "filter_threshold_im2col_infogain");
}

#ifdef USE_OPENCV  // the image sources read PNG files
TEST(MemOptimizeDataLayersTest, ImageDataSource) {
  TempDir tmp;
  std::string list;
  for (int i = 0; i < 5; ++i) {
    const std::string name = "img" + std::to_string(i) + ".png";
    test::WritePng(tmp.file(name), test::PatternImage(i, 12, 10, 3));
    list += name + " " + std::to_string(i % 3) + "\n";
  }
  test::WriteTextFile(tmp.file("list.txt"), list);
  ExpectOptimizerChangesNothing(Parse(R"(
layer { name: "images" type: "ImageData" top: "data" top: "label"
  transform_param { crop_size: 8 mirror: true scale: 0.0039 }
  image_data_param { source: ")" + tmp.file("list.txt") + R"("
    root_folder: ")" + tmp.path() + R"(/" batch_size: 3 shuffle: true } }
)" + kConvTail, "image_data"), "image_data");
}

TEST(MemOptimizeDataLayersTest, WindowDataSource) {
  TempDir tmp;
  test::WritePng(tmp.file("a.png"), test::PatternImage(0, 20, 20, 3));
  test::WritePng(tmp.file("b.png"), test::PatternImage(1, 16, 24, 3));
  test::WriteTextFile(tmp.file("windows.txt"),
                      "# 0\na.png\n3 20 20\n2\n"
                      "1 0.9 2 2 10 10\n"
                      "2 0.1 0 0 19 19\n"
                      "# 1\nb.png\n3 16 24\n1\n"
                      "2 0.8 5 3 15 12\n");
  ExpectOptimizerChangesNothing(Parse(R"(
layer { name: "windows" type: "WindowData" top: "data" top: "label"
  transform_param { crop_size: 10 mirror: true scale: 0.0039 }
  window_data_param { source: ")" + tmp.file("windows.txt") + R"("
    root_folder: ")" + tmp.path() + R"(/" batch_size: 4
    fg_threshold: 0.5 bg_threshold: 0.3 fg_fraction: 0.5 } }
)" + kConvTail, "window_data"), "window_data");
}
#endif  // USE_OPENCV

TEST(MemOptimizeDataLayersTest, MemoryDataSource) {
  // Six items of 1x9x9 with labels 0..2, the same arrays for every run.
  std::vector<float> data(6 * 81), labels(6);
  for (size_t i = 0; i < data.size(); ++i)
    data[i] = static_cast<float>((i * 37) % 101) / 101.0f - 0.5f;
  for (int i = 0; i < 6; ++i) labels[i] = static_cast<float>(i % 3);
  ExpectOptimizerChangesNothing(
      Parse(std::string(R"(
layer { name: "mem" type: "MemoryData" top: "data" top: "label"
  memory_data_param { batch_size: 2 channels: 1 height: 9 width: 9 } }
)") + kConvTail, "memory_data"),
      "memory_data", [&](Net<float>* net) {
        auto* layer =
            dynamic_cast<MemoryDataLayer<float>*>(net->layers()[0].get());
        ASSERT_TRUE(layer != nullptr);
        layer->Reset(data.data(), labels.data(), 6);
      });
}

}  // namespace
}  // namespace caffe
