// large_blob_net.hpp: a net whose blob passes 2^31 elements, and the
// plain-loop values its outputs must equal (issue 13, item 5).
//
// The net (TEST phase, forward only):
//   data (513 x 1 x 1024 x 1024) -> widen: 1x1 convolution to 4 channels
//   -> "wide", 513 x 4 x 1024 x 1024 = 2,151,677,952 elements, past 2^31
//   -> ReLU in place -> MAX pooling 2x2/2 -> mix: 1x1 convolution -> out
//   (ReLU, not in place); and squeeze: a 2x2/2 convolution of "wide".
// So "wide" is a top (widen), in place (ReLU) and a bottom (pool, squeeze),
// and the last images lie wholly beyond element 2^31.  Inputs and weights
// are small integers, so every sum is exact in float whatever order an
// engine adds in: LargeBlobMismatches compares an image's outputs bit for
// bit with values computed by plain loops.  Under mem_param "mix" takes
// memory "wide" held.  About 15 GiB (host or device).  Used by
// test/large (CPU) and test/gpu (GPU).
#ifndef CAFFE_TEST_LARGE_BLOB_NET_HPP_
#define CAFFE_TEST_LARGE_BLOB_NET_HPP_

#include <algorithm>
#include <cfloat>
#include <cstdint>
#include <string>

#include "caffe/caffe.hpp"
#include "caffe/util/io.hpp"

namespace caffe {
namespace large_blob {

const int kNum = 513, kSide = 1024, kHalf = kSide / 2;
const float kWidenW[4] = {1, -1, 2, -3}, kWidenB[4] = {0, 1, -2, 3};
const float kSqueezeBias = 0.5f;

inline float Input(int n, int h, int w) {
  return static_cast<float>((n * 131 + h * 7 + w * 3) % 23 - 11);
}
inline float Wide(int n, int c, int h, int w) {
  return std::max(0.0f, kWidenW[c] * Input(n, h, w) + kWidenB[c]);
}
inline float SqueezeWeight(int c, int kh, int kw) {
  return static_cast<float>((c + 2 * kh + kw) % 3 - 1);
}
inline float MixWeight(int o, int c) {
  return o == 0 ? 1.0f : (c % 2 ? -1.0f : 2.0f);
}

// TEST phase, forward only; with `train`, a TRAIN net that also
// backpropagates to "data" (force_backward), its losses the sums of "out"
// and "squeeze" (Reduction SUM, loss weight 1), so every top gradient is
// 1 and every gradient below is a small integer.
// `num` images instead of 513: a small batch checks these reference values
// cheaply on the CPU (test_blob_count64.cpp).
inline NetParameter LargeNet(bool planned, bool train = false, int num = kNum) {
  std::string text = R"(
name: "past_2_31"
layer { name: "data" type: "Input" top: "data"
  input_param { shape { dim: NUM dim: 1 dim: 1024 dim: 1024 } } }
layer { name: "widen" type: "Convolution" bottom: "data" top: "wide"
  convolution_param { num_output: 4 kernel_size: 1 } }
layer { name: "relu" type: "ReLU" bottom: "wide" top: "wide" }
layer { name: "pool" type: "Pooling" bottom: "wide" top: "pool"
  pooling_param { pool: MAX kernel_size: 2 stride: 2 } }
layer { name: "squeeze" type: "Convolution" bottom: "wide" top: "squeeze"
  convolution_param { num_output: 1 kernel_size: 2 stride: 2 } }
layer { name: "mix" type: "Convolution" bottom: "pool" top: "mix"
  convolution_param { num_output: 2 kernel_size: 1 bias_term: false } }
layer { name: "out_relu" type: "ReLU" bottom: "mix" top: "out" }
)";
  text.replace(text.find("NUM"), 3, std::to_string(num));
  if (train) {
    text += R"(force_backward: true
layer { name: "sum_out" type: "Reduction" bottom: "out" top: "sum_out"
  loss_weight: 1 reduction_param { operation: SUM axis: 0 } }
layer { name: "sum_squeeze" type: "Reduction" bottom: "squeeze"
  top: "sum_squeeze" loss_weight: 1
  reduction_param { operation: SUM axis: 0 } }
)";
  }
  if (planned) {
    // Training: the test reads "data"'s gradient and the outputs afterwards.
    text += train ? "mem_param { optimize_train: true exclude_blob: \"data\" "
                    "exclude_blob: \"out\" exclude_blob: \"squeeze\" }\n"
                  : "mem_param { optimize_test: true }\n";
  }
  NetParameter param;
  ReadProtoFromTextString(text, "past_2_31", &param);
  param.mutable_state()->set_phase(train ? TRAIN : TEST);
  return param;
}

inline void SetWeights(Net<float>* net) {
  auto widen = net->layer_by_name("widen");
  for (int c = 0; c < 4; ++c) {
    widen->blobs()[0]->mutable_cpu_data()[c] = kWidenW[c];
    widen->blobs()[1]->mutable_cpu_data()[c] = kWidenB[c];
  }
  auto squeeze = net->layer_by_name("squeeze");
  float* w = squeeze->blobs()[0]->mutable_cpu_data();  // 1 x 4 x 2 x 2
  for (int c = 0; c < 4; ++c)
    for (int kh = 0; kh < 2; ++kh)
      for (int kw = 0; kw < 2; ++kw)
        w[(c * 2 + kh) * 2 + kw] = SqueezeWeight(c, kh, kw);
  squeeze->blobs()[1]->mutable_cpu_data()[0] = kSqueezeBias;
  float* m = net->layer_by_name("mix")->blobs()[0]->mutable_cpu_data();
  for (int o = 0; o < 2; ++o)
    for (int c = 0; c < 4; ++c) m[o * 4 + c] = MixWeight(o, c);
}

inline void FillInput(Blob<float>* data) {
  float* x = data->mutable_cpu_data();
  for (int n = 0; n < data->shape(0); ++n)
    for (int h = 0; h < kSide; ++h) {
      float* row = x + data->offset(n, 0, h);
      for (int w = 0; w < kSide; ++w) row[w] = Input(n, h, w);
    }
}

// Compares image n of squeeze and out with the plain-loop values; returns
// the number of elements that differ and describes the first.
inline int64_t Mismatches(const Net<float>& net, int n, std::string* first) {
  const Blob<float>& squeeze = *net.blob_by_name("squeeze");
  const Blob<float>& out = *net.blob_by_name("out");
  const float* s = squeeze.cpu_data();
  const float* o = out.cpu_data();
  int64_t bad = 0;
  auto note = [&](const char* blob, int c, int i, int j, float got,
                  float want) {
    if (bad++ == 0)
      *first = std::string(blob) + " at (" + std::to_string(n) + ", " +
               std::to_string(c) + ", " + std::to_string(i) + ", " +
               std::to_string(j) + "): " + std::to_string(got) + " want " +
               std::to_string(want);
  };
  for (int i = 0; i < kHalf; ++i) {
    for (int j = 0; j < kHalf; ++j) {
      float sq = kSqueezeBias, pooled[4];
      for (int c = 0; c < 4; ++c) {
        pooled[c] = Wide(n, c, 2 * i, 2 * j);
        for (int kh = 0; kh < 2; ++kh)
          for (int kw = 0; kw < 2; ++kw) {
            const float v = Wide(n, c, 2 * i + kh, 2 * j + kw);
            sq += SqueezeWeight(c, kh, kw) * v;
            pooled[c] = std::max(pooled[c], v);
          }
      }
      const float got_sq = s[squeeze.offset(n, 0, i, j)];
      if (got_sq != sq) note("squeeze", 0, i, j, got_sq, sq);
      for (int k = 0; k < 2; ++k) {
        float mix = 0;
        for (int c = 0; c < 4; ++c) mix += MixWeight(k, c) * pooled[c];
        const float want = std::max(0.0f, mix);
        const float got = o[out.offset(n, k, i, j)];
        if (got != want) note("out", k, i, j, got, want);
      }
    }
  }
  return bad;
}

// After a backward pass of the `train` net: compares image n of the
// gradient of "data" with plain-loop values (the windows of the 2x2/2
// pooling and convolution do not overlap, so each input position gets its
// window's share; the pooling's gradient goes to the first largest element
// of the window, as Caffe's).  Returns the number that differ.
inline int64_t DataGradientMismatches(const Net<float>& net, int n,
                                      std::string* first) {
  const Blob<float>& data = *net.blob_by_name("data");
  const float* dx = data.cpu_diff();
  int64_t bad = 0;
  for (int i = 0; i < kHalf; ++i) {
    for (int j = 0; j < kHalf; ++j) {
      float dwide[4][2][2];
      float pooled[4];
      int arg[4];
      for (int c = 0; c < 4; ++c) {
        pooled[c] = -FLT_MAX;
        for (int k = 0; k < 4; ++k) {
          const float v = Wide(n, c, 2 * i + k / 2, 2 * j + k % 2);
          if (v > pooled[c]) {
            pooled[c] = v;
            arg[c] = k;
          }
        }
      }
      float dpool[4] = {0, 0, 0, 0};
      for (int o = 0; o < 2; ++o) {
        float mix = 0;
        for (int c = 0; c < 4; ++c) mix += MixWeight(o, c) * pooled[c];
        if (mix > 0)
          for (int c = 0; c < 4; ++c) dpool[c] += MixWeight(o, c);
      }
      for (int c = 0; c < 4; ++c)
        for (int k = 0; k < 4; ++k) {
          const int kh = k / 2, kw = k % 2;
          const float g =
              (arg[c] == k ? dpool[c] : 0.0f) + SqueezeWeight(c, kh, kw);
          dwide[c][kh][kw] = Wide(n, c, 2 * i + kh, 2 * j + kw) > 0 ? g : 0;
        }
      for (int k = 0; k < 4; ++k) {
        const int h = 2 * i + k / 2, w = 2 * j + k % 2;
        float want = 0;
        for (int c = 0; c < 4; ++c) want += kWidenW[c] * dwide[c][k / 2][k % 2];
        const float got = dx[data.offset(n, 0, h, w)];
        if (got != want && bad++ == 0)
          *first = "d data at (" + std::to_string(n) + ", 0, " +
                   std::to_string(h) + ", " + std::to_string(w) +
                   "): " + std::to_string(got) + " want " +
                   std::to_string(want);
      }
    }
  }
  return bad;
}

}  // namespace large_blob
}  // namespace caffe

#endif  // CAFFE_TEST_LARGE_BLOB_NET_HPP_
