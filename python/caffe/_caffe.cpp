// _caffe.cpp: the compiled core of pycaffe (float nets), Caffe 1.0's API.
//
// Contract:
//  * Names follow Caffe 1.0's _caffe module; pycaffe.py adds the Pythonic
//    layer (Net.blobs, Net.forward, ...) on top of the underscored members.
//  * Every caffe::Error becomes caffe.CaffeError (a RuntimeError) with the
//    message; other std::exceptions become RuntimeError.  Nothing a user
//    passes in can end the interpreter.
//  * Blob.data / Blob.diff are writable numpy views of the blob's CPU
//    memory.  A view keeps that memory, the bytes it points into (a
//    mem_param arena) and the net alive, so it never dangles, even after a
//    re-plan; after a reshape a view may show stale memory, as in Caffe.
//    Taking a view of memory that mem_param marked not readable (handed to
//    another blob, or not computed since it was placed) raises
//    BlobNotReadableError; the message names the fix (keep, exclude_blob,
//    forward(blobs=...)).
//  * Forward, backward, reshape and solver steps run with the GIL released;
//    Python layers take it back for their calls.
//  * A solver step polls Python's signal handlers once per iteration, so
//    Ctrl-C stops solver.step()/solve() with KeyboardInterrupt.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "caffe/caffe.hpp"
#include "caffe/layers/memory_data_layer.hpp"
#include "caffe/util/mem_report.hpp"
#include "caffe/pyblob.hpp"
#include "caffe/python_layer.hpp"
#include "caffe/sgd_solvers.hpp"
#include "caffe/util/host_memory_room.hpp"
#include "caffe/parallel/distributed.hpp"
#include "caffe/parallel/nccl_communicator.hpp"
#include "caffe/util/gpu_math_options.hpp"
#include "caffe/util/io.hpp"
#include "caffe/util/upgrade_proto.hpp"

namespace py = pybind11;

namespace caffe {

typedef Net<float> NetF;
typedef Solver<float> SolverF;

namespace {

// ---------------------------------------------------------------- helpers

// A path given as str, bytes or os.PathLike.
string PathArg(py::handle obj, const char* what) {
  if (py::isinstance<py::str>(obj) || py::isinstance<py::bytes>(obj))
    return obj.cast<string>();
  if (py::hasattr(obj, "__fspath__"))
    return py::module_::import("os").attr("fspath")(obj).cast<string>();
  throw py::type_error(string(what) + " must be a path (str or os.PathLike)");
}

vector<string> StringList(py::handle obj, const char* what) {
  vector<string> out;
  if (obj.is_none()) return out;
  if (py::isinstance<py::str>(obj))
    throw py::type_error(string(what) + " must be a list of strings, not a "
                         "string");
  for (py::handle item : obj) out.push_back(py::str(item).cast<string>());
  return out;
}

int PhaseArg(py::handle obj) {
  if (obj.is_none())
    throw py::type_error("phase is required: caffe.TRAIN or caffe.TEST");
  const int phase = obj.cast<int>();
  if (phase != TRAIN && phase != TEST)
    throw py::value_error("phase must be caffe.TRAIN (0) or caffe.TEST (1), "
                          "not " + std::to_string(phase));
  return phase;
}

vector<int> ShapeArgs(const py::args& args) {
  vector<int> shape;
  if (args.size() == 1 && !py::isinstance<py::int_>(args[0]) &&
      py::isinstance<py::sequence>(args[0])) {
    for (py::handle d : args[0]) shape.push_back(d.cast<int>());
  } else {
    for (py::handle d : args) shape.push_back(d.cast<int>());
  }
  return shape;
}

// What a numpy view keeps alive: the memory itself, the bytes it points
// into when someone else owns them (a mem_param arena or pool block), and
// the net.
struct ViewOwner {
  shared_ptr<SyncedMemory> memory;
  shared_ptr<void> bytes;
  shared_ptr<NetF> net;
};

py::array BlobView(const PyBlob& b, bool diff) {
  Blob<float>& blob = *b.blob;
  vector<py::ssize_t> shape(blob.shape().begin(), blob.shape().end());
  if (blob.count64() == 0 || !blob.data()) return py::array_t<float>(shape);
  // The const accessor is the guard: it throws BlobNotReadable for memory
  // mem_param marked; the writable pointer is taken only after it passed.
  (void)(diff ? blob.cpu_diff() : blob.cpu_data());
  float* ptr = diff ? blob.mutable_cpu_diff() : blob.mutable_cpu_data();
  const shared_ptr<SyncedMemory>& memory = diff ? blob.diff() : blob.data();
  ViewOwner* owner = new ViewOwner{memory, memory->cpu_keeper(), b.net};
  py::capsule base(owner, [](void* p) { delete static_cast<ViewOwner*>(p); });
  return py::array_t<float>(shape, ptr, base);
}

#ifdef USE_CUDA
// The GPU address of a blob's data or diff, as master's `_gpu_data_ptr`
// (for handing to other CUDA libraries).  The const accessor is the guard
// (mem_param's readability, and "no GPU" without one); the writable
// pointer is taken only after it passed.
uintptr_t GpuPointer(const PyBlob& b, bool diff) {
  Blob<float>& blob = *b.blob;
  (void)(diff ? blob.gpu_diff() : blob.gpu_data());
  return reinterpret_cast<uintptr_t>(diff ? blob.mutable_gpu_diff()
                                          : blob.mutable_gpu_data());
}
#endif

vector<Blob<float>*> RawBlobs(const vector<PyBlob>& blobs) {
  vector<Blob<float>*> raw;
  for (const PyBlob& b : blobs) raw.push_back(b.blob.get());
  return raw;
}

// ------------------------------------------------------------- Net helpers

shared_ptr<NetF> FinishNet(shared_ptr<NetF> net, py::handle weights) {
  if (!weights.is_none())
    net->CopyTrainedLayersFrom(PathArg(weights, "weights"));
  return net;
}

shared_ptr<NetF> NetFromParam(NetParameter param, const string& source,
                              int phase, int level,
                              const vector<string>& stages,
                              py::handle weights) {
  UpgradeNetAsNeeded(source, &param);
  param.mutable_state()->set_phase(static_cast<Phase>(phase));
  param.mutable_state()->set_level(level);
  for (const string& s : stages) param.mutable_state()->add_stage(s);
  shared_ptr<NetF> net;
  try {
    net = std::make_shared<NetF>(param);
  } catch (const Error& e) {
    throw Error(source + ": " + e.what());
  }
  return FinishNet(net, weights);
}

// The NetParameter a caffe_pb2.NetParameter message holds.
bool NetParamFromMessage(py::handle obj, NetParameter* param,
                         string* source) {
  if (!py::hasattr(obj, "SerializeToString")) return false;
  const string bytes = obj.attr("SerializeToString")().cast<string>();
  if (!param->ParseFromString(bytes))
    throw Error("the message given as network_file is not a NetParameter");
  *source = "NetParameter '" + param->name() + "'";
  return true;
}

shared_ptr<NetF> MakeNetWithoutKeep(py::object network, py::object phase,
                                   py::object level, py::object stages,
                                   py::object weights) {
  if (py::isinstance<py::str>(phase) || py::hasattr(phase, "__fspath__")) {
    if (!weights.is_none() || !stages.is_none())
      throw py::type_error("the legacy form is Net(network_file, "
                           "weights_file, phase)");
    weights = phase;
    phase = level;
    level = py::int_(0);
  }
  const int ph = PhaseArg(phase);
  const int lv = level.cast<int>();
  const vector<string> st = StringList(stages, "stages");
  NetParameter param;
  string source;
  if (NetParamFromMessage(network, &param, &source))
    return NetFromParam(param, source, ph, lv, st, weights);
  const string file = PathArg(network, "network_file");
  return FinishNet(
      std::make_shared<NetF>(file, static_cast<Phase>(ph), lv, &st), weights);
}

// Net(network_file, phase, level=0, stages=None, weights=None, keep=None)
// and the legacy Net(network_file, weights_file, phase).  network_file is a
// path or a caffe_pb2.NetParameter; keep lists blobs that mem_param must
// keep readable (Net.keep).
shared_ptr<NetF> MakeNet(py::object network, py::object phase,
                         py::object level, py::object stages,
                         py::object weights, py::object keep) {
  shared_ptr<NetF> net = MakeNetWithoutKeep(network, phase, level, stages,
                                            weights);
  if (!keep.is_none()) net->KeepBlobs(StringList(keep, "keep"));
  return net;
}

void SaveNet(const NetF& net, py::object filename) {
  NetParameter param;
  net.ToProto(&param, false);
  WriteProtoToBinaryFile(param, PathArg(filename, "filename"));
}

// Arrays handed to MemoryData layers stay referenced while the layer lives
// (Caffe kept them on the Python Net object, which a solver's net does not
// outlive).  Entries of layers that are gone are dropped on the next call.
struct HeldArrays {
  std::weak_ptr<Layer<float> > layer;
  py::object data, labels;
};

void HoldInputArrays(const shared_ptr<Layer<float> >& layer, py::object data,
                     py::object labels) {
  static vector<HeldArrays>* held = new vector<HeldArrays>();  // never freed:
  // it may hold Python objects past interpreter shutdown.
  held->erase(std::remove_if(held->begin(), held->end(),
                             [&](const HeldArrays& h) {
                               shared_ptr<Layer<float> > l = h.layer.lock();
                               return !l || l == layer;
                             }),
              held->end());
  held->push_back(HeldArrays{layer, data, labels});
}

py::array CheckInputArray(py::handle obj, const string& what, int channels,
                          int height, int width) {
  if (!py::isinstance<py::array>(obj))
    throw Error(what + " must be a numpy array");
  py::array arr = py::reinterpret_borrow<py::array>(obj);
  if (!arr.dtype().is(py::dtype::of<float>()))
    throw Error(what + " must be float32, not " +
                py::str(arr.dtype()).cast<string>());
  if (!(arr.flags() & py::array::c_style))
    throw Error(what + " must be C contiguous");
  if (arr.ndim() != 4)
    throw Error(what + " must be 4-d, not " + std::to_string(arr.ndim()) +
                "-d");
  const int want[3] = {channels, height, width};
  const char* axis[3] = {"channels", "height", "width"};
  for (int i = 0; i < 3; ++i) {
    if (arr.shape(i + 1) != want[i])
      throw Error(what + " has wrong " + axis[i] + ": " +
                  std::to_string(arr.shape(i + 1)) + " (the layer expects " +
                  std::to_string(want[i]) + ")");
  }
  return arr;
}

void SetInputArrays(NetF& net, py::object data, py::object labels) {
  shared_ptr<MemoryDataLayer<float> > md =
      net.layers().empty()
          ? nullptr
          : std::dynamic_pointer_cast<MemoryDataLayer<float> >(
                net.layers()[0]);
  if (!md)
    throw Error("set_input_arrays may only be called if the first layer is "
                "a MemoryData layer (net '" + net.name() + "')");
  py::array d = CheckInputArray(data, "data array", md->channels(),
                                md->height(), md->width());
  py::array l = CheckInputArray(labels, "labels array", 1, 1, 1);
  if (d.shape(0) != l.shape(0))
    throw Error("data and labels must have the same first dimension (" +
                std::to_string(d.shape(0)) + " vs " +
                std::to_string(l.shape(0)) + ")");
  if (d.shape(0) == 0 || d.shape(0) % md->batch_size() != 0)
    throw Error("first dimensions of input arrays must be a positive "
                "multiple of batch size " + std::to_string(md->batch_size()) +
                ", not " + std::to_string(d.shape(0)));
  // MemoryData only reads the arrays.
  md->Reset(static_cast<float*>(const_cast<void*>(d.data())),
            static_cast<float*>(const_cast<void*>(l.data())),
            static_cast<int>(d.shape(0)));
  HoldInputArrays(md, data, labels);
}

py::list NetLayers(const NetF& net) {
  py::list out;
  for (const shared_ptr<Layer<float> >& layer : net.layers()) {
    if (PythonLayer* pl = dynamic_cast<PythonLayer*>(layer.get())) {
      out.append(py::reinterpret_borrow<py::object>(py::handle(pl->self())));
    } else {
      PyLayerHandle h;
      h.owned = layer;
      out.append(py::cast(h));
    }
  }
  return out;
}

py::object MemoryPlanInfo(const NetF& net) {
  const NetMemory* m = net.memory();
  if (m == nullptr) return py::none();
  const mem::Plan& plan = m->plan();
  py::dict d;
  d["level"] = m->param().level();
  d["release"] = m->param().release() ==
                         MemoryOptimizationParameter_Release_DYNAMIC
                     ? "DYNAMIC"
                     : "STATIC";
  d["forward_only"] = m->forward_only();
  d["planned_bytes"] = plan.total_bytes();
  d["shared_bytes"] = plan.shared_bytes;
  d["pinned_bytes"] = plan.pinned_bytes;
  d["unoptimized_bytes"] = plan.unshared_bytes;
  d["lower_bound"] = plan.lower_bound;
  d["pool_bytes"] = m->pool_bytes();
  // Blobs asked for: kept (pinned in the plan) and requested (memory of
  // their own outside the plan, these bytes).
  d["kept_blobs"] = net.kept_blobs();
  d["detached_bytes"] = m->detached_bytes();
  // Recomputation (mem_param.recompute): the blobs kept at segment ends,
  // the extra forward work and the plan without it.
  d["checkpoints"] = m->checkpoints();
  d["extra_forward_fraction"] = m->extra_forward_fraction();
  d["bytes_without_recompute"] = m->bytes_without_recompute();
  py::list buffers;
  for (size_t i = 0; i < m->buffers().size(); ++i) {
    const auto& b = m->buffers()[i];
    const mem::BufferRequest& r = m->requests()[i];
    py::dict e;
    e["name"] = b.name;
    e["bytes"] = r.bytes;
    e["first_step"] = r.first_step;
    e["last_step"] = r.last_step;
    e["shared"] = r.shareable;
    e["pin_reason"] = b.pinned ? py::object(py::str(b.pin_reason))
                               : py::object(py::none());
    buffers.append(e);
  }
  d["buffers"] = buffers;
  return d;
}

py::dict MemReport(py::object network, py::object phase, int level) {
  NetParameter param;
  string source;
  if (!NetParamFromMessage(network, &param, &source)) {
    source = PathArg(network, "network_file");
    ReadNetParamsFromTextFileOrDie(source, &param);
  }
  MemoryReport r;
  try {
    r = BuildMemoryReport(param, static_cast<Phase>(PhaseArg(phase)), level);
  } catch (const Error& e) {
    throw Error(source + ": " + e.what());
  }
  py::dict d;
  d["net_name"] = r.net_name;
  d["activation_bytes"] = r.activation_bytes;
  d["param_bytes"] = r.param_bytes;
  d["internal_bytes"] = r.internal_bytes;
  d["caffe_bytes"] = r.caffe_bytes();
  d["lower_bound"] = r.lower_bound;
  d["pinned_bytes"] = r.pinned_bytes;
  d["planned_bytes"] = vector<size_t>(r.planned_bytes, r.planned_bytes + 3);
  d["measured_peak_plain"] = r.measured_peak_plain;
  d["measured_peak_planned"] = r.measured_peak_planned;
  // Where the bytes live at the peak go (MemoryReport::peak_breakdown).
  d["peak_step"] = r.peak_step;
  d["batch"] = r.batch;
  py::list shares;
  for (const PeakShare& share : r.peak_breakdown) {
    py::dict e;
    e["kind"] = share.kind;
    e["bytes"] = share.bytes;
    e["buffers"] = share.buffers;
    shares.append(e);
  }
  d["peak_breakdown"] = shares;
  auto by_type = [](const std::vector<PeakShare>& v) {
    py::list out;
    for (const PeakShare& t : v) {
      py::dict e;
      e["type"] = t.kind;
      e["bytes"] = t.bytes;
      e["buffers"] = t.buffers;
      out.append(e);
    }
    return out;
  };
  d["peak_kept_by_type"] = by_type(r.peak_kept_by_type);
  d["peak_read_by_type"] = by_type(r.peak_read_by_type);
  d["text"] = FormatMemoryReport(r);
  return d;
}

// ------------------------------------------ running C++ without the GIL

// A Python error raised while C++ ran without the GIL (a signal handler's
// KeyboardInterrupt, an exception from a callback), raised again in the
// caller once the C++ call has returned or unwound.
struct PendingPythonError {
  PyObject* type = nullptr;
  PyObject* value = nullptr;
  PyObject* trace = nullptr;
};
thread_local PendingPythonError g_pending;

// Thrown through C++ frames to unwind them after a Python callback raised;
// the Python error itself waits in g_pending.
struct PythonRaised : std::runtime_error {
  PythonRaised() : std::runtime_error("a Python callback raised") {}
};

// With the GIL held and a Python error set: keeps the first one.
void StashPythonError() {
  if (g_pending.type != nullptr) {
    PyErr_Clear();
    return;
  }
  PyErr_Fetch(&g_pending.type, &g_pending.value, &g_pending.trace);
}

void ClearPending() {
  Py_CLEAR(g_pending.type);
  Py_CLEAR(g_pending.value);
  Py_CLEAR(g_pending.trace);
}

void RaisePending() {
  PyErr_Restore(g_pending.type, g_pending.value, g_pending.trace);
  g_pending = PendingPythonError();
  throw py::error_already_set();
}

// Runs fn without the GIL, then raises the Python error a callback or
// signal handler left, or the C++ error fn threw.
template <typename Fn>
void RunReleased(Fn fn) {
  try {
    py::gil_scoped_release release;
    fn();
  } catch (const PythonRaised&) {
    if (g_pending.type != nullptr) RaisePending();
    throw;
  } catch (...) {
    ClearPending();
    throw;
  }
  if (g_pending.type != nullptr) RaisePending();
}

// Calls a Python callable from C++ running without the GIL.
template <typename... Args>
void CallPython(const py::object& fn, Args... args) {
  py::gil_scoped_acquire gil;
  try {
    fn(args...);
  } catch (py::error_already_set& e) {
    e.restore();
    StashPythonError();
    throw PythonRaised();
  }
}

// Drops a Python reference from C++ code that may not hold the GIL (a net
// or solver freed with its callbacks); leaks it after interpreter exit.
void ReleasePython(py::object* obj) {
  if (!Py_IsInitialized()) {
    obj->release();
    return;
  }
  py::gil_scoped_acquire gil;
  *obj = py::object();
}

// net.before_forward(fn) and the like: fn(layer_index).
class PyNetCallback : public NetF::Callback {
 public:
  explicit PyNetCallback(py::object fn) : fn_(std::move(fn)) {}
  ~PyNetCallback() override { ReleasePython(&fn_); }
  void run(int layer) override { CallPython(fn_, layer); }

 private:
  py::object fn_;
};

shared_ptr<NetF::Callback> NetCallbackArg(py::object fn) {
  if (!PyCallable_Check(fn.ptr()))
    throw py::type_error("a net callback must be callable (it is called "
                         "with the layer's index)");
  return std::make_shared<PyNetCallback>(fn);
}

// solver.add_callback(on_start, on_gradients_ready): both take no
// arguments.
class PySolverCallback : public SolverF::Callback {
 public:
  PySolverCallback(py::object on_start, py::object on_gradients_ready)
      : on_start_(std::move(on_start)),
        on_gradients_ready_(std::move(on_gradients_ready)) {}
  ~PySolverCallback() override {
    ReleasePython(&on_start_);
    ReleasePython(&on_gradients_ready_);
  }
  void on_start() override { CallPython(on_start_); }
  void on_gradients_ready() override { CallPython(on_gradients_ready_); }

 private:
  py::object on_start_, on_gradients_ready_;
};

// ---------------------------------------------------------- Solver helpers

void WatchSignals(SolverF* solver) {
  solver->SetActionFunction([]() {
    py::gil_scoped_acquire gil;
    if (g_pending.type != nullptr || PyErr_CheckSignals() == 0)
      return SolverAction::NONE;
    StashPythonError();
    return SolverAction::STOP;
  });
}

SolverParameter ReadSolverParam(py::handle path) {
  SolverParameter param;
  ReadSolverParamsFromTextFileOrDie(PathArg(path, "solver file"), &param);
  return param;
}

template <typename S>
shared_ptr<S> MakeSolver(py::object path) {
  shared_ptr<S> solver = std::make_shared<S>(ReadSolverParam(path));
  WatchSignals(solver.get());
  return solver;
}

shared_ptr<SolverF> GetSolver(py::object path) {
  shared_ptr<SolverF> solver(
      SolverRegistry<float>::CreateSolver(ReadSolverParam(path)));
  WatchSignals(solver.get());
  return solver;
}

// Caffe 1.0's Timer (host clock here).
class Timer {
 public:
  void Start() {
    if (!running_) start_ = std::chrono::steady_clock::now();
    running_ = true;
    has_run_ = true;
  }
  void Stop() {
    if (!running_) return;
    elapsed_ms_ = std::chrono::duration<double, std::milli>(
                      std::chrono::steady_clock::now() - start_)
                      .count();
    running_ = false;
  }
  double MilliSeconds() {
    if (!has_run_) return 0;
    if (running_) Stop();
    return elapsed_ms_;
  }

 private:
  std::chrono::steady_clock::time_point start_;
  double elapsed_ms_ = 0;
  bool running_ = false;
  bool has_run_ = false;
};

// caffe.NCCL(solver, uid), master's multi-GPU API: the solver becomes one
// rank (caffe.solver_rank() of caffe.solver_count()) of a job whose
// gradients NCCL sums on the GPUs (Solver::JoinDataParallel).  The
// solver's own data-parallel partner does the work, so
// solver.add_callback(nccl) and net.after_backward(nccl) only check that
// they name this solver's NCCL (overlap follows layer_wise_reduce).
struct PyNccl {
  shared_ptr<SolverF> solver;
};

// A layer's learnable blobs (Layer.blobs); add_blob is for Python layers'
// setup.
struct BlobVec {
  PyLayerHandle layer;
};

// Solvers and their Python names, bound alike.
template <typename S, typename Base>
void BindSolver(py::module_& m, const char* name) {
  py::class_<S, Base, shared_ptr<S> >(m, name).def(
      py::init(&MakeSolver<S>), py::arg("solver_file"));
}

}  // namespace
}  // namespace caffe

// ------------------------------------------------------------------ module

PYBIND11_MODULE(_caffe, m) {
  using namespace caffe;  // NOLINT(build/namespaces)
  m.doc() = "LeanCaffe's compiled pycaffe core (float nets)";
  m.attr("__version__") = "1.0.0";
  m.attr("TRAIN") = static_cast<int>(TRAIN);
  m.attr("TEST") = static_cast<int>(TEST);

  static py::exception<Error> caffe_error(m, "CaffeError",
                                          PyExc_RuntimeError);
  static py::exception<BlobNotReadable> not_readable(
      m, "BlobNotReadableError", caffe_error.ptr());
  // A bug in LeanCaffe (CAFFE_INTERNAL_CHECK), not the caller's mistake.
  static py::exception<InternalError> internal_error(m, "InternalError",
                                                     PyExc_RuntimeError);
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const InternalError& e) {
      internal_error(e.what());
    }
  });
  // The most specific translator must run first; pybind11 tries the most
  // recently registered first.
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const Error& e) {
      caffe_error(e.what());
    }
  });
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const BlobNotReadable& e) {
      not_readable(e.what());
    }
  });

  RegisterPythonLayer();

  // Process-wide settings.
  m.def("set_mode_cpu", []() { Caffe::set_mode(Caffe::CPU); });
  // Without a CUDA build or a GPU these raise (caffe.Error says why) and
  // the mode stays CPU: a script written for a GPU learns it has none.
  m.def("set_mode_gpu", []() { Caffe::set_mode(Caffe::GPU); });
  m.def("set_device", [](int device) { Caffe::SetDevice(device); },
        py::arg("device_id"));
  // GPU arithmetic (util/gpu_math_options.hpp), the caffe tool's
  // -allow_tf32, -allow_nondeterministic and -conv_algo: off/'heuristic'
  // unless asked for.
  m.def("set_allow_tf32", &SetAllowTf32, py::arg("allow"));
  m.def("allow_tf32", &AllowTf32);
  m.def("set_allow_nondeterministic", &SetAllowNondeterministic,
        py::arg("allow"));
  m.def("allow_nondeterministic", &AllowNondeterministic);
  m.def("set_conv_algo", [](const string& name) {
    SetConvAlgo(ParseConvAlgo(name));
  }, py::arg("algo"));
  m.def("conv_algo", []() { return string(ConvAlgoName(ConvAlgo())); });
  m.def("set_random_seed", [](unsigned int seed) {
    Caffe::set_random_seed(seed);
  }, py::arg("seed"));
  // Caffe master's init_log(), init_log(level), init_log(level, stderr):
  // messages below `level` are dropped; with stderr they go to the
  // terminal, otherwise where glog's settings send them (log files unless
  // GLOG_logtostderr is set).
  m.def("init_log", [](py::object level, py::object to_stderr) {
    if (!level.is_none()) FLAGS_minloglevel = level.cast<int>();
    if (!to_stderr.is_none()) FLAGS_logtostderr = to_stderr.cast<bool>();
    // glog refuses a second initialization (it aborts), and the caffe
    // tool has done it already when a Python layer imports caffe.
    if (!google::IsGoogleLoggingInitialized())
      google::InitGoogleLogging("pycaffe");
  }, py::arg("level") = py::none(), py::arg("stderr") = py::none());
  m.def("log", [](const string& s) { LOG(INFO) << s; });
  m.def("layer_type_list", &LayerRegistry<float>::LayerTypeList);
  m.def("solver_count", &Caffe::solver_count);
  m.def("set_solver_count", &Caffe::set_solver_count);
  m.def("solver_rank", &Caffe::solver_rank);
  m.def("set_solver_rank", &Caffe::set_solver_rank);
  // One process per GPU (master's multiprocess mode) is what caffe.NCCL
  // does anyway; the flag is accepted where NCCL is built in.
  m.def("set_multiprocess", [](bool multiprocess) {
    if (multiprocess && !NcclSupported())
      throw Error("set_multiprocess(True): this LeanCaffe build has no "
                  "multi-GPU (NCCL) support");
  });
  m.def("has_nccl", &NcclSupported);
  // Data-parallel jobs (mpirun -np N python3 script.py): starts MPI when
  // mpirun launched this process; True when N > 1 ranks train together.
  m.def("_init_distributed", [](double timeout) {
    set_dist_timeout(timeout);
    InitDistributed();
    return DistributedCommunicator() != nullptr;
  }, py::arg("timeout") = 600.0);
  m.def("_distributed_supported", &DistributedSupported);
  // Ends every rank of the job (an uncaught error on one rank).
  m.def("_abort_distributed", [](const string& message) {
    AbortDistributed(message);
  });
  // LeanCaffe's host memory limit (CAFFE_MEMORY_LIMIT): nets that do not
  // fit under it are refused with what would fit (util/memory_fit.hpp).
  m.def("set_memory_limit", [](py::object limit) {
    if (py::isinstance<py::str>(limit)) {
      SetHostMemoryLimit(ParseByteSize(limit.cast<string>()));
    } else {
      const long long bytes = limit.cast<long long>();
      if (bytes < 0) throw Error("set_memory_limit: bytes must be >= 0");
      SetHostMemoryLimit(static_cast<size_t>(bytes));
    }
  }, py::arg("bytes"), "Bytes (or '512M', '2G'); 0 removes the limit.");
  m.def("memory_limit", &HostMemoryLimit);
  m.def("memory_room", []() {
    const HostRoom room = HostMemoryRoom();
    py::dict d;
    d["bytes"] = room.bytes;
    d["limited_by"] = room.limited_by;
    return d;
  }, "Host bytes this process may still allocate, and what limits it.");
  m.def("mem_report", &MemReport, py::arg("network_file"),
        py::arg("phase") = static_cast<int>(TRAIN), py::arg("level") = 2,
        "The memory plan `caffe mem` shows, as a dict (text: its report).");

  py::class_<PyBlob>(m, "Blob")
      .def(py::init([](py::args shape) {
             PyBlob b;
             b.blob = std::make_shared<Blob<float> >(ShapeArgs(shape));
             return b;
           }))
      .def_property_readonly(
          "shape", [](const PyBlob& b) { return b.blob->shape(); })
      .def_property_readonly("num",
                             [](const PyBlob& b) { return b.blob->num(); })
      .def_property_readonly(
          "channels", [](const PyBlob& b) { return b.blob->channels(); })
      .def_property_readonly("height",
                             [](const PyBlob& b) { return b.blob->height(); })
      .def_property_readonly("width",
                             [](const PyBlob& b) { return b.blob->width(); })
      .def_property_readonly("count",
                             [](const PyBlob& b) { return b.blob->count(); })
      .def("reshape", [](PyBlob& b, py::args shape) {
        b.blob->Reshape(ShapeArgs(shape));
      })
      .def_property_readonly(
          "data", [](const PyBlob& b) { return BlobView(b, false); })
      .def_property_readonly(
          "diff", [](const PyBlob& b) { return BlobView(b, true); })
#ifdef USE_CUDA
      .def_property_readonly(
          "_gpu_data_ptr", [](const PyBlob& b) { return GpuPointer(b, false); })
      .def_property_readonly(
          "_gpu_diff_ptr", [](const PyBlob& b) { return GpuPointer(b, true); })
#endif
      .def("__repr__", [](const PyBlob& b) {
        return "<caffe.Blob " + (b.name.empty() ? "" : "'" + b.name + "' ") +
               b.blob->shape_string() + ">";
      });

  py::class_<BlobVec>(m, "BlobVec")
      .def("__len__",
           [](const BlobVec& v) { return v.layer.get()->blobs().size(); })
      .def("__getitem__",
           [](const BlobVec& v, py::ssize_t i) {
             const auto& blobs = v.layer.get()->blobs();
             const py::ssize_t n = static_cast<py::ssize_t>(blobs.size());
             if (i < 0) i += n;
             if (i < 0 || i >= n) throw py::index_error("blob index");
             PyBlob b;
             b.blob = blobs[i];
             return b;
           })
      .def("add_blob", [](BlobVec& v, py::args shape) {
        v.layer.get()->blobs().push_back(
            std::make_shared<Blob<float> >(ShapeArgs(shape)));
      });

  py::class_<PyLayerHandle>(m, "Layer", py::dynamic_attr())
      // Python layers subclass Layer; Caffe passes the LayerParameter.
      .def(py::init([](py::args, py::kwargs) { return PyLayerHandle(); }))
      .def_property_readonly("blobs",
                             [](const PyLayerHandle& h) { return BlobVec{h}; })
      .def_property_readonly(
          "type", [](const PyLayerHandle& h) { return h.get()->type(); })
      .def("setup",
           [](PyLayerHandle& h, const vector<PyBlob>& bottom,
              const vector<PyBlob>& top) {
             // A Python layer without setup() needs none.
             if (h.is_python) return;
             h.get()->LayerSetUp(RawBlobs(bottom), RawBlobs(top));
           })
      .def("reshape", [](PyLayerHandle& h, const vector<PyBlob>& bottom,
                         const vector<PyBlob>& top) {
        if (h.is_python) {
          PyErr_SetString(PyExc_NotImplementedError,
                          "a Python layer must define reshape(bottom, top)");
          throw py::error_already_set();
        }
        h.get()->Reshape(RawBlobs(bottom), RawBlobs(top));
      });

  py::class_<NetF, shared_ptr<NetF> >(m, "Net", py::dynamic_attr())
      .def(py::init(&MakeNet), py::arg("network_file"), py::arg("phase"),
           py::arg("level") = 0, py::arg("stages") = py::none(),
           py::arg("weights") = py::none(), py::arg("keep") = py::none())
      .def_static(
          "from_string",
          [](const string& text, py::object phase, int level,
             py::object stages, py::object weights) {
            NetParameter param;
            ReadProtoFromTextString(text, "<prototxt string>", &param);
            return NetFromParam(param, "<prototxt string>", PhaseArg(phase),
                                level, StringList(stages, "stages"), weights);
          },
          py::arg("text"), py::arg("phase"), py::arg("level") = 0,
          py::arg("stages") = py::none(), py::arg("weights") = py::none(),
          "Builds a net from prototxt text (NetParameter text format).")
      .def("_forward",
           [](NetF& net, int start, int end) {
             float loss = 0;
             RunReleased([&] { loss = net.ForwardFromTo(start, end); });
             return loss;
           })
      .def("_backward",
           [](NetF& net, int start, int end) {
             RunReleased([&] { net.BackwardFromTo(start, end); });
           })
      // Caffe master's net callbacks: fn(layer_index) around each layer's
      // forward or backward (net.hpp); the net keeps fn.
      .def("before_forward",
           [](NetF& net, py::object fn) {
             net.add_before_forward(NetCallbackArg(fn));
           })
      .def("after_forward",
           [](NetF& net, py::object fn) {
             net.add_after_forward(NetCallbackArg(fn));
           })
      .def("before_backward",
           [](NetF& net, py::object fn) {
             net.add_before_backward(NetCallbackArg(fn));
           })
      .def("after_backward",
           [](NetF& net, const PyNccl& nccl) {
             if (nccl.solver->net().get() != &net)
               throw Error("after_backward(nccl): this NCCL was made for "
                           "another solver's net");
           })
      .def("after_backward",
           [](NetF& net, py::object fn) {
             net.add_after_backward(NetCallbackArg(fn));
           })
      .def("reshape", &NetF::Reshape, py::call_guard<py::gil_scoped_release>())
      .def("clear_param_diffs", &NetF::ClearParamDiffs)
      .def("copy_from",
           [](NetF& net, py::object path) {
             net.CopyTrainedLayersFrom(PathArg(path, "weights file"));
           })
      .def("share_with",
           [](NetF& net, const NetF& other) {
             net.ShareTrainedLayersWith(&other);
           })
      .def_property_readonly("_blob_loss_weights", &NetF::blob_loss_weights)
      .def("_bottom_ids",
           [](const NetF& net, int i) {
             if (i < 0 || i >= static_cast<int>(net.layers().size()))
               throw py::index_error("layer index");
             return net.bottom_ids(i);
           })
      .def("_top_ids",
           [](const NetF& net, int i) {
             if (i < 0 || i >= static_cast<int>(net.layers().size()))
               throw py::index_error("layer index");
             return net.top_ids(i);
           })
      .def_property_readonly("_blobs",
                             [](const shared_ptr<NetF>& net) {
                               vector<PyBlob> out;
                               for (size_t i = 0; i < net->blobs().size();
                                    ++i)
                                 out.push_back(PyBlob{net->blobs()[i], net,
                                                      net->blob_names()[i]});
                               return out;
                             })
      .def_property_readonly("_blob_names", &NetF::blob_names)
      .def_property_readonly("layers", &NetLayers)
      .def_property_readonly("_layer_names", &NetF::layer_names)
      .def_property_readonly("_inputs", &NetF::input_blob_indices)
      .def_property_readonly("_outputs", &NetF::output_blob_indices)
      .def_property_readonly("name", &NetF::name)
      .def("_set_input_arrays", &SetInputArrays)
      .def("save", &SaveNet)
      .def("save_hdf5",
           [](const NetF& net, py::object f) {
             net.ToHDF5(PathArg(f, "filename"));
           })
      .def("load_hdf5",
           [](NetF& net, py::object f) {
             net.CopyTrainedLayersFromHDF5(PathArg(f, "filename"));
           })
      .def("keep",
           [](NetF& net, py::object names) {
             net.KeepBlobs(StringList(names, "blob names"));
           }, py::arg("blob_names"),
           "Keeps these blobs' data and diffs readable after every later "
           "pass under mem_param, as exclude_blob does; plans the memory "
           "again.")
      .def_property_readonly("kept_blobs", &NetF::kept_blobs)
      .def("_request_blobs",
           [](NetF& net, py::object names, bool diff) {
             net.RequestBlobs(StringList(names, "blob names"), diff);
           })
      .def("memory_report", &MemoryPlanInfo,
           "The mem_param plan applied to this net (None when the net is "
           "not optimized).")
      .def_property_readonly("_mem_param", [](const NetF& net) -> py::object {
        if (net.memory() == nullptr) return py::none();
        return py::bytes(net.memory()->param().SerializeAsString());
      });

  py::class_<SolverF, shared_ptr<SolverF> >(m, "Solver")
      .def_property_readonly("net", &SolverF::net)
      .def_property_readonly("test_nets", &SolverF::test_nets)
      .def_property_readonly("iter", &SolverF::iter)
      .def_property_readonly("type", &SolverF::type)
      .def_property_readonly("_param",
                             [](const SolverF& s) {
                               return py::bytes(s.param().SerializeAsString());
                             })
      .def("step",
           [](SolverF& s, int iters) { RunReleased([&] { s.Step(iters); }); },
           py::arg("iters"))
      .def(
          "solve",
          [](SolverF& s, py::object resume_file) {
            if (resume_file.is_none()) {
              RunReleased([&] { s.Solve(); });
            } else {
              const string file = PathArg(resume_file, "resume_file");
              RunReleased([&] { s.Solve(file); });
            }
          },
          py::arg("resume_file") = py::none())
      .def("restore",
           [](SolverF& s, py::object file) {
             s.Restore(PathArg(file, "solver state").c_str());
           })
      .def("snapshot", &SolverF::Snapshot)
      // Caffe master: on_start() at the start of each iteration,
      // on_gradients_ready() before its update (solver.hpp).
      .def("add_callback",
           [](SolverF& s, const PyNccl& nccl) {
             if (nccl.solver.get() != &s)
               throw Error("add_callback(nccl): this NCCL was made for "
                           "another solver");
           },
           py::arg("nccl"))
      .def("add_callback",
           [](SolverF& s, py::object on_start, py::object on_ready) {
             if (!PyCallable_Check(on_start.ptr()) ||
                 !PyCallable_Check(on_ready.ptr()))
               throw py::type_error("add_callback(on_start, "
                                    "on_gradients_ready) takes two "
                                    "callables");
             s.add_callback(std::make_shared<PySolverCallback>(on_start,
                                                               on_ready));
           },
           py::arg("on_start"), py::arg("on_gradients_ready"))
      .def("apply_update",
           [](SolverF& s) { RunReleased([&] { s.ApplyUpdate(); }); },
           "Updates the weights from the gradients in the parameter diffs "
           "at the current iteration; does not clear the diffs or advance "
           "iter (Caffe master).")
      .def("_set_base_lr", [](SolverF& s, float lr) {
        s.mutable_param().set_base_lr(lr);
      })
      .def("share_weights", [](SolverF& s, NetF& net) {
        net.ShareTrainedLayersWith(s.net().get());
      });

  py::class_<SGDSolver<float>, SolverF, shared_ptr<SGDSolver<float> > >(
      m, "SGDSolver")
      .def(py::init(&MakeSolver<SGDSolver<float> >), py::arg("solver_file"));
  BindSolver<NesterovSolver<float>, SGDSolver<float> >(m, "NesterovSolver");
  BindSolver<AdaGradSolver<float>, SGDSolver<float> >(m, "AdaGradSolver");
  BindSolver<RMSPropSolver<float>, SGDSolver<float> >(m, "RMSPropSolver");
  BindSolver<AdaDeltaSolver<float>, SGDSolver<float> >(m, "AdaDeltaSolver");
  BindSolver<AdamSolver<float>, SGDSolver<float> >(m, "AdamSolver");
  m.def("get_solver", &GetSolver, py::arg("solver_file"),
        "A solver of the type the solver file names.");

  py::class_<Timer>(m, "Timer")
      .def(py::init<>())
      .def("start", &Timer::Start)
      .def("stop", &Timer::Stop)
      .def_property_readonly("ms", &Timer::MilliSeconds);

  py::class_<PyNccl>(m, "NCCL")
      .def(py::init([](shared_ptr<SolverF> solver, py::bytes uid) {
             if (!solver)
               throw py::type_error("NCCL(solver, uid) needs a solver");
             std::shared_ptr<Communicator> comm = MakeNcclCommunicator(
                 uid, Caffe::solver_rank(), Caffe::solver_count());
             solver->JoinDataParallel(comm);
             return PyNccl{solver};
           }),
           py::arg("solver"), py::arg("uid"))
      .def_static("new_uid", []() { return py::bytes(NewNcclUid()); })
      .def("bcast", [](PyNccl& n) {
        RunReleased([&] { n.solver->SyncDataParallelState(); });
      });
}
