#include "caffe/util/mem_report.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>
#include <sstream>

#include "caffe/mem/mem_param_check.hpp"
#include "caffe/net.hpp"
#include "caffe/parallel/data_parallel.hpp"

namespace caffe {

namespace {

std::string Mib(size_t bytes) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.2f MiB", bytes / 1048576.0);
  return buf;
}

std::string Percent(size_t part, size_t whole) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.1f%%",
                whole ? 100.0 * part / whole : 0.0);
  return buf;
}

// Measured host bytes for building the net and running one iteration;
// with recompute_ms, also the time each layer spent recomputing.
size_t MeasurePeak(const NetParameter& param,
                   std::vector<double>* recompute_ms = nullptr) {
  const size_t before = HostBytesInUse();
  ResetHostBytesPeak();
  {
    Net<float> net(param);
    net.set_layer_timing(recompute_ms != nullptr);
    net.Forward();
    if (param.state().phase() == TRAIN) net.Backward();
    if (recompute_ms) *recompute_ms = net.recompute_ms();
  }
  const size_t peak = HostBytesPeak();
  return peak > before ? peak - before : 0;
}

enum PeakKind {
  kKeptForBackward, kInFlight, kLayerKept, kGradients, kGradientCopies,
  kRecomputed, kScratch, kNumPeakKinds
};
const char* const kPeakKindNames[kNumPeakKinds] = {
    "forward values kept for backward", "forward values in flight",
    "layers' kept memory", "gradients",
    "gradient copies (Split, Eltwise SUM)", "recomputed values",
    "layers' scratch (workspaces)"};

// Blobs whose diff a layer's backward only copies or sums from its top
// diffs: bottoms of Split and of Eltwise SUM with unit coefficients.
std::set<int> CopiedDiffBlobs(const Net<float>& net) {
  std::set<int> blobs;
  for (size_t i = 0; i < net.layers().size(); ++i) {
    const LayerParameter& lp = net.layers()[i]->layer_param();
    bool copies = lp.type() == "Split";
    if (lp.type() == "Eltwise" &&
        lp.eltwise_param().operation() == EltwiseParameter_EltwiseOp_SUM) {
      copies = true;
      for (float c : lp.eltwise_param().coeff()) copies &= c == 1.0f;
    }
    if (!copies) continue;
    const vector<int>& bottoms = net.bottom_ids(static_cast<int>(i));
    // An aliased bottom's diff is the top's memory, not a copy.
    const int aliased = net.layers()[i]->alias_bottom_diff()
                            ? net.layers()[i]->Memory().diff_alias_bottom
                            : -1;
    for (size_t k = 0; k < bottoms.size(); ++k)
      if (static_cast<int>(k) != aliased) blobs.insert(bottoms[k]);
  }
  return blobs;
}

PeakKind KindOf(const mem::Buffer& b, const mem::BufferRequest& q,
                const std::vector<mem::Step>& schedule,
                const std::set<int>& copied_diffs) {
  if (b.scratch) return kScratch;
  if (b.layer_id >= 0) return kLayerKept;
  if (b.lifetime >= 1) return kRecomputed;
  if (b.is_diff) {
    for (int id : b.blob_ids)
      if (copied_diffs.count(id)) return kGradientCopies;
    return kGradients;
  }
  const bool read_in_backward =
      q.last_step >= 0 && q.last_step < static_cast<int>(schedule.size()) &&
      schedule[q.last_step].kind == mem::Step::kBackward;
  return read_in_backward ? kKeptForBackward : kInFlight;
}

// Whether request i is counted live at `step` (as live_bytes counts it:
// of an in-place pair the plan placed together, at its hand-over step only
// the larger, or the newer when they are the same size).
bool LiveAt(const std::vector<mem::BufferRequest>& requests,
            const mem::Plan& plan, int i, int step, int steps) {
  const mem::BufferRequest& q = requests[i];
  const int last = q.shareable ? q.last_step : steps - 1;
  if (!q.bytes || step < q.first_step || step > last) return false;
  const int p = q.in_place_of;
  if (p < 0 || mem::HandOverStep(requests, i, p) != step) return true;
  const mem::Placement& mine_at = plan.placements[i];
  const mem::Placement& theirs_at = plan.placements[p];
  if (mine_at.slot != theirs_at.slot || mine_at.offset != theirs_at.offset)
    return true;  // not placed together after all: both are held
  const size_t mine = mem::AlignUp(q.bytes);
  const size_t theirs = mem::AlignUp(requests[p].bytes);
  return mine != theirs ? mine > theirs : q.first_step == step;
}

// Per layer in a recomputed segment: rerun or kept, and the extra time.
std::string FormatRecomputeLayers(const MemoryReport& r) {
  std::ostringstream s;
  size_t width = 5;
  for (const LayerRecompute& l : r.recompute_layers)
    width = std::max(width, l.layer.size());
  s << "\n  Layers in recomputed segments (" << r.recompute_layers.size()
    << "; kept: output held from the forward pass, never rerun; predicted "
    << (r.costs_measured ? "from the measured layer_costs"
                         : "as a share of the estimated forward work")
    << "; measured: one iteration of `caffe mem`'s planned run):\n";
  char line[512];
  std::snprintf(line, sizeof(line), "    %-*s  %-16s %-10s %14s %13s\n",
                static_cast<int>(width), "layer", "type", "decision",
                "predicted", "measured ms");
  s << line;
  double predicted = 0, measured = 0;
  for (const LayerRecompute& l : r.recompute_layers) {
    char pred[32] = "-";
    if (l.recomputed) {
      if (r.costs_measured) {
        std::snprintf(pred, sizeof(pred), "%.3f ms", l.predicted);
      } else {
        std::snprintf(pred, sizeof(pred), "%.2f%%", 100 * l.predicted);
      }
    }
    std::snprintf(line, sizeof(line), "    %-*s  %-16s %-10s %14s %13.3f\n",
                  static_cast<int>(width), l.layer.c_str(), l.type.c_str(),
                  l.recomputed ? "recomputed" : "kept", pred, l.measured_ms);
    s << line;
    predicted += l.predicted;
    measured += l.measured_ms;
  }
  if (r.costs_measured) {
    std::snprintf(line, sizeof(line),
                  "    total: predicted %.3f ms, measured %.3f ms\n", predicted,
                  measured);
  } else {
    std::snprintf(line, sizeof(line),
                  "    total: predicted %.2f%% of forward, measured %.3f ms\n",
                  100 * predicted, measured);
  }
  s << line;
  return s.str();
}

}  // namespace

MemoryReport BuildMemoryReport(const NetParameter& in, Phase phase,
                               int level) {
  MemoryReport r;
  r.phase = phase;
  r.level = level;
  NetParameter param = in;
  param.mutable_state()->set_phase(phase);
  MemoryOptimizationParameter mp = in.mem_param();
  mp.set_optimize_train(true);
  mp.set_optimize_test(true);
  mp.set_level(level);
  param.mutable_mem_param()->CopyFrom(mp);

  Net<float> net(param);
  r.net_name = net.name();
  const NetMemory& memory = *net.memory();
  r.requests = memory.requests();
  r.plan = memory.plan();
  r.lower_bound = r.plan.lower_bound;
  // Layers' kept memory is in the plan (and so in activation_bytes); the
  // rest of their internal memory stays outside it.
  size_t kept_bytes = 0;
  for (size_t i = 0; i < memory.buffers().size(); ++i) {
    if (memory.buffers()[i].lifetime >= 1) continue;  // counted once
    r.activation_bytes += r.requests[i].bytes;
    if (memory.buffers()[i].layer_id >= 0 && !memory.buffers()[i].scratch)
      kept_bytes += r.requests[i].bytes;
    if (!r.requests[i].shareable) r.pinned_bytes += r.requests[i].bytes;
  }
  for (Blob<float>* p : net.learnable_params())
    r.param_bytes += 2 * p->count() * sizeof(float);
  if (phase == TRAIN) {
    for (const GradientToReduce& g : GradientsToReduce(net))
      r.reduce_bucket_bytes += g.count * sizeof(float);
  }
  for (size_t i = 0; i < net.layers().size(); ++i) {
    // A layer that reads the previous layer's kept output instead of its
    // own copy saves what Caffe 1.0 would allocate for it: count it where
    // the plan's activations are, so the saving shows against them.
    const size_t bytes = net.layers()[i]->InternalBytes();
    if (net.borrows_kept_output(static_cast<int>(i))) {
      r.activation_bytes += bytes;
    } else {
      r.internal_bytes += bytes;
    }
  }
  r.internal_bytes -= std::min(kept_bytes, r.internal_bytes);
  for (int lv = 0; lv <= 2; ++lv)
    r.planned_bytes[lv] = mem::MakePlan(r.requests, lv).total_bytes();

  const int layers = static_cast<int>(net.layers().size());
  const int steps = memory.num_steps();
  r.step_labels.resize(steps);
  static const char* kKind[] = {" forward", " recompute", " backward"};
  for (int s = 0; s < steps; ++s) {
    const mem::Step& step = memory.schedule()[s];
    r.step_labels[s] = net.layer_names()[step.layer] + kKind[step.kind];
    r.recompute_step.push_back(step.kind == mem::Step::kRecompute);
  }
  for (const mem::Buffer& b : memory.buffers())
    r.recomputed_request.push_back(b.lifetime >= 1 && !b.scratch);
  r.workspace_limit = mem::WorkspaceLimitBytes(memory.param(), r.net_name);
  for (size_t i = 0; i < memory.buffers().size(); ++i) {
    const mem::Buffer& b = memory.buffers()[i];
    if (b.scratch && memory.requests()[i].bytes > r.largest_scratch) {
      r.largest_scratch = memory.requests()[i].bytes;
      r.largest_scratch_layer = net.layer_names()[b.layer_id];
    }
  }
  r.checkpoints = memory.checkpoints();
  for (const mem::Segment& seg : memory.segments()) {
    if (!seg.nested) continue;
    ++r.nested_parts;
    r.nested_spans.push_back(net.layer_names()[seg.begin] + " .. " +
                             net.layer_names()[seg.end]);
  }
  for (size_t k = 0; k + 1 < memory.segments().size(); ++k)
    r.checkpoint_steps.push_back(memory.ForwardStep(memory.segments()[k].end));
  r.extra_forward_fraction = memory.extra_forward_fraction();
  r.costs_measured = memory.graph().costs_measured;
  if (memory.recomputes()) {
    const int last = static_cast<int>(memory.segments().size()) - 1;
    double total_cost = 0;
    for (int i = 0; i < layers; ++i) total_cost += memory.layer_cost(i);
    for (int i = 0; i < layers; ++i) {
      if (memory.SegmentOf(i) == last) continue;
      LayerRecompute l;
      l.layer_id = i;
      l.layer = net.layer_names()[i];
      l.type = net.layers()[i]->type();
      l.recomputed = memory.recomputable(i);
      if (l.recomputed) {
        l.predicted = r.costs_measured || total_cost <= 0
                          ? memory.layer_cost(i)
                          : memory.layer_cost(i) / total_cost;
        // A nested part reruns its layers twice: the group's run and its own.
        if (memory.segments()[memory.SegmentOf(i)].nested) l.predicted *= 2;
      }
      r.recompute_layers.push_back(l);
    }
  }
  r.bytes_without_recompute = memory.bytes_without_recompute();
  // Live bytes per step count pinned buffers only while they are in use,
  // as an unoptimized net would hold them from first touch on.
  r.live_bytes.assign(steps, 0);
  for (size_t i = 0; i < r.requests.size(); ++i) {
    const mem::BufferRequest& q = r.requests[i];
    for (int s = std::max(q.first_step, 0); s < steps; ++s)
      if (LiveAt(r.requests, r.plan, static_cast<int>(i), s, steps))
        r.live_bytes[s] += mem::AlignUp(q.bytes);
  }
  if (phase == TEST) {
    r.step_labels.resize(layers);
    r.recompute_step.resize(layers);
    r.live_bytes.resize(layers);
  }
  if (!r.live_bytes.empty()) {
    r.peak_step = static_cast<int>(
        std::max_element(r.live_bytes.begin(), r.live_bytes.end()) -
        r.live_bytes.begin());
    const std::set<int> copied = CopiedDiffBlobs(net);
    r.peak_breakdown.resize(kNumPeakKinds);
    for (int k = 0; k < kNumPeakKinds; ++k)
      r.peak_breakdown[k].kind = kPeakKindNames[k];
    std::map<std::string, PeakShare> kept_by_type, read_by_type;
    auto add = [](std::map<std::string, PeakShare>* m, const string& type,
                  size_t bytes) {
      PeakShare& t = (*m)[type];
      t.kind = type;
      t.bytes += bytes;
      ++t.buffers;
    };
    for (size_t i = 0; i < r.requests.size(); ++i) {
      if (!LiveAt(r.requests, r.plan, static_cast<int>(i), r.peak_step,
                  steps))
        continue;
      const mem::Buffer& buffer = memory.buffers()[i];
      const size_t bytes = mem::AlignUp(r.requests[i].bytes);
      const PeakKind kind =
          KindOf(buffer, r.requests[i], memory.schedule(), copied);
      PeakShare& share = r.peak_breakdown[kind];
      share.bytes += bytes;
      ++share.buffers;
      if (kind == kLayerKept)
        add(&kept_by_type, net.layers()[buffer.layer_id]->type(), bytes);
      if (kind == kKeptForBackward) {
        const int reader = memory.schedule()[r.requests[i].last_step].layer;
        add(&read_by_type, net.layers()[reader]->type(), bytes);
      }
    }
    auto largest_first = [](const std::map<std::string, PeakShare>& m) {
      std::vector<PeakShare> v;
      for (const auto& entry : m) v.push_back(entry.second);
      std::stable_sort(v.begin(), v.end(),
                       [](const PeakShare& a, const PeakShare& b) {
                         return a.bytes > b.bytes;
                       });
      return v;
    };
    r.peak_kept_by_type = largest_first(kept_by_type);
    r.peak_read_by_type = largest_first(read_by_type);
  }
  if (!net.blobs().empty() && net.blobs()[0]->num_axes() > 0)
    r.batch = net.blobs()[0]->shape(0);

  NetParameter plain = param;
  plain.clear_mem_param();
  r.measured_peak_plain = MeasurePeak(plain);
  std::vector<double> recompute_ms;
  r.measured_peak_planned = MeasurePeak(param, &recompute_ms);
  for (LayerRecompute& l : r.recompute_layers) {
    // The measured net is built from the same parameters: same layers.
    if (l.layer_id < static_cast<int>(recompute_ms.size()))
      l.measured_ms = recompute_ms[l.layer_id];
  }
  return r;
}

std::string FormatMemoryReport(const MemoryReport& r) {
  std::ostringstream s;
  s << "Memory plan for net '" << r.net_name << "' ("
    << (r.phase == TRAIN ? "TRAIN" : "TEST") << ")\n\n";
  s << "Live activation bytes per step:\n";
  size_t width = 10;
  for (const std::string& l : r.step_labels) width = std::max(width, l.size());
  for (size_t i = 0; i < r.step_labels.size(); ++i) {
    char line[512];
    std::snprintf(line, sizeof(line), "  %4zu  %-*s  %14zu  %s\n", i,
                  static_cast<int>(width), r.step_labels[i].c_str(),
                  r.live_bytes[i], Mib(r.live_bytes[i]).c_str());
    s << line;
  }
  const size_t fixed = r.param_bytes + r.internal_bytes;
  s << "\nTotals (bytes):\n";
  s << "  Caffe 1.0 (unoptimized):      " << r.caffe_bytes() << "  ("
    << Mib(r.caffe_bytes()) << ": activations " << Mib(r.activation_bytes)
    << ", parameters " << Mib(r.param_bytes) << ", layer buffers "
    << Mib(r.internal_bytes) << ")\n";
  s << "  lower bound (activations):    " << r.lower_bound + r.pinned_bytes
    << "  (" << Mib(r.lower_bound + r.pinned_bytes) << ", of which "
    << Mib(r.pinned_bytes) << " never shared)\n";
  for (int lv = 0; lv <= 2; ++lv) {
    s << "  planned, level " << lv << ":            "
      << r.planned_bytes[lv] + fixed << "  ("
      << Mib(r.planned_bytes[lv] + fixed) << ", activations "
      << Mib(r.planned_bytes[lv]) << " = "
      << Percent(r.planned_bytes[lv], r.activation_bytes)
      << " of unoptimized)\n";
  }
  if (!r.checkpoints.empty()) {
    s << "  recomputation: " << r.checkpoints.size() << " checkpoints (";
    for (size_t k = 0; k < r.checkpoints.size(); ++k)
      s << (k ? ", " : "") << r.checkpoints[k];
    s << ")\n    planned at level " << r.level << " without recomputation: "
      << r.bytes_without_recompute + fixed << "  ("
      << Mib(r.bytes_without_recompute + fixed) << ", activations "
      << Mib(r.bytes_without_recompute) << ")\n    with recomputation:    "
      << "          " << r.plan.total_bytes() + fixed << "  ("
      << Mib(r.plan.total_bytes() + fixed) << ", activations "
      << Mib(r.plan.total_bytes()) << ")\n    extra forward work: "
      << Percent(static_cast<size_t>(r.extra_forward_fraction * 1e6), 1000000)
      << " of one forward pass\n";
    if (r.nested_parts > 0) {
      s << "    nested (levels: 2): " << r.nested_parts
        << " parts run a third time, just before their backward:";
      for (size_t k = 0; k < r.nested_spans.size(); ++k)
        s << (k ? "; " : " ") << r.nested_spans[k];
      s << "\n";
    }
    s << FormatRecomputeLayers(r);
  }
  s << "  layer workspaces: largest planned "
    << (r.largest_scratch ? Mib(r.largest_scratch) + " (" +
                                r.largest_scratch_layer + ")"
                          : std::string("none (levels 0 and 1 leave them "
                                        "to a per-thread buffer)"))
    << "; limit per library call " << Mib(r.workspace_limit)
    << " (mem_param.workspace_limit_mb)\n";
  if (r.reduce_bucket_bytes) {
    s << "  data-parallel (mpirun -np N): gradient buckets "
      << r.reduce_bucket_bytes << "  (" << Mib(r.reduce_bucket_bytes)
      << ") more per rank\n";
  }
  if (r.peak_step >= 0) {
    const size_t peak = r.live_bytes[r.peak_step];
    s << "\nAt the peak (step " << r.peak_step << ", "
      << r.step_labels[r.peak_step] << "): " << Mib(peak) << " live";
    if (r.batch > 0) s << ", " << Mib(peak / r.batch) << " per image";
    s << "\n";
    for (const PeakShare& share : r.peak_breakdown) {
      if (!share.buffers) continue;
      char line[256];
      std::snprintf(line, sizeof(line), "  %-38s %12s  %6s", share.kind.c_str(),
                    Mib(share.bytes).c_str(),
                    Percent(share.bytes, peak).c_str());
      s << line;
      if (r.batch > 0) s << "  " << Mib(share.bytes / r.batch) << "/image";
      s << "  (" << share.buffers << " buffers)\n";
      const std::vector<PeakShare>* detail =
          share.kind == kPeakKindNames[kLayerKept] ? &r.peak_kept_by_type
          : share.kind == kPeakKindNames[kKeptForBackward]
              ? &r.peak_read_by_type
              : nullptr;
      if (detail) {
        for (const PeakShare& t : *detail) {
          std::snprintf(line, sizeof(line), "    %-36s %12s", t.kind.c_str(),
                        Mib(t.bytes).c_str());
          s << line << "  (" << t.buffers << " buffers)\n";
        }
      }
    }
    s << "\n";
  }
  s << "  measured peak, unoptimized:   " << r.measured_peak_plain << "  ("
    << Mib(r.measured_peak_plain) << ")\n";
  s << "  measured peak, level " << r.level << ":       "
    << r.measured_peak_planned << "  (" << Mib(r.measured_peak_planned)
    << ", " << Percent(r.measured_peak_planned, r.measured_peak_plain)
    << " of unoptimized)\n";
  return s.str();
}

}  // namespace caffe
