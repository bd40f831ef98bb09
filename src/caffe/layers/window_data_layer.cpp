#include "caffe/layers/window_data_layer.hpp"

#ifdef USE_OPENCV
#include <opencv2/core/core.hpp>
#include <opencv2/imgproc/imgproc.hpp>
#endif

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>

#include "caffe/util/image_io.hpp"
#include "caffe/util/io.hpp"

namespace caffe {

template <typename Dtype>
WindowDataLayer<Dtype>::~WindowDataLayer() {
  // load_batch reads the window lists: stop the thread first.
  this->StopInternalThread();
}

#ifdef USE_OPENCV
template <typename Dtype>
void WindowDataLayer<Dtype>::DataLayerSetUp(
    const vector<Blob<Dtype>*>& bottom, const vector<Blob<Dtype>*>& top) {
  const WindowDataParameter& param = this->layer_param_.window_data_param();
  const string& name = this->layer_param_.name();
  const string& source = param.source();
  LOG(INFO) << "Window data layer:" << std::endl
            << "  foreground (object) overlap threshold: "
            << param.fg_threshold() << std::endl
            << "  background (non-object) overlap threshold: "
            << param.bg_threshold() << std::endl
            << "  foreground sampling fraction: " << param.fg_fraction()
            << std::endl
            << "  cache_images: " << param.cache_images() << std::endl
            << "  root_folder: " << param.root_folder();

  const int crop_size = this->transform_param_.crop_size();
  CAFFE_CHECK_GT(crop_size, 0)
      << "WindowData layer '" << name << "' needs transform_param.crop_size";
  const int batch_size = static_cast<int>(param.batch_size());
  CAFFE_CHECK_GT(batch_size, 0)
      << "WindowData layer '" << name
      << "': window_data_param.batch_size must be > 0";
  const int context_pad = static_cast<int>(param.context_pad());
  CAFFE_CHECK_GT(crop_size - 2 * context_pad, 0)
      << "WindowData layer '" << name << "': context_pad " << context_pad
      << " leaves nothing of crop_size " << crop_size;
  CAFFE_CHECK(param.crop_mode() == "warp" || param.crop_mode() == "square")
      << "WindowData layer '" << name << "': unknown crop_mode '"
      << param.crop_mode() << "' (warp or square)";
  CAFFE_CHECK(param.fg_fraction() >= 0 && param.fg_fraction() <= 1)
      << "WindowData layer '" << name << "': fg_fraction "
      << param.fg_fraction() << " is not in [0, 1]";

  std::ifstream infile(source.c_str());
  CAFFE_CHECK(infile.good()) << "WindowData layer '" << name
                             << "': failed to open window file " << source;

  cache_images_ = param.cache_images();
  image_database_.clear();
  image_database_cache_.clear();
  fg_windows_.clear();
  bg_windows_.clear();
  std::map<int, int> label_hist;
  label_hist[0] = 0;
  string hashtag;
  int image_index = 0;
  CAFFE_CHECK(infile >> hashtag >> image_index)
      << "WindowData layer '" << name << "': window file " << source
      << " is empty";
  do {
    const int expected = static_cast<int>(image_database_.size());
    const string where = "window file " + source + ", record for image " +
                         std::to_string(expected);
    CAFFE_CHECK_EQ(hashtag, "#") << where << ": expected '# <image index>'";
    CAFFE_CHECK_EQ(image_index, expected)
        << where << ": image indices must count 0, 1, 2, ...";
    string image_path;
    vector<int> image_size(3);
    int num_windows = 0;
    CAFFE_CHECK(infile >> image_path >> image_size[0] >> image_size[1] >>
                image_size[2] >> num_windows)
        << where << ": expected path, channels, height, width and the "
                    "number of windows";
    CAFFE_CHECK_EQ(image_size[0], 3)
        << where << ": images are read as 3-channel colour";
    CAFFE_CHECK_GE(num_windows, 0) << where;
    image_path = param.root_folder() + image_path;
    image_database_.push_back(std::make_pair(image_path, image_size));
    if (cache_images_) {
      Datum datum;
      ReadFileToDatum(image_path, &datum);
      image_database_cache_.push_back(std::make_pair(image_path, datum));
    }
    for (int i = 0; i < num_windows; ++i) {
      int label, x1, y1, x2, y2;
      float overlap;
      CAFFE_CHECK(infile >> label >> overlap >> x1 >> y1 >> x2 >> y2)
          << where << ": window " << i << " needs class, overlap, x1, y1, "
          << "x2, y2";
      vector<float> window(NUM);
      window[IMAGE_INDEX] = image_index;
      window[LABEL] = label;
      window[OVERLAP] = overlap;
      window[X1] = x1;
      window[Y1] = y1;
      window[X2] = x2;
      window[Y2] = y2;
      if (overlap >= param.fg_threshold()) {
        CAFFE_CHECK_GT(label, 0)
            << where << ": foreground window " << i << " has class " << label;
        fg_windows_.push_back(window);
        label_hist[label]++;
      } else if (overlap < param.bg_threshold()) {
        window[LABEL] = 0;
        window[OVERLAP] = 0;
        bg_windows_.push_back(window);
        label_hist[0]++;
      }
    }
    if (image_index % 100 == 0) {
      LOG(INFO) << "num: " << image_index << " " << image_path << " "
                << image_size[0] << " " << image_size[1] << " "
                << image_size[2] << " windows to process: " << num_windows;
    }
  } while (infile >> hashtag >> image_index);
  CAFFE_CHECK(infile.eof())
      << "WindowData layer '" << name << "': window file " << source
      << " has unreadable text after image " << image_database_.size() - 1;

  LOG(INFO) << "Number of images: " << image_database_.size();
  for (const auto& entry : label_hist) {
    LOG(INFO) << "class " << entry.first << " has " << entry.second
              << " samples";
  }
  LOG(INFO) << "Amount of context padding: " << context_pad;
  LOG(INFO) << "Crop mode: " << param.crop_mode();

  const int num_fg =
      static_cast<int>(static_cast<float>(batch_size) * param.fg_fraction());
  CAFFE_CHECK(num_fg == 0 || !fg_windows_.empty())
      << "WindowData layer '" << name << "': window file " << source
      << " has no foreground windows (overlap >= " << param.fg_threshold()
      << ")";
  CAFFE_CHECK(num_fg == batch_size || !bg_windows_.empty())
      << "WindowData layer '" << name << "': window file " << source
      << " has no background windows (overlap < " << param.bg_threshold()
      << ")";

  const int channels = 3;
  top[0]->Reshape(batch_size, channels, crop_size, crop_size);
  for (auto& batch : this->prefetch_)
    batch->data_.Reshape(batch_size, channels, crop_size, crop_size);
  LOG(INFO) << "output data size: " << top[0]->shape_string();
  const vector<int> label_shape(1, batch_size);
  top[1]->Reshape(label_shape);
  for (auto& batch : this->prefetch_) batch->label_.Reshape(label_shape);

  has_mean_file_ = this->transform_param_.has_mean_file();
  has_mean_values_ = this->transform_param_.mean_value_size() > 0;
  mean_values_.clear();
  if (has_mean_file_) {
    CAFFE_CHECK(!has_mean_values_)
        << "Cannot specify mean_file and mean_value at the same time";
    BlobProto blob_proto;
    ReadProtoFromBinaryFileOrDie(this->transform_param_.mean_file(),
                                 &blob_proto);
    data_mean_.FromProto(blob_proto);
    CAFFE_CHECK(data_mean_.num_axes() == 4 &&
                data_mean_.channels() == channels &&
                data_mean_.height() >= crop_size &&
                data_mean_.width() >= crop_size)
        << "WindowData layer '" << name << "': mean_file "
        << this->transform_param_.mean_file() << " has shape "
        << data_mean_.shape_string() << "; it needs 3 channels and at least "
        << crop_size << " x " << crop_size;
  }
  if (has_mean_values_) {
    for (int c = 0; c < this->transform_param_.mean_value_size(); ++c)
      mean_values_.push_back(this->transform_param_.mean_value(c));
    CAFFE_CHECK(mean_values_.size() == 1 ||
                static_cast<int>(mean_values_.size()) == channels)
        << "Specify either 1 mean_value or as many as channels: "
        << channels;
    if (mean_values_.size() == 1) mean_values_.resize(channels, mean_values_[0]);
  }
  // In a data-parallel job every rank builds its nets from one seed; the
  // windows are drawn at random, not read in order, so each rank draws its
  // own (rank 0 draws what a single process draws).
  prefetch_rng_.seed(caffe_rng_rand() +
                     static_cast<unsigned int>(Caffe::solver_rank()));
}

template <typename Dtype>
unsigned int WindowDataLayer<Dtype>::PrefetchRand() {
  return static_cast<unsigned int>(prefetch_rng_());
}

template <typename Dtype>
cv::Mat WindowDataLayer<Dtype>::LoadImage(int image_index) {
  if (cache_images_) {
    const auto& cached = image_database_cache_[image_index];
    try {
      return DecodeDatumToCVMat(cached.second, true);
    } catch (const Error& e) {
      throw Error("image '" + cached.first + "': " + e.what());
    }
  }
  return ReadImageToCVMat(image_database_[image_index].first, true);
}

template <typename Dtype>
void WindowDataLayer<Dtype>::load_batch(Batch<Dtype>* batch) {
  const WindowDataParameter& param = this->layer_param_.window_data_param();
  const Dtype scale = this->transform_param_.has_scale()
                          ? this->transform_param_.scale()
                          : param.scale();
  const int batch_size = static_cast<int>(param.batch_size());
  const int context_pad = static_cast<int>(param.context_pad());
  const int crop_size = this->transform_param_.crop_size();
  const bool mirror = this->transform_param_.mirror();
  const bool use_square = param.crop_mode() == "square";
  const Dtype* mean = nullptr;
  int mean_off = 0, mean_width = 0, mean_height = 0;
  if (has_mean_file_) {
    mean = data_mean_.cpu_data();
    mean_off = (data_mean_.width() - crop_size) / 2;
    mean_width = data_mean_.width();
    mean_height = data_mean_.height();
  }

  Dtype* top_data = batch->data_.mutable_cpu_data();
  Dtype* top_label = batch->label_.mutable_cpu_data();
  // Padding outside the image stays 0.
  caffe_set(batch->data_.count(), Dtype(0), top_data);

  const int num_fg =
      static_cast<int>(static_cast<float>(batch_size) * param.fg_fraction());
  const int num_samples[2] = {batch_size - num_fg, num_fg};
  int item_id = 0;
  for (int is_fg = 0; is_fg < 2; ++is_fg) {
    for (int dummy = 0; dummy < num_samples[is_fg]; ++dummy) {
      const unsigned int rand_index = PrefetchRand();
      const vector<float>& window =
          is_fg ? fg_windows_[rand_index % fg_windows_.size()]
                : bg_windows_[rand_index % bg_windows_.size()];
      const bool do_mirror = mirror && PrefetchRand() % 2;
      const int image_index = static_cast<int>(window[IMAGE_INDEX]);
      const string& image_path = image_database_[image_index].first;
      const cv::Mat cv_img = LoadImage(image_index);
      const int channels = cv_img.channels();

      int x1 = static_cast<int>(window[X1]);
      int y1 = static_cast<int>(window[Y1]);
      int x2 = static_cast<int>(window[X2]);
      int y2 = static_cast<int>(window[Y2]);
      const string window_text =
          "window (" + std::to_string(x1) + ", " + std::to_string(y1) +
          ", " + std::to_string(x2) + ", " + std::to_string(y2) +
          ") of image '" + image_path + "' (" + std::to_string(cv_img.cols) +
          " x " + std::to_string(cv_img.rows) + ") in window file " +
          param.source();
      CAFFE_CHECK(x1 <= x2 && y1 <= y2) << "empty " << window_text;

      int pad_w = 0;
      int pad_h = 0;
      cv::Size cv_crop_size(crop_size, crop_size);
      if (context_pad > 0 || use_square) {
        // Grow the region so that, warped to crop_size, exactly
        // context_pad pixels on each side come from around the window.
        const Dtype context_scale = static_cast<Dtype>(crop_size) /
                                    static_cast<Dtype>(crop_size -
                                                       2 * context_pad);
        Dtype half_height = static_cast<Dtype>(y2 - y1 + 1) / 2.0;
        Dtype half_width = static_cast<Dtype>(x2 - x1 + 1) / 2.0;
        const Dtype center_x = static_cast<Dtype>(x1) + half_width;
        const Dtype center_y = static_cast<Dtype>(y1) + half_height;
        if (use_square) {
          if (half_height > half_width) {
            half_width = half_height;
          } else {
            half_height = half_width;
          }
        }
        x1 = static_cast<int>(std::round(center_x - half_width * context_scale));
        x2 = static_cast<int>(std::round(center_x + half_width * context_scale));
        y1 = static_cast<int>(std::round(center_y - half_height * context_scale));
        y2 = static_cast<int>(std::round(center_y + half_height * context_scale));

        // Clip to the image, remembering how far the region reached out.
        const int unclipped_height = y2 - y1 + 1;
        const int unclipped_width = x2 - x1 + 1;
        int pad_x1 = std::max(0, -x1);
        int pad_y1 = std::max(0, -y1);
        int pad_x2 = std::max(0, x2 - cv_img.cols + 1);
        int pad_y2 = std::max(0, y2 - cv_img.rows + 1);
        x1 += pad_x1;
        x2 -= pad_x2;
        y1 += pad_y1;
        y2 -= pad_y2;
        CAFFE_CHECK(x1 <= x2 && y1 <= y2)
            << "the context region lies outside the image: " << window_text;
        const int clipped_height = y2 - y1 + 1;
        const int clipped_width = x2 - x1 + 1;

        // The clipped part is warped with the scale of the whole region.
        const Dtype scale_x = static_cast<Dtype>(crop_size) /
                              static_cast<Dtype>(unclipped_width);
        const Dtype scale_y = static_cast<Dtype>(crop_size) /
                              static_cast<Dtype>(unclipped_height);
        cv_crop_size.width = static_cast<int>(
            std::round(static_cast<Dtype>(clipped_width) * scale_x));
        cv_crop_size.height = static_cast<int>(
            std::round(static_cast<Dtype>(clipped_height) * scale_y));
        pad_x1 = static_cast<int>(std::round(pad_x1 * scale_x));
        pad_x2 = static_cast<int>(std::round(pad_x2 * scale_x));
        pad_y1 = static_cast<int>(std::round(pad_y1 * scale_y));
        pad_y2 = static_cast<int>(std::round(pad_y2 * scale_y));

        pad_h = pad_y1;
        // A mirrored window has its padding on the other side.
        pad_w = do_mirror ? pad_x2 : pad_x1;
        // Rounding may push the warped region past the output.
        if (pad_h + cv_crop_size.height > crop_size)
          cv_crop_size.height = crop_size - pad_h;
        if (pad_w + cv_crop_size.width > crop_size)
          cv_crop_size.width = crop_size - pad_w;
        CAFFE_CHECK(cv_crop_size.width > 0 && cv_crop_size.height > 0)
            << "the visible part of the context region is too small: "
            << window_text;
      } else {
        CAFFE_CHECK(x1 >= 0 && y1 >= 0 && x2 < cv_img.cols &&
                    y2 < cv_img.rows)
            << "the window lies outside its image: " << window_text;
      }

      const cv::Rect roi(x1, y1, x2 - x1 + 1, y2 - y1 + 1);
      cv::Mat cv_cropped_img;
      cv::resize(cv_img(roi), cv_cropped_img, cv_crop_size, 0, 0,
                 cv::INTER_LINEAR);
      if (do_mirror) cv::flip(cv_cropped_img, cv_cropped_img, 1);

      for (int h = 0; h < cv_cropped_img.rows; ++h) {
        const uchar* ptr = cv_cropped_img.ptr<uchar>(h);
        int img_index = 0;
        for (int w = 0; w < cv_cropped_img.cols; ++w) {
          for (int c = 0; c < channels; ++c) {
            const int top_index =
                ((item_id * channels + c) * crop_size + h + pad_h) *
                    crop_size + w + pad_w;
            const Dtype pixel = static_cast<Dtype>(ptr[img_index++]);
            if (has_mean_file_) {
              const int mean_index =
                  (c * mean_height + h + mean_off + pad_h) * mean_width + w +
                  mean_off + pad_w;
              top_data[top_index] = (pixel - mean[mean_index]) * scale;
            } else if (has_mean_values_) {
              top_data[top_index] = (pixel - mean_values_[c]) * scale;
            } else {
              top_data[top_index] = pixel * scale;
            }
          }
        }
      }
      top_label[item_id] = window[LABEL];
      ++item_id;
    }
  }
}
#else   // !USE_OPENCV
// Registered all the same, so that a net naming the type learns why it
// cannot run rather than that the type is unknown.
template <typename Dtype>
void WindowDataLayer<Dtype>::DataLayerSetUp(
    const vector<Blob<Dtype>*>& bottom, const vector<Blob<Dtype>*>& top) {
  ThrowOpenCVMissing("WindowData layer '" + this->layer_param_.name() +
                     "': the WindowData layer type (reading image files)");
}

// Not reached: the prefetch thread starts only after a successful setup.
template <typename Dtype>
void WindowDataLayer<Dtype>::load_batch(Batch<Dtype>* batch) {
  ThrowOpenCVMissing("the WindowData layer type");
}
#endif  // USE_OPENCV

INSTANTIATE_CLASS(WindowDataLayer);
REGISTER_LAYER_CLASS(WindowData);

}  // namespace caffe
