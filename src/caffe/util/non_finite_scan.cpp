#include "caffe/util/non_finite_scan.hpp"

#include <cmath>
#include <sstream>

#include "caffe/step_hook.hpp"

namespace caffe {

namespace {

template <typename Dtype>
bool AllFinite(const Dtype* p, int64_t count) {
  for (int64_t i = 0; i < count; ++i)
    if (!std::isfinite(p[i])) return false;
  return true;
}

template <typename Dtype>
class NonFiniteScan : public StepHook {
 public:
  explicit NonFiniteScan(Net<Dtype>* net) : net_(net) {}

  void AfterStep(int step) override {
    if (!found_.empty()) return;
    const mem::Step s = net_->StepAt(step);
    const int i = s.layer;
    if (s.kind == mem::Step::kBackward) {
      for (size_t k = 0; k < net_->bottom_vecs()[i].size(); ++k) {
        if (!net_->bottom_need_backward()[i][k]) continue;
        const Blob<Dtype>* b = net_->bottom_vecs()[i][k];
        if (!AllFinite(b->cpu_diff(), b->count64()))
          return Found(i, "backward gradient of its input",
                       net_->blob_names()[net_->bottom_ids(i)[k]]);
      }
      const auto& params = net_->layers()[i]->blobs();
      for (size_t k = 0; k < params.size(); ++k)
        if (!AllFinite(params[k]->cpu_diff(), params[k]->count64()))
          return Found(i, "backward gradient of its parameter",
                       std::to_string(k));
      return;
    }
    for (size_t k = 0; k < net_->top_vecs()[i].size(); ++k) {
      const Blob<Dtype>* t = net_->top_vecs()[i][k];
      if (!AllFinite(t->cpu_data(), t->count64()))
        return Found(i, s.kind == mem::Step::kRecompute
                            ? "forward output (recomputed)"
                            : "forward output",
                     net_->blob_names()[net_->top_ids(i)[k]]);
    }
  }
  const std::string& found() const { return found_; }

 private:
  void Found(int layer, const char* what, const std::string& blob) {
    std::ostringstream s;
    s << "the first non-finite value is the " << what << " '" << blob
      << "' of layer '" << net_->layer_names()[layer] << "' (type "
      << net_->layers()[layer]->type() << ")";
    found_ = s.str();
  }
  Net<Dtype>* net_;
  std::string found_;
};

}  // namespace

template <typename Dtype>
std::string FindNonFiniteSource(Net<Dtype>* net) {
  NonFiniteScan<Dtype> scan(net);
  net->AddStepHook(&scan);
  try {
    net->ClearParamDiffs();
    const int num_layers = static_cast<int>(net->layers().size());
    for (int i = 0; i < num_layers; ++i)
      if (!net->bottom_ids(i).empty()) net->ForwardFromTo(i, i);
    net->Backward();
  } catch (...) {
    net->RemoveStepHook(&scan);
    throw;
  }
  net->RemoveStepHook(&scan);
  if (!scan.found().empty()) return scan.found();
  return "running the iteration again gave finite values everywhere "
         "(random layers such as Dropout draw new numbers, so the "
         "non-finite value may not repeat)";
}

template std::string FindNonFiniteSource<float>(Net<float>* net);
template std::string FindNonFiniteSource<double>(Net<double>* net);

}  // namespace caffe
