#include "caffe/layers/split_layer.hpp"
#include "caffe/util/device_math.hpp"
#include "caffe/util/elementwise.hpp"

#include <vector>

#include "caffe/util/math_functions.hpp"

namespace caffe {

template <typename Dtype>
void SplitLayer<Dtype>::Reshape(const vector<Blob<Dtype>*>& bottom,
                                const vector<Blob<Dtype>*>& top) {
  for (size_t i = 0; i < top.size(); ++i) {
    // Each top needs its own diff, so a top may not be the bottom itself.
    CAFFE_CHECK(top[i] != bottom[0])
        << "Split layer " << this->layer_param_.name()
        << " does not allow in-place computation (top " << i << ")";
    top[i]->ReshapeLike(*bottom[0]);
    top[i]->ShareData(*bottom[0]);
  }
  if (!top.empty()) this->ShareGradientMemory(*bottom[0], top[0]);
}

// One body for both devices (util/device_math.hpp).
template <typename Dtype>
void SplitLayer<Dtype>::BackwardOn(bool gpu, const vector<Blob<Dtype>*>& top,
                                   const vector<bool>& propagate_down,
                                   const vector<Blob<Dtype>*>& bottom) {
  if (!propagate_down[0]) return;
  const long count = bottom[0]->count64();
  Dtype* bottom_diff = MutableDiffOn(gpu, bottom[0]);
  if (!gpu && top.size() >= 2) {
    // The CPU sums on the parallel loop, the first two tops in one pass.
    ForEach(count, kElementGrain,
            ScaledSumOfTwo<Dtype>{top[0]->cpu_diff(), top[1]->cpu_diff(),
                                  Dtype(1), Dtype(1), bottom_diff});
    for (size_t i = 2; i < top.size(); ++i)
      ForEach(count, kElementGrain,
              AddScaled<Dtype>{top[i]->cpu_diff(), Dtype(1), bottom_diff});
    return;
  }
  // Aliased (mem_param), top 0's diff already is the bottom's; the sums
  // below read each element before writing it.
  if (DiffOn(gpu, *top[0]) != bottom_diff)
    CopyOn(gpu, count, DiffOn(gpu, *top[0]), bottom_diff);
  for (size_t i = 1; i < top.size(); ++i)
    AxpyOn(gpu, count, Dtype(1), DiffOn(gpu, *top[i]), bottom_diff);
}

template <typename Dtype>
void SplitLayer<Dtype>::Backward_cpu(const vector<Blob<Dtype>*>& top,
                                     const vector<bool>& propagate_down,
                                     const vector<Blob<Dtype>*>& bottom) {
  BackwardOn(false, top, propagate_down, bottom);
}

#ifdef USE_CUDA
// Forward only shares data (Reshape): nothing to run on either device.
template <typename Dtype>
void SplitLayer<Dtype>::Forward_gpu(const vector<Blob<Dtype>*>& bottom,
                                    const vector<Blob<Dtype>*>& top) {}

template <typename Dtype>
void SplitLayer<Dtype>::Backward_gpu(const vector<Blob<Dtype>*>& top,
                                     const vector<bool>& propagate_down,
                                     const vector<Blob<Dtype>*>& bottom) {
  BackwardOn(true, top, propagate_down, bottom);
}
#endif

INSTANTIATE_CLASS(SplitLayer);
REGISTER_LAYER_CLASS(Split);

}  // namespace caffe
