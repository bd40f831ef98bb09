// mem_report.hpp: what `caffe mem` shows about a net's memory plan.
//
// Contract: BuildMemoryReport builds the net described by `param` for
// `phase` (with mem_param forced on at `level`, whatever the prototxt says
// about optimize_train/optimize_test), runs one forward (and, in TRAIN,
// backward) pass with and without the plan to measure peaks, and returns the
// figures below.  FormatMemoryReport renders them as text; RenderMemorySvg
// draws the plan: each buffer is a rectangle spanning its lifetime (x, one
// column per forward, recompute or backward step) at its place in memory
// (y), with the lower bound and the live bytes per step as lines, the peak
// step, the checkpoints, the recompute steps and the buffers that
// recomputation fills again marked (mem_report_svg.cpp).
// It builds nets, so it lives beside the tools, outside the memory engine
// (src/caffe/mem never includes net.hpp: no cycle between Net and it).
#ifndef CAFFE_UTIL_MEM_REPORT_HPP_
#define CAFFE_UTIL_MEM_REPORT_HPP_

#include <string>
#include <vector>

#include "caffe/mem/planner.hpp"
#include "caffe/proto/caffe.pb.h"

namespace caffe {

// A part of the bytes live at the plan's peak (see MemoryReport).
struct PeakShare {
  std::string kind;
  size_t bytes = 0;
  int buffers = 0;
};

// A layer of a recomputed segment: rerun during backward, or kept (its
// output held from the forward pass: a layer that cannot run twice, or
// an expensive one CHEAP or BUDGET keeps).  predicted: its forward cost,
// milliseconds when MemoryReport::costs_measured, else a fraction of the
// net's estimated forward work; 0 when kept.  measured_ms: the time it
// spent recomputing in one iteration of the planned run.
struct LayerRecompute {
  int layer_id = 0;
  std::string layer, type;
  bool recomputed = false;
  double predicted = 0;
  double measured_ms = 0;
};

struct MemoryReport {
  std::string net_name;
  Phase phase = TRAIN;
  int level = 2;
  std::vector<std::string> step_labels;   // "conv1 forward", ...
  std::vector<bool> recompute_step;       // step i reruns a forward
  std::vector<size_t> live_bytes;         // all activations live per step
  // What Caffe 1.0 allocates for the same net.
  // Data and diff of every blob (unique memory) and the layers' kept
  // memory (masks, saved statistics), all of which the plan places.
  size_t activation_bytes = 0;
  size_t param_bytes = 0;       // learnable parameters, data and diff
  size_t internal_bytes = 0;    // layers' other buffers, outside the plan
  // TRAIN: what each rank of a data-parallel job (mpirun) adds for the
  // gradient buckets it sums across ranks.
  size_t reduce_bucket_bytes = 0;
  size_t caffe_bytes() const {
    return activation_bytes + param_bytes + internal_bytes;
  }
  size_t lower_bound = 0;            // shared part: can't plan below this
  size_t pinned_bytes = 0;           // never shared (inputs, outputs, ...)
  size_t planned_bytes[3] = {0, 0, 0};  // activations planned, per level
  size_t measured_peak_plain = 0;    // measured host peak, unoptimized
  size_t measured_peak_planned = 0;  // measured host peak, at `level`
  // Recomputation (empty without it): the blobs kept at segment ends, the
  // forward step of each, the extra forward work over one forward pass,
  // and the planned activation bytes without recomputation.
  std::vector<std::string> checkpoints;
  std::vector<int> checkpoint_steps;
  // recompute levels: 2: the parts that run a third time (mem/recompute.hpp).
  int nested_parts = 0;
  std::vector<std::string> nested_spans;  // "first .. last" layer of each
  double extra_forward_fraction = 0;
  size_t bytes_without_recompute = 0;
  bool costs_measured = false;  // mem_param.recompute.layer_costs
  std::vector<LayerRecompute> recompute_layers;
  // Where the bytes live at the peak of live_bytes (step peak_step) go,
  // by what they hold, in this order: forward values a later backward
  // step reads ("kept for backward"), forward values only forward steps
  // still read ("in flight"), layers' kept memory (masks, saved
  // statistics), gradients, gradient copies (diffs of Split and unit
  // Eltwise SUM bottoms, whose backward only copies or sums top diffs:
  // what aliasing could remove) and values recomputation fills again.
  // The shares sum to live_bytes[peak_step].  batch: the first axis of
  // the net's first blob, for per-image figures (0 when none).
  int peak_step = -1;
  int batch = 0;
  std::vector<PeakShare> peak_breakdown;
  // The layers' kept memory live at the peak by layer type, largest
  // first (which layers' storage the plan cannot share away).
  std::vector<PeakShare> peak_kept_by_type;
  // The forward values kept for backward at the peak, by the type of the
  // layer whose backward reads each last, largest first.
  std::vector<PeakShare> peak_read_by_type;
  // The plan at `level`, for drawing; recomputed_request[i]: request i is
  // a lifetime that recomputation starts (the memory is filled again).
  std::vector<mem::BufferRequest> requests;
  std::vector<bool> recomputed_request;
  mem::Plan plan;

  // Layers' workspaces: mem_param.workspace_limit_mb in bytes, and the
  // largest scratch the plan places (0 when it plans none: levels 0, 1).
  size_t workspace_limit = 0;
  size_t largest_scratch = 0;
  std::string largest_scratch_layer;
};

MemoryReport BuildMemoryReport(const NetParameter& param, Phase phase,
                               int level);
std::string FormatMemoryReport(const MemoryReport& report);
std::string RenderMemorySvg(const MemoryReport& report);

}  // namespace caffe

#endif  // CAFFE_UTIL_MEM_REPORT_HPP_
