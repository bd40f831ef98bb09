#include "caffe/layers/dummy_data_layer.hpp"

namespace caffe {

template <typename Dtype>
void DummyDataLayer<Dtype>::LayerSetUp(const vector<Blob<Dtype>*>& bottom,
                                       const vector<Blob<Dtype>*>& top) {
  const int num_top = static_cast<int>(top.size());
  const DummyDataParameter& param = this->layer_param_.dummy_data_param();
  const string& name = this->layer_param_.name();
  const int num_data_filler = param.data_filler_size();
  CAFFE_CHECK(num_data_filler == 0 || num_data_filler == 1 ||
              num_data_filler == num_top)
      << "DummyData layer '" << name << "': number of data fillers must be "
      << "0, 1 or equal to the number of tops: " << num_top << "; you "
      << "specified " << num_data_filler << " data fillers.";

  const bool legacy_dims = param.num_size() || param.channels_size() ||
                           param.height_size() || param.width_size();
  if (legacy_dims) {
    CAFFE_CHECK_EQ(0, param.shape_size())
        << "DummyData layer '" << name << "': both shape and legacy fields "
        << "(num, channels, height, width) were specified";
    CAFFE_CHECK(param.num_size() == 1 || param.num_size() == num_top)
        << "DummyData layer '" << name << "': must specify 'num' once, or "
        << "once per top blob (" << num_top << "); specified "
        << param.num_size() << ".";
    CAFFE_CHECK(param.channels_size() == 1 ||
                param.channels_size() == num_top)
        << "DummyData layer '" << name << "': must specify 'channels' once, "
        << "or once per top blob (" << num_top << "); specified "
        << param.channels_size() << ".";
    CAFFE_CHECK(param.height_size() == 1 || param.height_size() == num_top)
        << "DummyData layer '" << name << "': must specify 'height' once, "
        << "or once per top blob (" << num_top << "); specified "
        << param.height_size() << ".";
    CAFFE_CHECK(param.width_size() == 1 || param.width_size() == num_top)
        << "DummyData layer '" << name << "': must specify 'width' once, or "
        << "once per top blob (" << num_top << "); specified "
        << param.width_size() << ".";
  } else {
    CAFFE_CHECK(param.shape_size() == 1 || param.shape_size() == num_top)
        << "DummyData layer '" << name << "': must specify 'shape' once, or "
        << "once per top blob (" << num_top << "); specified "
        << param.shape_size() << ".";
  }

  fillers_.clear();
  refill_.clear();
  if (num_data_filler <= 1) {
    FillerParameter filler_param;
    if (num_data_filler == 0) {
      filler_param.set_type("constant");
      filler_param.set_value(0);
    } else {
      filler_param.CopyFrom(param.data_filler(0));
    }
    fillers_.emplace_back(GetFiller<Dtype>(filler_param));
    refill_.push_back(filler_param.type() != "constant");
  } else {
    for (int i = 0; i < num_data_filler; ++i) {
      fillers_.emplace_back(GetFiller<Dtype>(param.data_filler(i)));
      refill_.push_back(param.data_filler(i).type() != "constant");
    }
  }

  for (int i = 0; i < num_top; ++i) {
    if (legacy_dims) {
      const int num = param.num(param.num_size() == 1 ? 0 : i);
      const int channels =
          param.channels(param.channels_size() == 1 ? 0 : i);
      const int height = param.height(param.height_size() == 1 ? 0 : i);
      const int width = param.width(param.width_size() == 1 ? 0 : i);
      top[i]->Reshape(num, channels, height, width);
    } else {
      const int shape_index = (param.shape_size() == 1) ? 0 : i;
      top[i]->Reshape(param.shape(shape_index));
    }
  }

  // Constant tops never change, so fill them once here; Forward refills
  // only the random ones.
  for (int i = 0; i < num_top; ++i) {
    const int filler_id = (fillers_.size() > 1) ? i : 0;
    if (!refill_[filler_id] && top[i]->count() > 0)
      fillers_[filler_id]->Fill(top[i]);
  }
}

template <typename Dtype>
void DummyDataLayer<Dtype>::Forward_cpu(const vector<Blob<Dtype>*>& bottom,
                                        const vector<Blob<Dtype>*>& top) {
  for (size_t i = 0; i < top.size(); ++i) {
    const int filler_id = (fillers_.size() > 1) ? static_cast<int>(i) : 0;
    if (refill_[filler_id] && top[i]->count() > 0)
      fillers_[filler_id]->Fill(top[i]);
  }
}

INSTANTIATE_CLASS(DummyDataLayer);
REGISTER_LAYER_CLASS(DummyData);

}  // namespace caffe
