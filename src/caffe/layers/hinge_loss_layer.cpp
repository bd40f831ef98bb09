#include "caffe/layers/hinge_loss_layer.hpp"

#include <algorithm>
#include <vector>

#include "caffe/util/math_functions.hpp"

namespace caffe {

template <typename Dtype>
void HingeLossLayer<Dtype>::Reshape(const vector<Blob<Dtype>*>& bottom,
                                    const vector<Blob<Dtype>*>& top) {
  LossLayer<Dtype>::Reshape(bottom, top);
  CAFFE_CHECK_EQ(bottom[1]->count(), bottom[0]->shape(0))
      << "HingeLoss layer " << this->layer_param_.name()
      << ": one label per item is needed; scores " << bottom[0]->shape_string()
      << ", labels " << bottom[1]->shape_string();
  const HingeLossParameter_Norm norm =
      this->layer_param_.hinge_loss_param().norm();
  CAFFE_CHECK(norm == HingeLossParameter_Norm_L1 ||
              norm == HingeLossParameter_Norm_L2)
      << "HingeLoss layer " << this->layer_param_.name()
      << ": unknown norm " << norm;
}

template <typename Dtype>
int HingeLossLayer<Dtype>::Label(const vector<Blob<Dtype>*>& bottom, int n,
                                 int dim) const {
  const Dtype v = bottom[1]->cpu_data()[n];
  const int l = static_cast<int>(v);
  CAFFE_CHECK(l >= 0 && l < dim)
      << "HingeLoss layer " << this->layer_param_.name() << ": label " << v
      << " of item " << n << " is outside [0, " << dim
      << ") for scores of shape " << bottom[0]->shape_string();
  return l;
}

template <typename Dtype>
void HingeLossLayer<Dtype>::Forward_cpu(const vector<Blob<Dtype>*>& bottom,
                                        const vector<Blob<Dtype>*>& top) {
  const Dtype* x = bottom[0]->cpu_data();
  const int num = bottom[0]->shape(0);
  const int dim = num > 0 ? bottom[0]->count() / num : 0;
  const bool l2 = this->layer_param_.hinge_loss_param().norm() ==
                  HingeLossParameter_Norm_L2;
  Dtype loss = 0;
  for (int n = 0; n < num; ++n) {
    const int label = Label(bottom, n, dim);
    for (int k = 0; k < dim; ++k) {
      const Dtype t = (k == label) ? Dtype(1) : Dtype(-1);
      const Dtype h = std::max(Dtype(0), Dtype(1) - t * x[n * dim + k]);
      loss += l2 ? h * h : h;
    }
  }
  top[0]->mutable_cpu_data()[0] = num > 0 ? loss / num : Dtype(0);
}

template <typename Dtype>
void HingeLossLayer<Dtype>::Backward_cpu(const vector<Blob<Dtype>*>& top,
                                         const vector<bool>& propagate_down,
                                         const vector<Blob<Dtype>*>& bottom) {
  CAFFE_CHECK(!propagate_down[1])
      << "HingeLoss layer " << this->layer_param_.name()
      << " cannot backpropagate to label inputs";
  if (!propagate_down[0]) return;
  const Dtype* x = bottom[0]->cpu_data();
  Dtype* dx = bottom[0]->mutable_cpu_diff();
  const int num = bottom[0]->shape(0);
  if (num == 0) return;
  const int dim = bottom[0]->count() / num;
  const bool l2 = this->layer_param_.hinge_loss_param().norm() ==
                  HingeLossParameter_Norm_L2;
  const Dtype scale = top[0]->cpu_diff()[0] / num;
  for (int n = 0; n < num; ++n) {
    const int label = Label(bottom, n, dim);
    for (int k = 0; k < dim; ++k) {
      const Dtype t = (k == label) ? Dtype(1) : Dtype(-1);
      const Dtype h = std::max(Dtype(0), Dtype(1) - t * x[n * dim + k]);
      Dtype g = 0;
      if (h > 0) g = l2 ? Dtype(-2) * t * h : -t;
      dx[n * dim + k] = scale * g;
    }
  }
}

INSTANTIATE_CLASS(HingeLossLayer);
REGISTER_LAYER_CLASS(HingeLoss);

}  // namespace caffe
