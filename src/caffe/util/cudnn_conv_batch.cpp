// A cuDNN convolution over a batch of any size, each direction in as many
// images per call as fit (util/cudnn_conv_batch.hpp).
#ifdef USE_CUDA

#include "caffe/util/cudnn_conv_batch.hpp"

#include <algorithm>
#include <climits>
#include <sstream>

#include "caffe/common.hpp"

namespace caffe {

namespace {
long InImage(const CudnnConvShape& s) {
  return static_cast<long>(s.channels) * s.height * s.width;
}
long OutImage(const CudnnConvShape& s) {
  return static_cast<long>(s.out_channels) * s.out_height * s.out_width;
}
const ConvDirection kDirections[kConvDirections] = {
    ConvDirection::kForward, ConvDirection::kData, ConvDirection::kFilter};
}  // namespace

template <typename Dtype>
bool CudnnConvBatch<Dtype>::FitsOneImage(const CudnnConvShape& batch) {
  return std::max(InImage(batch), OutImage(batch)) <= INT_MAX;
}

template <typename Dtype>
CudnnConvBatch<Dtype>::CudnnConvBatch(const CudnnConvShape& batch)
    : shape_(batch),
      num_(batch.num),
      in_image_(InImage(batch)),
      out_image_(OutImage(batch)) {
  const long per_image = std::max({in_image_, out_image_, 1L});
  CAFFE_INTERNAL_CHECK(per_image <= INT_MAX && num_ > 0)
      << "CudnnConvBatch of " << num_ << " images of " << per_image
      << " elements (the layer checks FitsOneImage)";
  int_chunk_ = static_cast<int>(std::min<long>(num_, INT_MAX / per_image));
}

template <typename Dtype>
typename CudnnConvBatch<Dtype>::EngineSlot& CudnnConvBatch<Dtype>::Slot(
    int images) {
  CAFFE_INTERNAL_CHECK(images >= 1 && images <= int_chunk_)
      << "a cuDNN call of " << images << " images (at most " << int_chunk_
      << ")";
  EngineSlot& slot = engines_[images];
  if (!slot.engine) {
    CudnnConvShape s = shape_;
    s.num = images;
    slot.engine.reset(new CudnnConv<Dtype>(s));
  }
  return slot;
}

template <typename Dtype>
CudnnConv<Dtype>* CudnnConvBatch<Dtype>::Chosen(int images) {
  EngineSlot& slot = Slot(images);
  if (!slot.chosen) {
    slot.engine->ChooseAlgorithms(limit_);
    slot.chosen = true;
  }
  return slot.engine.get();
}

template <typename Dtype>
bool CudnnConvBatch<Dtype>::ChooseAlgorithms(size_t workspace_limit) {
  limit_ = workspace_limit;
  for (auto& entry : engines_) entry.second.chosen = false;
  bool any = false;
  for (ConvDirection d : kDirections) {
    const int c = LargestFittingChunk(num_, int_chunk_, [&](int images) {
      return Chosen(images)->Has(d);
    });
    chunk_[static_cast<int>(d)] = c;
    any = any || c > 0;
    // The one-image engine is tried last, so it says why there is none.
    why_[static_cast<int>(d)] = c > 0 ? "" : Chosen(1)->Why(d);
    // LargestFittingChunk asked about int_chunk_ images first.
    largest_ranking_[static_cast<int>(d)] =
        c == int_chunk_ ? "" : Chosen(int_chunk_)->Ranking(d);
  }
  // Engines tried and not used are dropped; those in use stay chosen.
  for (auto it = engines_.begin(); it != engines_.end();) {
    bool used = false;
    for (ConvDirection d : kDirections) {
      const int c = chunk(d);
      used = used || (c > 0 && (it->first == c || it->first == num_ % c));
    }
    if (used) {
      ++it;
    } else {
      it = engines_.erase(it);
    }
  }
  return any;
}

template <typename Dtype>
bool CudnnConvBatch<Dtype>::WholeBatchEverywhere() const {
  for (ConvDirection d : kDirections)
    if (chunk(d) != num_) return false;
  return true;
}

template <typename Dtype>
std::string CudnnConvBatch<Dtype>::Describe() const {
  std::ostringstream s;
  for (ConvDirection d : kDirections) {
    const int c = chunk(d);
    if (d != ConvDirection::kForward) s << "; ";
    s << ConvDirectionName(d) << ": ";
    if (c == num_) {
      s << "cuDNN on the whole batch";
    } else if (c > 0) {
      s << "cuDNN " << c << " images at a time";
    } else {
      s << "im2col + cuBLAS (one image: " << why_[static_cast<int>(d)]
        << ")";
    }
  }
  return s.str();
}

template <typename Dtype>
std::string CudnnConvBatch<Dtype>::DescribeRankings() const {
  std::ostringstream s;
  for (ConvDirection d : kDirections) {
    const std::string& ranking = largest_ranking_[static_cast<int>(d)];
    if (ranking.empty()) continue;
    s << (s.tellp() > 0 ? "\n" : "") << ConvDirectionName(d) << ", "
      << int_chunk_ << " images, cuDNN offered (algorithm: workspace): "
      << ranking;
  }
  return s.str();
}

template <typename Dtype>
size_t CudnnConvBatch<Dtype>::WorkspaceBytes() const {
  size_t bytes = 0;
  for (ConvDirection d : kDirections) {
    const int c = chunk(d);
    if (c == 0) continue;
    for (int images : {c, num_ % c}) {
      auto it = engines_.find(images);
      if (images > 0 && it != engines_.end())
        bytes = std::max(bytes, it->second.engine->WorkspaceBytes(d));
    }
  }
  return bytes;
}

template <typename Dtype>
CudnnConv<Dtype>* CudnnConvBatch<Dtype>::CallAt(ConvDirection d, int first) {
  const int c = chunk(d);
  CAFFE_INTERNAL_CHECK(c > 0) << ConvDirectionName(d)
                              << " has no cuDNN algorithm";
  return Chosen(std::min(c, num_ - first));
}

template <typename Dtype>
void CudnnConvBatch<Dtype>::Forward(const Dtype* x, const Dtype* w, Dtype* y,
                                    void* workspace) {
  const int c = chunk(ConvDirection::kForward);
  for (int n = 0; n < num_; n += c)
    CallAt(ConvDirection::kForward, n)
        ->Forward(x + n * in_image_, w, y + n * out_image_, workspace);
}

template <typename Dtype>
void CudnnConvBatch<Dtype>::BackwardData(const Dtype* w, const Dtype* dy,
                                         Dtype* dx, void* workspace) {
  const int c = chunk(ConvDirection::kData);
  for (int n = 0; n < num_; n += c)
    CallAt(ConvDirection::kData, n)
        ->BackwardData(w, dy + n * out_image_, dx + n * in_image_, workspace);
}

template <typename Dtype>
void CudnnConvBatch<Dtype>::BackwardFilter(const Dtype* x, const Dtype* dy,
                                           Dtype* dw, void* workspace) {
  const int c = chunk(ConvDirection::kFilter);
  for (int n = 0; n < num_; n += c)
    CallAt(ConvDirection::kFilter, n)
        ->BackwardFilter(x + n * in_image_, dy + n * out_image_, dw,
                         workspace);
}

template class CudnnConvBatch<float>;
template class CudnnConvBatch<double>;

}  // namespace caffe

#endif  // USE_CUDA
