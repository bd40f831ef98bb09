// caffe: the command-line front end, with Caffe 1.0's subcommands and flags.
//
//   caffe train --solver=s.prototxt [--snapshot=x.solverstate | --weights=a,b]
//   caffe test  --model=net.prototxt --weights=w.caffemodel [--iterations=50]
//   caffe time  --model=net.prototxt [--iterations=50] [--phase=TRAIN]
//   caffe device_query
//   mpirun -np N caffe train ...   data-parallel over N ranks
//                                  (docs/distributed.md)
//
// Every user error ends with "Error: <what, naming file/layer/blob>" on
// stderr and exit status 1; nothing aborts.
#include <gflags/gflags.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstring>
#include <iomanip>
#include <iostream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "caffe/caffe.hpp"
#include "caffe/memory_resource.hpp"
#include "caffe/parallel/distributed.hpp"
#include "caffe/parallel/multi_device.hpp"
#include "caffe/parallel/nccl_communicator.hpp"
#include "caffe/util/gpu_math_options.hpp"
#include "caffe/util/layer_costs.hpp"
#include "caffe/util/mem_report.hpp"
#ifdef WITH_PYTHON_LAYER
#include "caffe/python_layer.hpp"
#endif

using caffe::Blob;
using caffe::Caffe;
using caffe::Error;
using caffe::Layer;
using caffe::Net;
using caffe::Solver;
namespace SolverAction = caffe::SolverAction;
using caffe::shared_ptr;
using caffe::string;
using caffe::vector;

DEFINE_string(gpu, "",
              "GPU ids to run on: '0', '0,1' or 'all'; without it, the CPU.  "
              "'train' on several GPUs trains one model with NCCL (a thread "
              "per GPU); 'test' and 'time' use the first.  Under mpirun each "
              "rank takes the listed GPU of its local rank.");
DEFINE_string(solver, "", "The solver definition protocol buffer text file.");
DEFINE_string(model, "", "The model definition protocol buffer text file.");
DEFINE_string(phase, "", "Network phase (TRAIN or TEST). Only used for 'time'.");
DEFINE_int32(level, 0,
             "Network level (NetState); for 'mem', the plan level 0, 1 or 2 "
             "(default 2).");
DEFINE_string(stage, "",
              "Network stages (comma-separated), in addition to the solver's.");
DEFINE_string(snapshot, "", "A .solverstate to resume training from.");
DEFINE_string(weights, "",
              "Pretrained weights to initialize fine-tuning, comma-separated "
              "list of .caffemodel files. Cannot be set with --snapshot.");
DEFINE_int32(iterations, 50, "The number of iterations to run.");
DEFINE_string(plot, "", "For 'mem': write the plan as an SVG drawing here.");
DEFINE_string(layer_costs, "",
              "For 'time': write each layer's mean forward time here, for "
              "mem_param { recompute { layer_costs: FILE } }.");
DEFINE_bool(fuse_chains, true,
            "For 'time': run in-place BatchNorm/Scale/ReLU chains fused "
            "(false: layer by layer, to compare).");
DEFINE_bool(allow_tf32, false,
            "GPU: let float convolutions and cuBLAS use TF32 tensor cores "
            "(faster; results further from the CPU's).");
DEFINE_bool(allow_nondeterministic, false,
            "GPU: let cuDNN convolutions use algorithms whose sums vary "
            "in order (faster for some shapes; results repeat only "
            "within a tolerance, with or without mem_param).");
DEFINE_string(conv_algo, "heuristic",
              "GPU: how cuDNN convolution algorithms are ranked: heuristic "
              "(cuDNN's heuristics) or find (timed once per shape).");
DEFINE_int32(channel_split, 0,
             "GPU: blocks that share each channel of the channel sums "
             "(BatchNorm, Scale, Bias): 0 by shape, 1 to 8 fixed (to "
             "compare).");
DEFINE_string(sigint_effect, "stop",
              "What to do on SIGINT (Ctrl-C): snapshot, stop or none.");
DEFINE_string(sighup_effect, "snapshot",
              "What to do on SIGHUP: snapshot, stop or none.");
DEFINE_string(sigusr1_effect, "none",
              "What to do on SIGUSR1 (mpirun forwards it to every rank): "
              "snapshot, stop or none.");
DEFINE_string(sigusr2_effect, "none",
              "What to do on SIGUSR2 (mpirun forwards it to every rank): "
              "snapshot, stop or none.");
DEFINE_double(dist_timeout, 600,
              "Data-parallel jobs: end the job when one collective "
              "(gradient sum, broadcast) takes longer than this many "
              "seconds, because a peer stalled or died (0: wait forever).");

namespace {

typedef int (*BrewFunction)();
std::map<string, BrewFunction>& Registry() {
  static std::map<string, BrewFunction> registry;
  return registry;
}

struct BrewRegisterer {
  BrewRegisterer(const char* name, BrewFunction f) { Registry()[name] = f; }
};
#define REGISTER_BREW(func) static BrewRegisterer g_brew_##func(#func, &func)

vector<string> SplitList(const string& s) {
  vector<string> out;
  size_t start = 0;
  while (start <= s.size()) {
    size_t comma = s.find(',', start);
    if (comma == string::npos) comma = s.size();
    if (comma > start) out.push_back(s.substr(start, comma - start));
    start = comma + 1;
  }
  return out;
}

// The GPUs from --gpu, as Caffe 1.0 reads it: empty means the CPU, "all"
// every GPU, "0" or "0,1" those ids.  Selects the first (or, under mpirun,
// the one of this rank's local rank) and returns them all; `several` says
// whether the caller trains on several.
vector<int> SelectDevice(bool several = false) {
  Caffe::set_mode(Caffe::CPU);
  if (FLAGS_gpu.empty()) return {};
  string why;
  const int count = Caffe::GpuCount(&why);
  if (count == 0)
    throw Error("--gpu=" + FLAGS_gpu + ": " + why +
                "; drop --gpu to run on the CPU");
  vector<int> ids;
  if (FLAGS_gpu == "all") {
    for (int i = 0; i < count; ++i) ids.push_back(i);
  } else {
    for (const string& id : SplitList(FLAGS_gpu)) {
      char* end = nullptr;
      const long value = std::strtol(id.c_str(), &end, 10);
      if (id.empty() || *end != '\0' || value < 0 || value >= count)
        throw Error("--gpu=" + FLAGS_gpu + ": '" + id +
                    "' is not a GPU id on this machine (0 to " +
                    std::to_string(count - 1) + ")");
      ids.push_back(static_cast<int>(value));
    }
  }
  int chosen = ids[0];
  if (caffe::DistributedCommunicator() && ids.size() > 1) {
    // One GPU per rank of an mpirun job: the local rank's.
    const int local = caffe::LaunchLocalRank();
    if (local >= static_cast<int>(ids.size()))
      throw Error("--gpu=" + FLAGS_gpu + " names " +
                  std::to_string(ids.size()) + " GPUs, but local rank " +
                  std::to_string(local) + " of this machine needs one of "
                  "its own");
    chosen = ids[local];
    ids = {chosen};
  } else if (ids.size() > 1 && !several) {
    LOG(INFO) << "--gpu=" << FLAGS_gpu << ": using the first, GPU " << chosen;
  }
  Caffe::SetDevice(chosen);
  Caffe::set_mode(Caffe::GPU);
  LOG(INFO) << "Using GPU " << chosen;
  return ids;
}

// Under mpirun on GPUs, the solver's collectives go over NCCL (its id
// handed out over MPI); MPI still ends the job on an error.
std::unique_ptr<caffe::Communicator> JoinNcclUnderMpi() {
  caffe::Communicator* mpi = caffe::DistributedCommunicator();
  if (!mpi || Caffe::mode() != Caffe::GPU) return nullptr;
  if (!caffe::NcclSupported()) {
    LOG(WARNING) << "No NCCL in this build: gradients go through MPI and "
                    "host memory";
    return nullptr;
  }
  return caffe::JoinNccl(mpi);
}

caffe::Phase GetPhase(caffe::Phase default_phase) {
  if (FLAGS_phase.empty()) return default_phase;
  if (FLAGS_phase == "TRAIN") return caffe::TRAIN;
  if (FLAGS_phase == "TEST") return caffe::TEST;
  throw Error("--phase must be TRAIN or TEST, not '" + FLAGS_phase + "'");
}

// Signals only set flags; the solver polls them between iterations.
std::atomic<int> g_sigint(0), g_sighup(0), g_sigusr1(0), g_sigusr2(0);
void HandleSignal(int sig) {
  if (sig == SIGINT) g_sigint = 1;
  if (sig == SIGHUP) g_sighup = 1;
  if (sig == SIGUSR1) g_sigusr1 = 1;
  if (sig == SIGUSR2) g_sigusr2 = 1;
}

SolverAction::Enum ParseEffect(const string& effect) {
  if (effect == "stop") return SolverAction::STOP;
  if (effect == "snapshot") return SolverAction::SNAPSHOT;
  if (effect == "none") return SolverAction::NONE;
  throw Error("invalid signal effect '" + effect +
              "' (use stop, snapshot or none)");
}

void CopyLayers(Solver<float>* solver, const string& model_list) {
  // Data-parallel: rank 0 reads the weights and hands them to the others
  // (which may run on machines without the file).
  if (!Caffe::root_solver()) return;
  for (const string& w : SplitList(model_list)) {
    LOG(INFO) << "Finetuning from " << w;
    solver->net()->CopyTrainedLayersFrom(w);
    for (const auto& test_net : solver->test_nets())
      test_net->CopyTrainedLayersFrom(w);
  }
}

int device_query() {
  Caffe::DeviceQuery();
  return 0;
}
REGISTER_BREW(device_query);

int train() {
  if (FLAGS_solver.empty()) throw Error("train needs --solver=<prototxt>");
  if (!FLAGS_snapshot.empty() && !FLAGS_weights.empty())
    throw Error("give --snapshot or --weights, not both");
  caffe::SolverParameter solver_param;
  caffe::ReadSolverParamsFromTextFileOrDie(FLAGS_solver, &solver_param);
  solver_param.mutable_train_state()->set_level(FLAGS_level);
  for (const string& s : SplitList(FLAGS_stage))
    solver_param.mutable_train_state()->add_stage(s);
  // Without --gpu, an explicit solver_mode: GPU picks device_id (Caffe
  // 1.0's rule); where there is no GPU the run stays on the CPU, saying so.
  if (FLAGS_gpu.empty() && solver_param.has_solver_mode() &&
      solver_param.solver_mode() == caffe::SolverParameter_SolverMode_GPU) {
    string why;
    if (Caffe::GpuCount(&why) > 0) {
      FLAGS_gpu = std::to_string(solver_param.device_id());
    } else {
      LOG(INFO) << "solver_mode is GPU but " << why << "; using the CPU.";
    }
  }
  const vector<int> gpus = SelectDevice(true);
  const SolverAction::Enum on_int = ParseEffect(FLAGS_sigint_effect);
  const SolverAction::Enum on_hup = ParseEffect(FLAGS_sighup_effect);
  const SolverAction::Enum on_usr1 = ParseEffect(FLAGS_sigusr1_effect);
  const SolverAction::Enum on_usr2 = ParseEffect(FLAGS_sigusr2_effect);
  std::signal(SIGINT, HandleSignal);
  std::signal(SIGHUP, HandleSignal);
  if (on_usr1 != SolverAction::NONE) std::signal(SIGUSR1, HandleSignal);
  if (on_usr2 != SolverAction::NONE) std::signal(SIGUSR2, HandleSignal);

  auto solve = [&]() {
    shared_ptr<Solver<float> > solver(
        caffe::SolverRegistry<float>::CreateSolver(solver_param));
    solver->SetActionFunction([on_int, on_hup, on_usr1, on_usr2]() {
      if (g_sigint.exchange(0)) return on_int;
      if (g_sighup.exchange(0)) return on_hup;
      if (g_sigusr1.exchange(0)) return on_usr1;
      if (g_sigusr2.exchange(0)) return on_usr2;
      return SolverAction::NONE;
    });
    if (!FLAGS_snapshot.empty()) {
      LOG(INFO) << "Resuming from " << FLAGS_snapshot;
      solver->Solve(FLAGS_snapshot);
    } else {
      if (!FLAGS_weights.empty()) CopyLayers(solver.get(), FLAGS_weights);
      solver->Solve();
    }
  };
  if (gpus.size() > 1) {
    // Caffe 1.0's multi-GPU training: a solver per GPU, one model.
    LOG(INFO) << "Training on " << gpus.size() << " GPUs with NCCL";
    caffe::RunOnGpus(gpus, [&](int) { solve(); });
  } else {
    const std::unique_ptr<caffe::Communicator> nccl = JoinNcclUnderMpi();
    const caffe::ThreadCommunicatorScope scope(
        nccl ? nccl.get() : caffe::ThreadCommunicatorOrNull());
    solve();
  }
  LOG(INFO) << "Optimization Done.";
  return 0;
}
REGISTER_BREW(train);

int test() {
  if (FLAGS_model.empty()) throw Error("test needs --model=<prototxt>");
  if (FLAGS_weights.empty()) throw Error("test needs --weights=<caffemodel>");
  SelectDevice();
  vector<string> stages = SplitList(FLAGS_stage);
  Net<float> net(FLAGS_model, caffe::TEST, FLAGS_level, &stages);
  net.CopyTrainedLayersFrom(FLAGS_weights);
  LOG(INFO) << "Running for " << FLAGS_iterations << " iterations.";
  vector<int> test_score_output_id;
  vector<float> test_score;
  float loss = 0;
  for (int i = 0; i < FLAGS_iterations; ++i) {
    float iter_loss;
    const vector<Blob<float>*>& result = net.Forward(&iter_loss);
    loss += iter_loss;
    int idx = 0;
    for (size_t j = 0; j < result.size(); ++j) {
      const float* result_vec = result[j]->cpu_data();
      for (int k = 0; k < result[j]->count(); ++k, ++idx) {
        const float score = result_vec[k];
        if (i == 0) {
          test_score.push_back(score);
          test_score_output_id.push_back(j);
        } else {
          test_score[idx] += score;
        }
        LOG(INFO) << "Batch " << i << ", "
                  << net.blob_names()[net.output_blob_indices()[j]] << " = "
                  << score;
      }
    }
  }
  loss /= FLAGS_iterations;
  LOG(INFO) << "Loss: " << loss;
  for (size_t i = 0; i < test_score.size(); ++i) {
    const int blob = net.output_blob_indices()[test_score_output_id[i]];
    const string& output_name = net.blob_names()[blob];
    const float loss_weight = net.blob_loss_weights()[blob];
    const float mean_score = test_score[i] / FLAGS_iterations;
    std::ostringstream loss_msg;
    if (loss_weight)
      loss_msg << " (* " << loss_weight << " = " << loss_weight * mean_score
               << " loss)";
    LOG(INFO) << output_name << " = " << mean_score << loss_msg.str();
  }
  return 0;
}
REGISTER_BREW(test);

double MsSince(std::chrono::steady_clock::time_point t) {
  Caffe::Synchronize();  // time GPU work, not its launch
  return std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now() - t)
      .count();
}

// " (fused: in <layer>'s time)" or " (fused: with the chain's layers)".
string FusedNote(const Net<float>& net, int layer, int into) {
  if (into < 0) return "";
  if (into != layer)
    return " (fused: in " + net.layer_names()[into] + "'s time)";
  return " (fused: includes its chain's layers)";
}

int time() {
  if (FLAGS_model.empty()) throw Error("time needs --model=<prototxt>");
  SelectDevice();
  const caffe::Phase phase = GetPhase(caffe::TRAIN);
  vector<string> stages = SplitList(FLAGS_stage);
  Net<float> net(FLAGS_model, phase, FLAGS_level, &stages);
  net.set_fuse_chains(FLAGS_fuse_chains);
  LOG(INFO) << "Performing Forward";
  float initial_loss;
  net.Forward(&initial_loss);
  LOG(INFO) << "Initial loss: " << initial_loss;
  if (!(net.memory() && net.memory()->forward_only())) {
    LOG(INFO) << "Performing Backward";
    net.Backward();
  }

  // Timed through the net so that mem_param's per-step work (DYNAMIC
  // release, recomputation) is measured as training runs it.  A net
  // planned for forward only (TEST with mem_param) is timed forward only.
  const bool backward = !(net.memory() && net.memory()->forward_only());
  const vector<shared_ptr<Layer<float> > >& layers = net.layers();
  LOG(INFO) << "*** Benchmark begins ***";
  LOG(INFO) << "Testing for " << FLAGS_iterations << " iterations.";
  net.set_layer_timing(true);
  double forward_time = 0.0, backward_time = 0.0;
  auto total_start = std::chrono::steady_clock::now();
  for (int j = 0; j < FLAGS_iterations; ++j) {
    auto iter_start = std::chrono::steady_clock::now();
    net.Forward();
    const double forward_ms = MsSince(iter_start);
    forward_time += forward_ms;
    auto bwd_start = std::chrono::steady_clock::now();
    if (backward) net.Backward();
    backward_time += MsSince(bwd_start);
    // Caffe's line as it was (log parsers read it); the forward part on a
    // line of its own, so that one iteration's forward can be compared
    // with a net planned for forward only.
    if (backward)
      LOG(INFO) << "Iteration: " << j + 1 << " forward time: " << forward_ms
                << " ms.";
    LOG(INFO) << "Iteration: " << j + 1
              << " forward-backward time: " << MsSince(iter_start) << " ms.";
  }
  double recompute_time = 0.0;
  LOG(INFO) << "Average time per layer: ";
  for (size_t i = 0; i < layers.size(); ++i) {
    const string& layername = layers[i]->layer_param().name();
    // A fused chain's time is reported on one member (net.hpp).
    const int fwd_into = net.fused_forward_into(static_cast<int>(i));
    const int bwd_into = net.fused_backward_into(static_cast<int>(i));
    LOG(INFO) << std::setfill(' ') << std::setw(10) << layername
              << "\tforward: " << net.forward_ms()[i] / FLAGS_iterations
              << " ms." << FusedNote(net, static_cast<int>(i), fwd_into);
    LOG(INFO) << std::setfill(' ') << std::setw(10) << layername
              << "\tbackward: " << net.backward_ms()[i] / FLAGS_iterations
              << " ms." << FusedNote(net, static_cast<int>(i), bwd_into);
    if (net.recompute_ms()[i] > 0) {
      LOG(INFO) << std::setfill(' ') << std::setw(10) << layername
                << "\trecompute: " << net.recompute_ms()[i] / FLAGS_iterations
                << " ms.";
      recompute_time += net.recompute_ms()[i];
    }
  }
  const double total = MsSince(total_start);
  if (!FLAGS_layer_costs.empty()) {
    caffe::LayerCosts costs;
    costs.net = net.name();
    if (!net.blobs().empty() && net.blobs()[0]->num_axes() > 0)
      costs.batch = net.blobs()[0]->shape(0);
    for (size_t i = 0; i < layers.size(); ++i)
      costs.forward_ms[net.layer_names()[i]] =
          net.forward_ms()[i] / FLAGS_iterations;
    caffe::WriteLayerCosts(FLAGS_layer_costs, costs);
    LOG(INFO) << "Forward time per layer written to " << FLAGS_layer_costs;
  }
  LOG(INFO) << "Average Forward pass: " << forward_time / FLAGS_iterations
            << " ms.";
  if (backward) {
    LOG(INFO) << "Average Backward pass: " << backward_time / FLAGS_iterations
              << " ms.";
  } else {
    LOG(INFO) << "Backward skipped: the net's memory is planned for forward "
              << "passes only (mem_param optimize_test).";
  }
  if (recompute_time > 0)
    LOG(INFO) << "Average Recompute (inside Backward): "
              << recompute_time / FLAGS_iterations << " ms.";
  LOG(INFO) << "Average Forward-Backward: " << total / FLAGS_iterations
            << " ms.";
  LOG(INFO) << "Total Time: " << total << " ms.";
  if (Caffe::mode() == Caffe::GPU) {
    // Every device byte LeanCaffe allocated (blobs, the plan's arena,
    // workspaces); cuBLAS's and the CUDA context's own memory are not in it.
    LOG(INFO) << "Peak GPU memory allocated: " << caffe::DeviceBytesPeak()
              << " bytes.";
  }
  LOG(INFO) << "*** Benchmark ends ***";
  return 0;
}
REGISTER_BREW(time);

// Shows the memory plan of a net: live bytes per step, Caffe 1.0's
// footprint, the lower bound, each level's plan and measured peaks.
int mem() {
  if (FLAGS_model.empty()) throw Error("mem needs --model=<prototxt>");
  SelectDevice();
  const caffe::Phase phase = GetPhase(caffe::TRAIN);
  const bool level_given =
      !gflags::GetCommandLineFlagInfoOrDie("level").is_default;
  const int level = level_given ? FLAGS_level : 2;
  if (level < 0 || level > 2)
    throw Error("--level for mem must be 0, 1 or 2, not " +
                std::to_string(level));
  caffe::NetParameter param;
  caffe::ReadNetParamsFromTextFileOrDie(FLAGS_model, &param);
  for (const string& s : SplitList(FLAGS_stage))
    param.mutable_state()->add_stage(s);
  caffe::MemoryReport report;
  try {
    report = caffe::BuildMemoryReport(param, phase, level);
  } catch (const Error& e) {
    throw Error(FLAGS_model + ": " + e.what());
  }
  std::cout << caffe::FormatMemoryReport(report);
  if (!FLAGS_plot.empty()) {
    caffe::WriteFileAtomically(FLAGS_plot, caffe::RenderMemorySvg(report));
    std::cout << "Plot written to " << FLAGS_plot << std::endl;
  }
  return 0;
}
REGISTER_BREW(mem);

}  // namespace

int main(int argc, char** argv) {
  FLAGS_alsologtostderr = 1;
  FLAGS_minloglevel = 0;
  gflags::SetUsageMessage(
      "command line brew\n"
      "usage: caffe <command> <args>\n\n"
      "commands:\n"
      "  train           train or finetune a model\n"
      "  test            score a model\n"
      "  device_query    show GPU diagnostic information\n"
      "  time            benchmark model execution time\n"
      "  mem             show the memory plan (mem_param) of a model");
  caffe::GlobalInit(&argc, &argv);
#ifdef WITH_PYTHON_LAYER
  // Python layers find their modules next to the prototxts, as with
  // PYTHONPATH.
  caffe::RegisterPythonLayer({FLAGS_solver, FLAGS_model});
#endif
  if (argc != 2) {
    gflags::ShowUsageWithFlagsRestrict(argv[0], "tools/caffe");
    return 1;
  }
  auto it = Registry().find(argv[1]);
  if (it == Registry().end()) {
    std::cerr << "Error: unknown action '" << argv[1]
              << "' (use train, test, time, mem or device_query)" << std::endl;
    return 1;
  }
  try {
    caffe::SetAllowTf32(FLAGS_allow_tf32);
    caffe::SetAllowNondeterministic(FLAGS_allow_nondeterministic);
    caffe::SetConvAlgo(caffe::ParseConvAlgo(FLAGS_conv_algo));
    caffe::SetChannelSplit(FLAGS_channel_split);
    // Under mpirun: MPI, the rank and rank-prefixed logs from here on.
    caffe::set_dist_timeout(FLAGS_dist_timeout);
    caffe::InitDistributed();
    return it->second();
  } catch (const std::exception& e) {
    // One rank's error ends the whole job instead of leaving the others
    // waiting in a collective.
    if (caffe::DistributedCommunicator()) caffe::AbortDistributed(e.what());
    std::cerr << "Error: " << e.what() << std::endl;
    return 1;
  }
}
