#include "caffe/layers/eltwise_layer.hpp"
#include "caffe/util/device_launch.hpp"
#include "caffe/util/device_math.hpp"
#include "caffe/util/elementwise.hpp"

#include <vector>

#include "caffe/util/math_functions.hpp"
#include "eltwise_kernels.hpp"

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
  this->ShareGradientMemory(*bottom[0], top[0]);
  if (op_ == EltwiseParameter_EltwiseOp_MAX)
    max_idx_.Reshape(bottom[0]->shape());
}

// One body for both devices: device math for SUM and PROD
// (util/device_math.hpp), the bodies of eltwise_kernels.hpp for MAX.
template <typename Dtype>
void EltwiseLayer<Dtype>::ForwardOn(bool gpu, const vector<Blob<Dtype>*>& bottom,
                                    const vector<Blob<Dtype>*>& top) {
  const long count = top[0]->count64();
  Dtype* top_data = MutableDataOn(gpu, top[0]);
  switch (op_) {
    case EltwiseParameter_EltwiseOp_PROD:
      MulOn(gpu, count, DataOn(gpu, *bottom[0]), DataOn(gpu, *bottom[1]),
            top_data);
      for (size_t i = 2; i < bottom.size(); ++i)
        MulOn(gpu, count, top_data, DataOn(gpu, *bottom[i]), top_data);
      break;
    case EltwiseParameter_EltwiseOp_SUM:
      // The first two bottoms in one pass (Eltwise has at least two), each
      // element read before the top's is written: top 0 may lie over
      // bottom 0 or 1 (Memory(): top_overwrites_bottoms).
      ForEachOn(gpu, count, kElementGrain,
                ScaledSumOfTwo<Dtype>{DataOn(gpu, *bottom[0]),
                                      DataOn(gpu, *bottom[1]), coeffs_[0],
                                      coeffs_[1], top_data});
      for (size_t i = 2; i < bottom.size(); ++i)
        ForEachOn(gpu, count, kElementGrain,
                  AddScaled<Dtype>{DataOn(gpu, *bottom[i]), coeffs_[i],
                                   top_data});
      break;
    case EltwiseParameter_EltwiseOp_MAX: {
      int* mask = MutableDataOn(gpu, &max_idx_);
      ForEachOn(gpu, count, kElementGrain,
                EltwiseMaxOfTwo<Dtype>{DataOn(gpu, *bottom[0]),
                                       DataOn(gpu, *bottom[1]), top_data,
                                       mask});
      for (size_t i = 2; i < bottom.size(); ++i)
        ForEachOn(gpu, count, kElementGrain,
                  EltwiseMaxNext<Dtype>{DataOn(gpu, *bottom[i]), top_data,
                                        mask, static_cast<int>(i)});
      break;
    }
    default:
      CAFFE_THROW() << "Eltwise layer " << this->layer_param_.name()
                    << ": unknown operation " << op_;
  }
}

template <typename Dtype>
void EltwiseLayer<Dtype>::BackwardOn(bool gpu,
                                     const vector<Blob<Dtype>*>& top,
                                     const vector<bool>& propagate_down,
                                     const vector<Blob<Dtype>*>& bottom) {
  if (op_ == EltwiseParameter_EltwiseOp_SUM) {
    BackwardSum(gpu, top, propagate_down, bottom);
    return;
  }
  const long count = top[0]->count64();
  const Dtype* top_diff = DiffOn(gpu, *top[0]);
  for (size_t i = 0; i < bottom.size(); ++i) {
    if (!propagate_down[i]) continue;
    Dtype* bottom_diff = MutableDiffOn(gpu, bottom[i]);
    switch (op_) {
      case EltwiseParameter_EltwiseOp_PROD:
        if (stable_prod_grad_) {
          // Product of the other bottoms, never dividing by a (maybe zero)
          // bottom value.
          bool initialized = false;
          for (size_t j = 0; j < bottom.size(); ++j) {
            if (j == i) continue;
            if (!initialized) {
              CopyOn(gpu, count, DataOn(gpu, *bottom[j]), bottom_diff);
              initialized = true;
            } else {
              MulOn(gpu, count, DataOn(gpu, *bottom[j]), bottom_diff,
                    bottom_diff);
            }
          }
        } else {
          DivOn(gpu, count, DataOn(gpu, *top[0]), DataOn(gpu, *bottom[i]),
                bottom_diff);
        }
        MulOn(gpu, count, bottom_diff, top_diff, bottom_diff);
        break;
      case EltwiseParameter_EltwiseOp_MAX:
        ForEachOn(gpu, count, kElementGrain,
                  EltwiseMaxBackward<Dtype>{top_diff,
                                            DataOn(gpu, max_idx_),
                                            bottom_diff,
                                            static_cast<int>(i)});
        break;
      default:
        CAFFE_THROW() << "Eltwise layer " << this->layer_param_.name()
                      << ": unknown operation " << op_;
    }
  }
}

// Each bottom's gradient is its coefficient times the top's.  On the CPU
// two bottoms are written in one pass (ResNet's shortcut sums: the top's
// gradient is read from memory once instead of twice).
template <typename Dtype>
void EltwiseLayer<Dtype>::BackwardSum(bool gpu,
                                      const vector<Blob<Dtype>*>& top,
                                      const vector<bool>& propagate_down,
                                      const vector<Blob<Dtype>*>& bottom) {
  const long count = top[0]->count64();
  const Dtype* top_diff = DiffOn(gpu, *top[0]);
  vector<int> to_write;
  for (size_t i = 0; i < bottom.size(); ++i) {
    // Aliased (mem_param, unit coefficients): already the top's diff.
    if (propagate_down[i] && MutableDiffOn(gpu, bottom[i]) != top_diff)
      to_write.push_back(static_cast<int>(i));
  }
  size_t k = 0;
  for (; !gpu && k + 1 < to_write.size(); k += 2) {
    const int a = to_write[k], b = to_write[k + 1];
    ForEach(count, kElementGrain,
            ScaledToTwo<Dtype>{top_diff, coeffs_[a], coeffs_[b],
                               MutableDiffOn(gpu, bottom[a]),
                               MutableDiffOn(gpu, bottom[b])});
  }
  for (; k < to_write.size(); ++k) {
    const int i = to_write[k];
    Dtype* bottom_diff = MutableDiffOn(gpu, bottom[i]);
    if (gpu) {
      ScaleOn(gpu, count, coeffs_[i], top_diff, bottom_diff);
    } else {
      ForEach(count, kElementGrain,
              Scaled<Dtype>{top_diff, coeffs_[i], bottom_diff});
    }
  }
}

DEFINE_CPU_BY_ON(EltwiseLayer);
DEFINE_GPU_BY_ON(EltwiseLayer);

INSTANTIATE_CLASS(EltwiseLayer);
REGISTER_LAYER_CLASS(Eltwise);

}  // namespace caffe
