// A net prototxt as `caffe train` / `caffe test` reads it: text parse,
// upgrade of legacy formats, Net construction in TEST and TRAIN, and a
// forward pass (with backward in TRAIN) when the net builds and is small
// enough to run quickly.
#include <string>

#include "caffe/net.hpp"
#include "caffe/net_graph_builder.hpp"
#include "caffe/util/io.hpp"
#include "caffe/util/upgrade_proto.hpp"
#include "fuzz_target.hpp"

namespace {

// Multiply-adds of one forward pass (the memory engine's estimate).
double ForwardWork(const caffe::Net<float>& net) {
  double work = 0;
  for (const auto& layer : caffe::NetGraphSource<float>(&net).Graph().layers)
    work += layer.forward_cost;
  return work;
}

}  // namespace

LEANCAFFE_FUZZ_TARGET(net_prototxt) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  if (!caffe::fuzz::SafePaths(text)) return;
  caffe::fuzz::Guard([&] {
    caffe::NetParameter param;
    caffe::ReadProtoFromTextString(text, "fuzz.prototxt", &param);
    caffe::UpgradeNetAsNeeded("fuzz.prototxt", &param);
    for (caffe::Phase phase : {caffe::TEST, caffe::TRAIN}) {
      caffe::NetParameter p = param;
      p.mutable_state()->set_phase(phase);
      caffe::fuzz::Guard([&] {
        caffe::Net<float> net(p);
        // Big but valid nets are slow, not wrong: run only small ones.
        if (ForwardWork(net) > 2e7) return;
        net.Forward();
        if (phase == caffe::TRAIN) net.Backward();
      });
    }
  });
}
