// A cuDNN convolution over a batch of any size, in int-sized chunks
// (util/cudnn_conv_batch.hpp).
#ifdef USE_CUDA

#include "caffe/util/cudnn_conv_batch.hpp"

#include <algorithm>
#include <climits>

#include "caffe/common.hpp"

namespace caffe {

namespace {
long InImage(const CudnnConvShape& s) {
  return static_cast<long>(s.channels) * s.height * s.width;
}
long OutImage(const CudnnConvShape& s) {
  return static_cast<long>(s.out_channels) * s.out_height * s.out_width;
}
}  // namespace

template <typename Dtype>
bool CudnnConvBatch<Dtype>::FitsOneImage(const CudnnConvShape& batch) {
  return std::max(InImage(batch), OutImage(batch)) <= INT_MAX;
}

template <typename Dtype>
CudnnConvBatch<Dtype>::CudnnConvBatch(const CudnnConvShape& batch)
    : num_(batch.num), in_image_(InImage(batch)), out_image_(OutImage(batch)) {
  const long per_image = std::max({in_image_, out_image_, 1L});
  CAFFE_INTERNAL_CHECK(per_image <= INT_MAX && num_ > 0)
      << "CudnnConvBatch of " << num_ << " images of " << per_image
      << " elements (the layer checks FitsOneImage)";
  chunk_ = static_cast<int>(std::min<long>(num_, INT_MAX / per_image));
  CudnnConvShape s = batch;
  s.num = chunk_;
  full_.reset(new CudnnConv<Dtype>(s));
  if (num_ % chunk_ != 0) {
    s.num = num_ % chunk_;
    tail_.reset(new CudnnConv<Dtype>(s));
  }
}

template <typename Dtype>
bool CudnnConvBatch<Dtype>::ChooseAlgorithms(size_t workspace_limit) {
  return full_->ChooseAlgorithms(workspace_limit) &&
         (!tail_ || tail_->ChooseAlgorithms(workspace_limit));
}

template <typename Dtype>
size_t CudnnConvBatch<Dtype>::WorkspaceBytes() const {
  return std::max(full_->WorkspaceBytes(),
                  tail_ ? tail_->WorkspaceBytes() : size_t{0});
}

template <typename Dtype>
const CudnnConv<Dtype>& CudnnConvBatch<Dtype>::EngineAt(int first) const {
  return num_ - first >= chunk_ ? *full_ : *tail_;
}

template <typename Dtype>
CudnnConv<Dtype>* CudnnConvBatch<Dtype>::MutableEngineAt(int first) {
  return num_ - first >= chunk_ ? full_.get() : tail_.get();
}

template <typename Dtype>
void CudnnConvBatch<Dtype>::Forward(const Dtype* x, const Dtype* w, Dtype* y,
                                    void* workspace) {
  for (int n = 0; n < num_; n += chunk_)
    MutableEngineAt(n)->Forward(x + n * in_image_, w, y + n * out_image_,
                                workspace);
}

template <typename Dtype>
void CudnnConvBatch<Dtype>::BackwardData(const Dtype* w, const Dtype* dy,
                                         Dtype* dx, void* workspace) {
  for (int n = 0; n < num_; n += chunk_)
    MutableEngineAt(n)->BackwardData(w, dy + n * out_image_,
                                     dx + n * in_image_, workspace);
}

template <typename Dtype>
void CudnnConvBatch<Dtype>::BackwardFilter(const Dtype* x, const Dtype* dy,
                                           Dtype* dw, void* workspace) {
  for (int n = 0; n < num_; n += chunk_)
    MutableEngineAt(n)->BackwardFilter(x + n * in_image_, dy + n * out_image_,
                                       dw, workspace);
}

template class CudnnConvBatch<float>;
template class CudnnConvBatch<double>;

}  // namespace caffe

#endif  // USE_CUDA
