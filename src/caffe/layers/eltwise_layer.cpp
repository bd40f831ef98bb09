#include "caffe/layers/eltwise_layer.hpp"

#include <vector>

#include "caffe/util/math_functions.hpp"

namespace caffe {

template <typename Dtype>
void EltwiseLayer<Dtype>::LayerSetUp(const vector<Blob<Dtype>*>& bottom,
                                     const vector<Blob<Dtype>*>& top) {
  const string& name = this->layer_param_.name();
  const EltwiseParameter& p = this->layer_param_.eltwise_param();
  op_ = p.operation();
  stable_prod_grad_ = p.stable_prod_grad();
  CAFFE_CHECK(p.coeff_size() == 0 ||
              p.coeff_size() == static_cast<int>(bottom.size()))
      << "Eltwise layer " << name << " takes one coefficient per bottom blob ("
      << bottom.size() << " bottoms, " << p.coeff_size() << " coefficients)";
  CAFFE_CHECK(!(op_ == EltwiseParameter_EltwiseOp_PROD && p.coeff_size()))
      << "Eltwise layer " << name << " only takes coefficients for SUM";
  coeffs_.assign(bottom.size(), Dtype(1));
  for (int i = 0; i < p.coeff_size(); ++i) coeffs_[i] = p.coeff(i);
}

template <typename Dtype>
void EltwiseLayer<Dtype>::Reshape(const vector<Blob<Dtype>*>& bottom,
                                  const vector<Blob<Dtype>*>& top) {
  for (size_t i = 1; i < bottom.size(); ++i) {
    CAFFE_CHECK(bottom[i]->shape() == bottom[0]->shape())
        << "Eltwise layer " << this->layer_param_.name()
        << " needs bottoms of one shape: bottom 0 is "
        << bottom[0]->shape_string() << ", bottom " << i << " is "
        << bottom[i]->shape_string();
  }
  for (size_t i = 0; i < bottom.size(); ++i) {
    CAFFE_CHECK(top[0] != bottom[i])
        << "Eltwise layer " << this->layer_param_.name()
        << " does not allow in-place computation";
  }
  top[0]->ReshapeLike(*bottom[0]);
  if (op_ == EltwiseParameter_EltwiseOp_MAX)
    max_idx_.Reshape(bottom[0]->shape());
}

template <typename Dtype>
void EltwiseLayer<Dtype>::Forward_cpu(const vector<Blob<Dtype>*>& bottom,
                                      const vector<Blob<Dtype>*>& top) {
  const int count = top[0]->count();
  Dtype* top_data = top[0]->mutable_cpu_data();
  switch (op_) {
    case EltwiseParameter_EltwiseOp_PROD:
      caffe_mul(count, bottom[0]->cpu_data(), bottom[1]->cpu_data(), top_data);
      for (size_t i = 2; i < bottom.size(); ++i)
        caffe_mul(count, top_data, bottom[i]->cpu_data(), top_data);
      break;
    case EltwiseParameter_EltwiseOp_SUM:
      caffe_set(count, Dtype(0), top_data);
      for (size_t i = 0; i < bottom.size(); ++i)
        caffe_axpy(count, coeffs_[i], bottom[i]->cpu_data(), top_data);
      break;
    case EltwiseParameter_EltwiseOp_MAX: {
      int* mask = max_idx_.mutable_cpu_data();
      const Dtype* a = bottom[0]->cpu_data();
      const Dtype* b = bottom[1]->cpu_data();
      for (int j = 0; j < count; ++j) {
        if (a[j] > b[j]) {
          top_data[j] = a[j];
          mask[j] = 0;
        } else {
          top_data[j] = b[j];
          mask[j] = 1;
        }
      }
      for (size_t i = 2; i < bottom.size(); ++i) {
        const Dtype* c = bottom[i]->cpu_data();
        for (int j = 0; j < count; ++j) {
          if (c[j] > top_data[j]) {
            top_data[j] = c[j];
            mask[j] = static_cast<int>(i);
          }
        }
      }
      break;
    }
    default:
      CAFFE_THROW() << "Eltwise layer " << this->layer_param_.name()
                    << ": unknown operation " << op_;
  }
}

template <typename Dtype>
void EltwiseLayer<Dtype>::Backward_cpu(const vector<Blob<Dtype>*>& top,
                                       const vector<bool>& propagate_down,
                                       const vector<Blob<Dtype>*>& bottom) {
  const int count = top[0]->count();
  const Dtype* top_diff = top[0]->cpu_diff();
  for (size_t i = 0; i < bottom.size(); ++i) {
    if (!propagate_down[i]) continue;
    Dtype* bottom_diff = bottom[i]->mutable_cpu_diff();
    switch (op_) {
      case EltwiseParameter_EltwiseOp_PROD:
        if (stable_prod_grad_) {
          // Product of the other bottoms, never dividing by a (maybe zero)
          // bottom value.
          bool initialized = false;
          for (size_t j = 0; j < bottom.size(); ++j) {
            if (j == i) continue;
            if (!initialized) {
              caffe_copy(count, bottom[j]->cpu_data(), bottom_diff);
              initialized = true;
            } else {
              caffe_mul(count, bottom[j]->cpu_data(), bottom_diff,
                        bottom_diff);
            }
          }
        } else {
          caffe_div(count, top[0]->cpu_data(), bottom[i]->cpu_data(),
                    bottom_diff);
        }
        caffe_mul(count, bottom_diff, top_diff, bottom_diff);
        break;
      case EltwiseParameter_EltwiseOp_SUM:
        caffe_cpu_scale(count, coeffs_[i], top_diff, bottom_diff);
        break;
      case EltwiseParameter_EltwiseOp_MAX: {
        const int* mask = max_idx_.cpu_data();
        for (int j = 0; j < count; ++j)
          bottom_diff[j] = mask[j] == static_cast<int>(i) ? top_diff[j]
                                                          : Dtype(0);
        break;
      }
      default:
        CAFFE_THROW() << "Eltwise layer " << this->layer_param_.name()
                      << ": unknown operation " << op_;
    }
  }
}

INSTANTIATE_CLASS(EltwiseLayer);
REGISTER_LAYER_CLASS(Eltwise);

}  // namespace caffe
