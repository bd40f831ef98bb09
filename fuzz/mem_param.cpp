// The mem_param block of a real net: random settings (level, release,
// check, share_diff, exclude_blob, recompute by SQRT, by a budget or at
// chosen checkpoints) through checking, planning, binding and one training
// iteration.  Settings the net cannot meet must be refused with
// caffe::Error; any plan that builds must give the unoptimized net's loss
// and gradients bit for bit (a difference is a finding).  The unoptimized
// result is computed once per process.
#include <cstring>
#include <string>
#include <vector>

#include "caffe/net.hpp"
#include "caffe/util/io.hpp"
#include "fuzz_target.hpp"

namespace {

const char* kNet = R"(
name: "fuzz_mem_net"
layer { name: "data" type: "DummyData" top: "data" top: "label"
  dummy_data_param { shape { dim: 2 dim: 3 dim: 8 dim: 8 } shape { dim: 2 }
    data_filler { type: "gaussian" std: 1 }
    data_filler { type: "constant" value: 1 } } }
layer { name: "conv1" type: "Convolution" bottom: "data" top: "conv1"
  convolution_param { num_output: 4 kernel_size: 3 pad: 1
    weight_filler { type: "gaussian" std: 0.2 } } }
layer { name: "bn1" type: "BatchNorm" bottom: "conv1" top: "conv1" }
layer { name: "scale1" type: "Scale" bottom: "conv1" top: "conv1"
  scale_param { bias_term: true } }
layer { name: "relu1" type: "ReLU" bottom: "conv1" top: "conv1" }
layer { name: "conv2a" type: "Convolution" bottom: "conv1" top: "conv2a"
  convolution_param { num_output: 4 kernel_size: 3 pad: 1
    weight_filler { type: "gaussian" std: 0.2 } } }
layer { name: "conv2b" type: "Convolution" bottom: "conv1" top: "conv2b"
  convolution_param { num_output: 4 kernel_size: 1
    weight_filler { type: "gaussian" std: 0.2 } } }
layer { name: "sum" type: "Eltwise" bottom: "conv2a" bottom: "conv2b"
  top: "sum" }
layer { name: "relu2" type: "ReLU" bottom: "sum" top: "sum" }
layer { name: "pool" type: "Pooling" bottom: "sum" top: "pool"
  pooling_param { pool: MAX kernel_size: 2 stride: 2 } }
layer { name: "drop" type: "Dropout" bottom: "pool" top: "pool" }
layer { name: "tanh" type: "TanH" bottom: "pool" top: "tanh" }
layer { name: "cat" type: "Concat" bottom: "pool" bottom: "tanh" top: "cat" }
layer { name: "fc" type: "InnerProduct" bottom: "cat" top: "fc"
  inner_product_param { num_output: 5
    weight_filler { type: "gaussian" std: 0.1 } } }
layer { name: "loss" type: "SoftmaxWithLoss" bottom: "fc" bottom: "label"
  top: "loss" }
)";

const char* kBlobs[] = {"data", "label", "conv1", "conv2a", "conv2b", "sum",
                        "pool", "tanh", "cat", "fc", "loss", "nonexistent"};

struct Result {
  float loss = 0;
  std::vector<std::vector<float> > grads;
};

Result Train(const caffe::NetParameter& param) {
  caffe::Caffe::set_random_seed(1701);
  caffe::Net<float> net(param);
  Result r;
  r.loss = net.ForwardBackward();
  for (caffe::Blob<float>* p : net.learnable_params())
    r.grads.emplace_back(p->cpu_diff(), p->cpu_diff() + p->count());
  return r;
}

// The unoptimized net's result is the same for every input (a fixed net
// and seed): computed once per process, so each input trains one net.
const Result& Unoptimized(const caffe::NetParameter& plain) {
  static const Result* result = new Result(Train(plain));
  return *result;
}

bool BitEqual(const Result& a, const Result& b) {
  if (std::memcmp(&a.loss, &b.loss, sizeof(float)) != 0) return false;
  if (a.grads.size() != b.grads.size()) return false;
  for (size_t i = 0; i < a.grads.size(); ++i)
    if (a.grads[i].size() != b.grads[i].size() ||
        std::memcmp(a.grads[i].data(), b.grads[i].data(),
                    a.grads[i].size() * sizeof(float)) != 0)
      return false;
  return true;
}

}  // namespace

LEANCAFFE_FUZZ_TARGET(mem_param) {
  caffe::fuzz::Bytes in(data, size);
  caffe::NetParameter plain;
  caffe::ReadProtoFromTextString(kNet, "fuzz_mem_net", &plain);
  plain.mutable_state()->set_phase(caffe::TRAIN);
  caffe::NetParameter planned = plain;
  caffe::MemoryOptimizationParameter* mp = planned.mutable_mem_param();
  mp->set_optimize_train(true);
  mp->set_level(in.Int(0, 2));
  if (in.Bool()) mp->set_release(caffe::MemoryOptimizationParameter::DYNAMIC);
  mp->set_check(in.Bool());
  mp->set_share_diff(in.Bool());
  for (const char* blob : kBlobs)
    if (in.Byte() % 5 == 1) mp->add_exclude_blob(blob);
  caffe::RecomputeParameter* rp = mp->mutable_recompute();
  switch (in.Int(0, 3)) {
    case 0:
      mp->clear_recompute();
      break;
    case 1:
      rp->set_auto_(caffe::RecomputeParameter::SQRT);
      break;
    case 2:
      rp->set_auto_(caffe::RecomputeParameter::BUDGET);
      rp->set_memory_budget_mb(in.Int(0, 400) / 1000.0);
      break;
    default:
      for (const char* blob : kBlobs)
        if (in.Byte() % 3 == 1) rp->add_checkpoint(blob);
  }
  Result got;
  bool built = false;
  caffe::fuzz::Guard([&] {
    got = Train(planned);
    built = true;
  });
  if (!built) return;  // refused with caffe::Error
  if (!BitEqual(Unoptimized(plain), got))
    caffe::fuzz::Finding("mem_param changed the loss or a gradient: " +
                         mp->DebugString());
}
