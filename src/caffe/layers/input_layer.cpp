#include "caffe/layers/input_layer.hpp"

namespace caffe {

template <typename Dtype>
void InputLayer<Dtype>::LayerSetUp(const vector<Blob<Dtype>*>& bottom,
                                   const vector<Blob<Dtype>*>& top) {
  const int num_top = static_cast<int>(top.size());
  const InputParameter& param = this->layer_param_.input_param();
  const int num_shape = param.shape_size();
  CAFFE_CHECK(num_shape == 0 || num_shape == 1 || num_shape == num_top)
      << "Input layer '" << this->layer_param_.name()
      << "': must specify 'shape' once, once per top blob, or not at all: "
      << num_top << " tops vs. " << num_shape << " shapes.";
  if (num_shape > 0) {
    for (int i = 0; i < num_top; ++i) {
      const int shape_index = (num_shape == 1) ? 0 : i;
      top[i]->Reshape(param.shape(shape_index));
    }
  }
}

INSTANTIATE_CLASS(InputLayer);
REGISTER_LAYER_CLASS(Input);

}  // namespace caffe
